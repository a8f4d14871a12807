// String commands: GET, SET, SETNX, SETEX, PSETEX, MGET, MSET, MSETNX,
// GETSET, GETDEL, GETEX, INCR, DECR, INCRBY, DECRBY, INCRBYFLOAT, APPEND,
// STRLEN, GETRANGE (SUBSTR), SETRANGE.
//
// Each follows Redis 7.0's t_string.c: the same checks in the same order,
// so that replies, errors included, are byte for byte Redis's. Every
// command that writes reads and writes inside one UpdateStringsFor call
// (service/resp/commands/string_update.h), so it is atomic. A GEO key is a zset
// to these commands: SET, MSET and friends replace it (deleting the collection
// after the string is written; until then the string wins, as TypeOf says),
// every other command answers WRONGTYPE.
#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "model/clock.h"
#include "service/resp/commands/string_update.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/lcs.h"
#include "types/codec/redis_number.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

// SET and GETEX option flags (Redis's OBJ_* flags).
enum : int {
  kNx = 1 << 0,
  kXx = 1 << 1,
  kEx = 1 << 2,
  kPx = 1 << 3,
  kKeepTtl = 1 << 4,
  kGet = 1 << 5,
  kExat = 1 << 6,
  kPxat = 1 << 7,
  kPersist = 1 << 8,
};

bool Has(int flags, int any) { return (flags & any) != 0; }

constexpr int kAnyExpiry = kEx | kPx | kExat | kPxat;

// One SET/GETEX option word: its flag, the flags it cannot join, which of
// the two commands take it, and whether an argument (the time) follows.
struct ExtendedOption {
  absl::string_view word;
  int flag;
  int conflicts;
  bool for_set;
  bool for_getex;
  bool takes_time;
};

// Redis's rules for each option, as parseExtendedStringArgumentsOrReply
// checks them.
constexpr ExtendedOption kExtendedOptions[] = {
    {"nx", kNx, kXx, true, false, false},
    {"xx", kXx, kNx, true, false, false},
    {"get", kGet, 0, true, false, false},
    {"keepttl", kKeepTtl, kPersist | kAnyExpiry, true, false, false},
    {"persist", kPersist, kKeepTtl | kAnyExpiry, false, true, false},
    {"ex", kEx, kKeepTtl | kPersist | (kAnyExpiry & ~kEx), true, true, true},
    {"px", kPx, kKeepTtl | kPersist | (kAnyExpiry & ~kPx), true, true, true},
    {"exat", kExat, kKeepTtl | kPersist | (kAnyExpiry & ~kExat), true, true,
     true},
    {"pxat", kPxat, kKeepTtl | kPersist | (kAnyExpiry & ~kPxat), true, true,
     true},
};

// The option `arg` names, or null.
const ExtendedOption* FindExtendedOption(absl::string_view arg) {
  for (const ExtendedOption& option : kExtendedOptions) {
    if (IsWord(arg, option.word)) return &option;
  }
  return nullptr;
}

// Whether `option` may come after the options that set `flags`.
bool ExtendedOptionAllowed(const ExtendedOption& option, int flags, bool is_set,
                           bool has_next) {
  if (Has(flags, option.conflicts)) return false;
  if (option.takes_time && !has_next) return false;
  return is_set ? option.for_set : option.for_getex;
}

// Redis's parseExtendedStringArgumentsOrReply, for SET (from argv[3]) or
// GETEX (from argv[2]). Replies "syntax error" and returns false on a bad
// option.
bool ParseExtended(CommandContext& ctx, bool is_set, int* flags,
                   const std::string** expire) {
  const auto& argv = ctx.argv;
  for (size_t j = is_set ? 3 : 2; j < argv.size(); ++j) {
    const ExtendedOption* option = FindExtendedOption(argv[j]);
    if (option == nullptr ||
        !ExtendedOptionAllowed(*option, *flags, is_set, j + 1 < argv.size())) {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
    *flags |= option->flag;
    if (option->takes_time) *expire = &argv[++j];
  }
  return true;
}

// Redis's getExpireMillisecondsOrReply: the absolute expiry in ms, or the
// error to reply.
struct ExpireTime {
  std::optional<int64_t> at_ms;
  std::string error;  // set when at_ms is not
};

ExpireTime ParseExpireTime(const std::string& arg, int flags,
                           absl::string_view command, int64_t now_ms) {
  int64_t ms = 0;
  if (!types::ParseInt64(arg, &ms)) return {std::nullopt, kNotIntegerError};
  const std::string invalid =
      absl::StrCat("invalid expire time in '", command, "' command");
  const bool seconds = Has(flags, kEx | kExat);
  if (ms <= 0 || (seconds && ms > LLONG_MAX / 1000)) {
    return {std::nullopt, invalid};
  }
  if (seconds) ms *= 1000;
  if (Has(flags, kEx | kPx) && __builtin_add_overflow(ms, now_ms, &ms)) {
    return {std::nullopt, invalid};
  }
  return {ms, ""};
}

// A string value that expires at `at_ms`, or nullopt (deleted) when that is
// already past: Redis deletes such a key before any read can see it.
std::optional<StringValue> ValueExpiringAt(std::string value, int64_t at_ms,
                                           int64_t now_ms) {
  if (at_ms != 0 && at_ms <= now_ms) return std::nullopt;
  return StringValue{std::move(value), at_ms};
}

// Replies for a key with no string: WRONGTYPE if it is a GEO key, else
// `absent()`.
template <typename F>
void ReplyAbsent(CommandContext& ctx, const std::string& name, F absent) {
  absl::StatusOr<bool> geo = types::HoldsNonString(ctx.store(), name, NowMs());
  if (!ctx.Check(geo.status())) return;
  if (*geo) return ctx.reply.Error(kWrongTypeError);
  absent();
}

// ---- GET, STRLEN, GETRANGE, MGET ----

void Get(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  auto v = ctx.store().GetString(name, NowMs());
  if (!ctx.Check(v.status())) return;
  if (*v) return ctx.reply.Bulk((*v)->value);
  ReplyAbsent(ctx, name, [&] { ctx.reply.Null(); });
}

void Strlen(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  auto v = ctx.store().GetString(name, NowMs());
  if (!ctx.Check(v.status())) return;
  if (*v) {
    return ctx.reply.Integer(static_cast<int64_t>((*v)->value.size()));
  }
  ReplyAbsent(ctx, name, [&] { ctx.reply.Integer(0); });
}

void Getrange(CommandContext& ctx) {
  int64_t start = 0, end = 0;
  if (!types::ParseInt64(ctx.argv[2], &start) ||
      !types::ParseInt64(ctx.argv[3], &end)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  auto v = ctx.store().GetString(name, NowMs());
  if (!ctx.Check(v.status())) return;
  if (!*v) return ReplyAbsent(ctx, name, [&] { ctx.reply.Bulk(""); });
  const std::string& s = (*v)->value;
  const int64_t len = static_cast<int64_t>(s.size());
  if (start < 0 && end < 0 && start > end) return ctx.reply.Bulk("");
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (start > end || len == 0) return ctx.reply.Bulk("");
  ctx.reply.Bulk(absl::string_view(s).substr(start, end - start + 1));
}

void Mget(CommandContext& ctx) {
  std::vector<std::string> names;
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    names.push_back(ctx.Name(ctx.argv[i]));
  }
  auto values = ctx.store().GetStrings(names, NowMs());
  if (!ctx.Check(values.status())) return;
  ctx.reply.Array(values->size());
  // Redis answers nil for a key of another type too.
  for (const auto& v : *values) {
    if (v) {
      ctx.reply.Bulk(v->value);
    } else {
      ctx.reply.Null();
    }
  }
}

// ---- SET and its variants ----

// Whether the key holds another type (a GEO key, to SET) when it holds no
// string.
absl::StatusOr<bool> HoldsNonStringIfNoString(
    CommandContext& ctx, const std::string& name,
    const std::optional<StringValue>& cur) {
  if (cur) return false;
  return types::HoldsNonString(ctx.store(), name, NowMs());
}

// Whether NX or XX in `flags` stops SET on a key that is `found` or not.
bool ConditionStopsSet(int flags, bool found) {
  return (Has(flags, kNx) && found) || (Has(flags, kXx) && !found);
}

// The expiry SET gives a value it writes without a time: KEEPTTL keeps the
// key's own (a GEO key's collection expiry included), else none.
absl::StatusOr<int64_t> KeptExpiry(CommandContext& ctx, const std::string& name,
                                   int flags,
                                   const std::optional<StringValue>& cur,
                                   bool geo, int64_t now) {
  if (!Has(flags, kKeepTtl)) return int64_t{0};
  if (geo) return types::NonStringExpiry(ctx.store(), name, now);
  return cur ? cur->expire_at_ms : int64_t{0};
}

// What SET writes and replies once its options are parsed.
struct SetRequest {
  int flags;
  const std::string& value;
  bool has_expire;    // EX, PX, EXAT or PXAT: `expire_at` is the time
  int64_t expire_at;  // absolute, in ms
  const DeferredReply& ok;
  const DeferredReply& aborted;
};

// SET's decision on the key's current string `cur`, inside
// UpdateStringsFor: sets `answer`, changes `cur`, and returns whether to
// write it. Over a GEO key the new value goes to `replacing_geo` instead,
// written afterwards with the collection's removal.
absl::StatusOr<bool> DecideSet(CommandContext& ctx, const std::string& name,
                               const SetRequest& req, int64_t now,
                               std::optional<StringValue>& cur,
                               DeferredReply& answer,
                               std::optional<StringValue>& replacing_geo) {
  absl::StatusOr<bool> holds_other = HoldsNonStringIfNoString(ctx, name, cur);
  if (!holds_other.ok()) return holds_other.status();
  const bool geo = *holds_other;
  const bool get = Has(req.flags, kGet);
  DeferredReply old;
  if (get) {
    if (geo) {
      answer.Error(kWrongTypeError);
      return false;
    }
    if (cur) {
      old.Bulk(cur->value);
    } else {
      old.Null();
    }
  }
  if (ConditionStopsSet(req.flags, cur.has_value() || geo)) {
    answer = get ? old : req.aborted;
    return false;
  }
  int64_t expire_at = req.expire_at;
  if (!req.has_expire) {
    absl::StatusOr<int64_t> kept =
        KeptExpiry(ctx, name, req.flags, cur, geo, now);
    if (!kept.ok()) return kept.status();
    expire_at = *kept;
  }
  cur = ValueExpiringAt(req.value, expire_at, now);
  answer = get ? old : req.ok;
  if (geo) replacing_geo = cur;
  return !geo;
}

// Redis's setGenericCommand. `ok` and `aborted` are the replies when the
// value is set and when NX/XX stop it (without GET).
void SetGeneric(CommandContext& ctx, int flags, const std::string& key,
                const std::string& value, const std::string* expire,
                absl::string_view command, const DeferredReply& ok,
                const DeferredReply& aborted) {
  const int64_t now = NowMs();
  int64_t expire_at = 0;
  if (expire != nullptr) {
    ExpireTime t = ParseExpireTime(*expire, flags, command, now);
    if (!t.at_ms) return ctx.reply.Error(t.error);
    expire_at = *t.at_ms;
  }
  const std::string name = ctx.Name(key);
  if (flags == 0 && expire == nullptr) {
    // Plain SET replaces whatever the key held: no old value to read. A
    // GEO key of that name (only possible when no string was cached) goes.
    absl::StatusOr<bool> was_string =
        ctx.store().PutString(name, storage::StringValue{value, 0}, now);
    if (!ctx.Check(was_string.status())) return;
    return ok.Send(ctx.reply);
  }
  const SetRequest req{flags, value, expire != nullptr, expire_at, ok, aborted};
  DeferredReply answer;
  std::optional<StringValue> replacing_geo;
  const bool ran = UpdateStringsFor(
      ctx, {name}, now, [&](StringSlots& values) -> absl::StatusOr<bool> {
        return DecideSet(ctx, name, req, now, values[0], answer, replacing_geo);
      });
  if (!ran) return;
  if (replacing_geo) {
    const std::string names[] = {name};
    if (!ctx.Check(ctx.store().ReplaceWithStrings(names, {*replacing_geo}))) {
      return;
    }
  }
  answer.Send(ctx.reply);
}

DeferredReply OkReply() {
  DeferredReply r;
  r.Ok();
  return r;
}
DeferredReply NullReply() {
  DeferredReply r;
  r.Null();
  return r;
}
DeferredReply IntegerReply(int64_t v) {
  DeferredReply r;
  r.Integer(v);
  return r;
}

void Set(CommandContext& ctx) {
  int flags = 0;
  const std::string* expire = nullptr;
  if (!ParseExtended(ctx, /*is_set=*/true, &flags, &expire)) return;
  SetGeneric(ctx, flags, ctx.argv[1], ctx.argv[2], expire, "set", OkReply(),
             NullReply());
}

void Setnx(CommandContext& ctx) {
  SetGeneric(ctx, kNx, ctx.argv[1], ctx.argv[2], nullptr, "setnx",
             IntegerReply(1), IntegerReply(0));
}

void Setex(CommandContext& ctx) {
  SetGeneric(ctx, kEx, ctx.argv[1], ctx.argv[3], &ctx.argv[2], "setex",
             OkReply(), NullReply());
}

void Psetex(CommandContext& ctx) {
  SetGeneric(ctx, kPx, ctx.argv[1], ctx.argv[3], &ctx.argv[2], "psetex",
             OkReply(), NullReply());
}

void Getset(CommandContext& ctx) {
  SetGeneric(ctx, kGet, ctx.argv[1], ctx.argv[2], nullptr, "getset", OkReply(),
             NullReply());
}

// Inside MSET's UpdateStringsFor: whether any of `names` exists (`busy`),
// and which hold another type (GEO keys, each once) that MSET replaces.
absl::Status FindExistingKeys(CommandContext& ctx,
                              const std::vector<std::string>& names,
                              const StringSlots& values, bool* busy,
                              std::vector<std::string>* replaced) {
  absl::flat_hash_set<std::string> checked;
  for (size_t i = 0; i < names.size(); ++i) {
    if (values[i]) {
      *busy = true;
      continue;
    }
    if (!checked.insert(names[i]).second) continue;
    absl::StatusOr<bool> geo =
        types::HoldsNonString(ctx.store(), names[i], NowMs());
    if (!geo.ok()) return geo.status();
    if (*geo) {
      *busy = true;
      replaced->push_back(names[i]);
    }
  }
  return absl::OkStatus();
}

// MSET over GEO keys: every pair written in one batch with the
// collections' removal.
absl::Status ReplaceWithArgValues(CommandContext& ctx,
                                  const std::vector<std::string>& names) {
  std::vector<StringValue> values;
  for (size_t i = 2; i < ctx.argv.size(); i += 2) {
    values.push_back(StringValue{ctx.argv[i], 0});
  }
  return ctx.store().ReplaceWithStrings(names, values);
}

// MSET and MSETNX: all values in one batch; MSETNX sets none if any key
// exists (a GEO key included).
void MsetGeneric(CommandContext& ctx, bool nx) {
  if (ctx.argv.size() % 2 == 0) {
    return ReplyArityError(ctx, nx ? "msetnx" : "mset");
  }
  const int64_t now = NowMs();
  std::vector<std::string> names;
  for (size_t i = 1; i < ctx.argv.size(); i += 2) {
    names.push_back(ctx.Name(ctx.argv[i]));
  }
  std::vector<std::string> replaced;
  bool busy = false;
  const bool ran = UpdateStringsFor(
      ctx, names, now, [&](StringSlots& values) -> absl::StatusOr<bool> {
        absl::Status s = FindExistingKeys(ctx, names, values, &busy, &replaced);
        if (!s.ok()) return s;
        if (nx && busy) return false;
        for (size_t i = 0; i < names.size(); ++i) {
          values[i] = StringValue{ctx.argv[2 * i + 2], 0};
        }
        // Over GEO keys: all written below with the collections' removal.
        return replaced.empty();
      });
  if (!ran) return;
  if (nx) return ctx.reply.Integer(busy ? 0 : 1);
  if (!replaced.empty() && !ctx.Check(ReplaceWithArgValues(ctx, names))) {
    return;
  }
  ctx.reply.Ok();
}

void Mset(CommandContext& ctx) { MsetGeneric(ctx, false); }
void Msetnx(CommandContext& ctx) { MsetGeneric(ctx, true); }

// ---- GETDEL, GETEX ----

void Getdel(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, {name}, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        if (!values[0]) {
          absl::StatusOr<bool> geo =
              AnswerWrongTypeIfGeo(ctx.store(), name, answer);
          if (!geo.ok()) return geo.status();
          if (!*geo) answer.Null();
          return false;
        }
        answer.Bulk(values[0]->value);
        values[0].reset();
        return true;
      });
  if (ran) answer.Send(ctx.reply);
}

void Getex(CommandContext& ctx) {
  int flags = 0;
  const std::string* expire = nullptr;
  if (!ParseExtended(ctx, /*is_set=*/false, &flags, &expire)) return;
  const int64_t now = NowMs();
  const std::string name = ctx.Name(ctx.argv[1]);
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, {name}, now, [&](StringSlots& values) -> absl::StatusOr<bool> {
        std::optional<StringValue>& cur = values[0];
        if (!cur) {
          absl::StatusOr<bool> geo =
              AnswerWrongTypeIfGeo(ctx.store(), name, answer);
          if (!geo.ok()) return geo.status();
          if (!*geo) answer.Null();
          return false;
        }
        // Redis validates the time only once it has found the string.
        int64_t at = 0;
        if (expire != nullptr) {
          ExpireTime t = ParseExpireTime(*expire, flags, "getex", now);
          if (!t.at_ms) {
            answer.Error(t.error);
            return false;
          }
          at = *t.at_ms;
        }
        answer.Bulk(cur->value);
        if (expire != nullptr) {
          cur = ValueExpiringAt(std::move(cur->value), at, now);
        } else if (Has(flags, kPersist)) {
          cur->expire_at_ms = 0;
        }
        return true;
      });
  if (ran) answer.Send(ctx.reply);
}

// ---- INCR, DECR, INCRBY, DECRBY, INCRBYFLOAT ----

// Redis's incrDecrCommand: the stored value must be a strict decimal
// int64; the expiry is kept.
void IncrDecr(CommandContext& ctx, int64_t by) {
  const std::string name = ctx.Name(ctx.argv[1]);
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, {name}, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        std::optional<StringValue>& cur = values[0];
        int64_t value = 0;
        if (!cur) {
          absl::StatusOr<bool> geo =
              AnswerWrongTypeIfGeo(ctx.store(), name, answer);
          if (!geo.ok()) return geo.status();
          if (*geo) return false;
        } else if (!types::ParseInt64(cur->value, &value)) {
          answer.Error(kNotIntegerError);
          return false;
        }
        int64_t result = 0;
        if (__builtin_add_overflow(value, by, &result)) {
          answer.Error("increment or decrement would overflow");
          return false;
        }
        if (!cur) cur = StringValue();
        cur->value = absl::StrCat(result);
        answer.Integer(result);
        return true;
      });
  if (ran) answer.Send(ctx.reply);
}

void Incr(CommandContext& ctx) { IncrDecr(ctx, 1); }
void Decr(CommandContext& ctx) { IncrDecr(ctx, -1); }

void Incrby(CommandContext& ctx) {
  int64_t by = 0;
  if (!types::ParseInt64(ctx.argv[2], &by))
    return ctx.reply.Error(kNotIntegerError);
  IncrDecr(ctx, by);
}

void Decrby(CommandContext& ctx) {
  int64_t by = 0;
  if (!types::ParseInt64(ctx.argv[2], &by))
    return ctx.reply.Error(kNotIntegerError);
  if (by == LLONG_MIN) return ctx.reply.Error("decrement would overflow");
  IncrDecr(ctx, -by);
}

void Incrbyfloat(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, {name}, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        std::optional<StringValue>& cur = values[0];
        long double value = 0, incr = 0;
        if (!cur) {
          absl::StatusOr<bool> geo =
              AnswerWrongTypeIfGeo(ctx.store(), name, answer);
          if (!geo.ok()) return geo.status();
          if (*geo) return false;
        }
        if ((cur && !types::ParseRedisLongDouble(cur->value, &value)) ||
            !types::ParseRedisLongDouble(ctx.argv[2], &incr)) {
          answer.Error(kNotFloatError);
          return false;
        }
        value += incr;
        if (std::isnan(value) || std::isinf(value)) {
          answer.Error("increment would produce NaN or Infinity");
          return false;
        }
        if (!cur) cur = StringValue();
        cur->value = types::FormatLongDouble(value);
        answer.Bulk(cur->value);
        return true;
      });
  if (ran) answer.Send(ctx.reply);
}

// ---- APPEND, SETRANGE ----

// Redis's checkStringLength: the result may not exceed proto-max-bulk-len.
bool FitsMaxLength(CommandContext& ctx, int64_t size, int64_t append) {
  int64_t total = 0;
  return !__builtin_add_overflow(size, append, &total) &&
         total <= ctx.server.settings().proto_max_bulk_len;
}
constexpr char kTooLongError[] =
    "string exceeds maximum allowed size (proto-max-bulk-len)";

void Append(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::string& tail = ctx.argv[2];
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, {name}, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        std::optional<StringValue>& cur = values[0];
        if (!cur) {
          absl::StatusOr<bool> geo =
              AnswerWrongTypeIfGeo(ctx.store(), name, answer);
          if (!geo.ok()) return geo.status();
          if (*geo) return false;
          cur = StringValue{tail, 0};
        } else {
          if (!FitsMaxLength(ctx, cur->value.size(), tail.size())) {
            answer.Error(kTooLongError);
            return false;
          }
          cur->value.append(tail);
        }
        answer.Integer(static_cast<int64_t>(cur->value.size()));
        return true;
      });
  if (ran) answer.Send(ctx.reply);
}

void Setrange(CommandContext& ctx) {
  int64_t offset = 0;
  if (!types::ParseInt64(ctx.argv[2], &offset)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  if (offset < 0) return ctx.reply.Error("offset is out of range");
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::string& patch = ctx.argv[3];
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, {name}, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        std::optional<StringValue>& cur = values[0];
        if (!cur) {
          absl::StatusOr<bool> geo =
              AnswerWrongTypeIfGeo(ctx.store(), name, answer);
          if (!geo.ok()) return geo.status();
          if (*geo) return false;
          if (patch.empty()) {
            answer.Integer(0);
            return false;
          }
        } else if (patch.empty()) {
          answer.Integer(static_cast<int64_t>(cur->value.size()));
          return false;
        }
        if (!FitsMaxLength(ctx, offset, patch.size())) {
          answer.Error(kTooLongError);
          return false;
        }
        if (!cur) cur = StringValue();
        std::string& s = cur->value;
        const size_t end = static_cast<size_t>(offset) + patch.size();
        if (s.size() < end) s.resize(end, '\0');
        s.replace(static_cast<size_t>(offset), patch.size(), patch);
        answer.Integer(static_cast<int64_t>(s.size()));
        return true;
      });
  if (ran) answer.Send(ctx.reply);
}

// ---- LCS ----

struct LcsOptions {
  bool idx = false;
  bool len = false;
  bool with_match_len = false;
  int64_t min_match_len = 0;
};

// LCS's options from argv[3] on, in Redis's order of checks; false once it
// has replied an error.
bool ParseLcsOptions(CommandContext& ctx, LcsOptions* o) {
  const std::vector<std::string>& argv = ctx.argv;
  for (size_t j = 3; j < argv.size(); ++j) {
    if (IsWord(argv[j], "idx")) {
      o->idx = true;
    } else if (IsWord(argv[j], "len")) {
      o->len = true;
    } else if (IsWord(argv[j], "withmatchlen")) {
      o->with_match_len = true;
    } else if (IsWord(argv[j], "minmatchlen") && j + 1 < argv.size()) {
      if (!types::ParseInt64(argv[++j], &o->min_match_len)) {
        ctx.reply.Error(kNotIntegerError);
        return false;
      }
      o->min_match_len = std::max<int64_t>(o->min_match_len, 0);
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  if (o->idx && o->len) {
    ctx.reply.Error(
        "If you want both the length and indexes, please just use IDX.");
    return false;
  }
  return true;
}

void ReplyLcsRanges(Reply& reply, const types::LcsResult& r,
                    bool with_match_len) {
  reply.Map(2);
  reply.Bulk("matches");
  reply.Array(r.ranges.size());
  for (const types::LcsRange& range : r.ranges) {
    reply.Array(with_match_len ? 3 : 2);
    reply.Array(2);
    reply.Integer(range.a_start);
    reply.Integer(range.a_end);
    reply.Array(2);
    reply.Integer(range.b_start);
    reply.Integer(range.b_end);
    if (with_match_len) reply.Integer(range.length());
  }
  reply.Bulk("len");
  reply.Integer(r.length);
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: Redis reads
// both keys (a missing one is "") before it reads the options.
void Lcs(CommandContext& ctx) {
  const int64_t now = NowMs();
  std::string values[2];
  for (int k = 0; k < 2; ++k) {
    const std::string name = ctx.Name(ctx.argv[1 + k]);
    auto v = ctx.store().GetString(name, now);
    if (!ctx.Check(v.status())) return;
    if (*v) {
      values[k] = std::move((*v)->value);
      continue;
    }
    absl::StatusOr<bool> other = types::HoldsNonString(ctx.store(), name, now);
    if (!ctx.Check(other.status())) return;
    if (*other) {
      return ctx.reply.Error("The specified keys must contain string values");
    }
  }
  LcsOptions o;
  if (!ParseLcsOptions(ctx, &o)) return;
  if (types::LcsTableBytes(values[0].size(), values[1].size()) >
      static_cast<uint64_t>(ctx.server.settings().proto_max_bulk_len)) {
    return ctx.reply.Error(
        "Insufficient memory, transient memory for LCS exceeds "
        "proto-max-bulk-len");
  }
  const types::LcsResult r = types::LongestCommonSubsequence(
      values[0], values[1], /*walk=*/o.idx || !o.len, o.min_match_len);
  if (o.idx) return ReplyLcsRanges(ctx.reply, r, o.with_match_len);
  if (o.len) return ctx.reply.Integer(r.length);
  ctx.reply.Bulk(r.subsequence);
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(string, table) {
  table->Add("get", 2, Get, {"readonly", "fast"});
  table->Add("strlen", 2, Strlen, {"readonly", "fast"});
  table->Add("getrange", 4, Getrange, {"readonly"});
  table->Add("substr", 4, Getrange, {"readonly"});
  table->Add("mget", -2, Mget, {"readonly", "fast"}, 1, -1, 1);
  table->Add("set", -3, Set, {"write", "denyoom"});
  table->Add("setnx", 3, Setnx, {"write", "denyoom", "fast"});
  table->Add("setex", 4, Setex, {"write", "denyoom"});
  table->Add("psetex", 4, Psetex, {"write", "denyoom"});
  table->Add("getset", 3, Getset, {"write", "denyoom", "fast"});
  table->Add("mset", -3, Mset, {"write", "denyoom"}, 1, -1, 2);
  table->Add("msetnx", -3, Msetnx, {"write", "denyoom"}, 1, -1, 2);
  table->Add("getdel", 2, Getdel, {"write", "fast"});
  table->Add("getex", -2, Getex, {"write", "fast"});
  table->Add("incr", 2, Incr, {"write", "denyoom", "fast"});
  table->Add("decr", 2, Decr, {"write", "denyoom", "fast"});
  table->Add("incrby", 3, Incrby, {"write", "denyoom", "fast"});
  table->Add("decrby", 3, Decrby, {"write", "denyoom", "fast"});
  table->Add("incrbyfloat", 3, Incrbyfloat, {"write", "denyoom", "fast"});
  table->Add("append", 3, Append, {"write", "denyoom"});
  table->Add("setrange", 4, Setrange, {"write", "denyoom"});
  // A table of |a| x |b| cells: O(N*M) work.
  table->Add("lcs", -3, Lcs, {"readonly"}, 1, 2, 1, RunsOn::kWorker);
}

}  // namespace trackdb::resp
