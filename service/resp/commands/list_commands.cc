// List commands: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LMPOP, LLEN,
// LINDEX, LSET, LRANGE, LTRIM, LREM, LINSERT, LPOS, LMOVE, RPOPLPUSH, and
// the blocking BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH.
//
// Each follows Redis 7.0's t_list.c: the same checks in the same order, so
// that replies, errors included, are byte for byte Redis's. Each runs as
// one storage transaction over every key it names (RunTyped).
//
// The list's layout, its index arithmetic and its element operations are
// types/list.h's; here each command parses, calls them and replies.
//
// Where they run: pushes, moves and point reads on the loop; LRANGE and
// counted pops on the loop when their arguments bound them to a few
// elements, else on a worker, as LTRIM, LREM, LINSERT and LPOS always are
// (their work follows the list's length).
//
// Blocking: BLPOP and the others wait as blocking_pop.h says; BLMPOP is
// LMPOP that waits. A BLMOVE whose destination holds another type when its
// source gains an element replies WRONGTYPE, as Redis's does.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "model/clock.h"
#include "service/resp/commands/blocking_pop.h"
#include "service/resp/commands/mpop_args.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/pop_waiters.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/list.h"
#include "types/typed_key.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;
using types::list::End;
using types::list::PopCounted;
using types::list::PopElement;
using types::list::Position;
using types::list::PushElement;
using types::list::RangeOf;
using types::list::ReadAll;
using types::list::ReadElement;
using types::list::ReadElements;
using types::list::RemoveEnds;
using types::list::RewriteList;
using types::list::SetElement;
using types::list::Span;

constexpr char kNoSuchKeyError[] = "no such key";
constexpr char kIndexOutOfRangeError[] = "index out of range";
constexpr char kCountNotPositiveError[] =
    "value is out of range, must be positive";

bool ParseEnd(const std::string& arg, End* end) {
  if (IsWord(arg, "left")) {
    *end = End::kLeft;
  } else if (IsWord(arg, "right")) {
    *end = End::kRight;
  } else {
    return false;
  }
  return true;
}

// ---- Push ----

// LPUSH, RPUSH, and with `only_existing` LPUSHX, RPUSHX.
void PushGeneric(CommandContext& ctx, End end, bool only_existing) {
  const std::string name = ctx.Name(ctx.argv[1]);
  bool pushed = false;
  RunOnKey(ctx, name, ValueType::kList, /*create=*/!only_existing,
           [&](TypedTxn& txn, std::optional<TypedMeta>& found, Reply& reply) {
             if (!found) {
               reply.Integer(0);
               return absl::OkStatus();
             }
             TypedMeta& meta = *found;
             for (size_t i = 2; i < ctx.argv.size(); ++i) {
               PushElement(txn, name, meta, ctx.argv[i], end);
             }
             txn.SetMeta(name, meta);
             reply.Integer(static_cast<int64_t>(meta.size));
             pushed = true;
             return absl::OkStatus();
           });
  if (pushed) WakePoppers(ctx, name);
}

void LPush(CommandContext& ctx) { PushGeneric(ctx, End::kLeft, false); }
void RPush(CommandContext& ctx) { PushGeneric(ctx, End::kRight, false); }
void LPushX(CommandContext& ctx) { PushGeneric(ctx, End::kLeft, true); }
void RPushX(CommandContext& ctx) { PushGeneric(ctx, End::kRight, true); }

// LINSERT key BEFORE|AFTER pivot element.
void LInsert(CommandContext& ctx) {
  bool after = false;
  if (IsWord(ctx.argv[2], "after")) {
    after = true;
  } else if (!IsWord(ctx.argv[2], "before")) {
    return ctx.reply.Error(kSyntaxError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kList, [&](Reply& reply) { reply.Integer(0); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        absl::StatusOr<std::vector<std::string>> was = ReadAll(txn, name, meta);
        if (!was.ok()) return was.status();
        auto pivot = std::find(was->begin(), was->end(), ctx.argv[3]);
        if (pivot == was->end()) {
          reply.Integer(-1);
          return absl::OkStatus();
        }
        std::vector<std::string> now = *was;
        now.insert(now.begin() + (pivot - was->begin()) + (after ? 1 : 0),
                   ctx.argv[4]);
        RewriteList(txn, name, meta, *was, now);
        txn.SetMeta(name, meta);
        reply.Integer(static_cast<int64_t>(meta.size));
        return absl::OkStatus();
      });
}

// ---- Pop ----

// LPOP and RPOP: key [count].
void PopGeneric(CommandContext& ctx, End end) {
  if (ctx.argv.size() > 3) {
    return ReplyArityError(ctx, end == End::kLeft ? "lpop" : "rpop");
  }
  const bool has_count = ctx.argv.size() == 3;
  int64_t count = 0;
  if (has_count && (!types::ParseInt64(ctx.argv[2], &count) || count < 0)) {
    return ctx.reply.Error(kCountNotPositiveError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kList,
      [&](Reply& reply) { has_count ? reply.NullArray() : reply.Null(); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        if (!has_count) {
          absl::StatusOr<std::string> value = PopElement(txn, name, meta, end);
          if (!value.ok()) return value.status();
          txn.SetMeta(name, meta);
          reply.Bulk(*value);
          return absl::OkStatus();
        }
        absl::StatusOr<std::vector<std::string>> values =
            PopCounted(txn, name, meta, end, count);
        if (!values.ok()) return values.status();
        reply.Array(values->size());
        for (const std::string& v : *values) reply.Bulk(v);
        return absl::OkStatus();
      });
}

void LPop(CommandContext& ctx) { PopGeneric(ctx, End::kLeft); }
void RPop(CommandContext& ctx) { PopGeneric(ctx, End::kRight); }

// ---- Reads ----

void LLen(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kList, /*create=*/false,
           [&](TypedTxn&, std::optional<TypedMeta>& meta, Reply& reply) {
             reply.Integer(meta ? static_cast<int64_t>(meta->size) : 0);
             return absl::OkStatus();
           });
}

// LINDEX reads the key before its index argument, as Redis does.
void LIndex(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(
      ctx, name, ValueType::kList, /*create=*/false,
      [&](TypedTxn& txn, std::optional<TypedMeta>& meta, Reply& reply) {
        int64_t index = 0;
        if (!meta) {
          reply.Null();
        } else if (!types::ParseInt64(ctx.argv[2], &index)) {
          reply.Error(kNotIntegerError);
        } else if (std::optional<uint64_t> pos = Position(index, meta->size);
                   !pos) {
          reply.Null();
        } else {
          absl::StatusOr<std::string> value =
              ReadElement(txn, name, *meta, *pos);
          if (!value.ok()) return value.status();
          reply.Bulk(*value);
        }
        return absl::OkStatus();
      });
}

void LSet(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(
      ctx, name, ValueType::kList, /*create=*/false,
      [&](TypedTxn& txn, std::optional<TypedMeta>& meta, Reply& reply) {
        int64_t index = 0;
        if (!meta) {
          reply.Error(kNoSuchKeyError);
        } else if (!types::ParseInt64(ctx.argv[2], &index)) {
          reply.Error(kNotIntegerError);
        } else if (std::optional<uint64_t> pos = Position(index, meta->size);
                   !pos) {
          reply.Error(kIndexOutOfRangeError);
        } else {
          SetElement(txn, name, *meta, *pos, ctx.argv[3]);
          reply.Ok();
        }
        return absl::OkStatus();
      });
}

void LRange(CommandContext& ctx) {
  int64_t start = 0, end = 0;
  if (!types::ParseInt64(ctx.argv[2], &start) ||
      !types::ParseInt64(ctx.argv[3], &end)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kList, [&](Reply& reply) { reply.Array(0); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        const Span span = RangeOf(start, end, meta.size);
        absl::StatusOr<std::vector<std::string>> values =
            ReadElements(txn, name, meta, span.first, span.count, false);
        if (!values.ok()) return values.status();
        reply.Array(values->size());
        for (const std::string& v : *values) reply.Bulk(v);
        return absl::OkStatus();
      });
}

// ---- LPOS ----

// A COUNT or MAXLEN value: Redis's getPositiveLongFromObjectOrReply, whose
// one message covers both a bad number and a negative one.
bool ParseNonNegative(const std::string& arg, int64_t* out) {
  return types::ParseInt64(arg, out) && *out >= 0;
}

// The options after key and element; false once it has replied an error.
bool ParsePosOptionsOrReply(CommandContext& ctx,
                            types::list::PosOptions* opts) {
  const std::vector<std::string>& argv = ctx.argv;
  for (size_t j = 3; j < argv.size(); ++j) {
    const bool more = j + 1 < argv.size();
    if (IsWord(argv[j], "rank") && more) {
      if (!types::ParseInt64(argv[++j], &opts->rank)) {
        ctx.reply.Error(kNotIntegerError);
        return false;
      }
      if (opts->rank == 0) {
        ctx.reply.Error(
            "RANK can't be zero: use 1 to start from the first match, 2 from "
            "the second ... or use negative to start from the end of the "
            "list");
        return false;
      }
    } else if (IsWord(argv[j], "count") && more) {
      opts->has_count = true;
      if (!ParseNonNegative(argv[++j], &opts->count)) {
        ctx.reply.Error("COUNT can't be negative");
        return false;
      }
    } else if (IsWord(argv[j], "maxlen") && more) {
      if (!ParseNonNegative(argv[++j], &opts->maxlen)) {
        ctx.reply.Error("MAXLEN can't be negative");
        return false;
      }
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
void LPos(CommandContext& ctx) {
  types::list::PosOptions opts;
  if (!ParsePosOptionsOrReply(ctx, &opts)) return;
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kList, /*create=*/false,
           [&](TypedTxn& txn, std::optional<TypedMeta>& meta,
               Reply& reply) -> absl::Status {
             std::vector<uint64_t> found;
             if (meta) {
               absl::StatusOr<std::vector<uint64_t>> matches =
                   types::list::Matches(txn, name, *meta, ctx.argv[2], opts);
               if (!matches.ok()) return matches.status();
               found = *std::move(matches);
             }
             if (opts.has_count) {
               reply.Array(found.size());
               for (uint64_t pos : found)
                 reply.Integer(static_cast<int64_t>(pos));
             } else if (found.empty()) {
               reply.Null();
             } else {
               reply.Integer(static_cast<int64_t>(found[0]));
             }
             return absl::OkStatus();
           });
}

// ---- Removal ----

// LREM key count element: count > 0 removes the first count matches from
// the head, < 0 from the tail, 0 all of them.
void LRem(CommandContext& ctx) {
  int64_t count = 0;
  if (!types::ParseInt64(ctx.argv[2], &count)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kList, [&](Reply& reply) { reply.Integer(0); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        absl::StatusOr<std::vector<std::string>> was = ReadAll(txn, name, meta);
        if (!was.ok()) return was.status();
        const std::vector<std::string> now =
            types::list::WithoutMatches(*was, ctx.argv[3], count);
        const uint64_t removed = was->size() - now.size();
        if (removed > 0) {
          RewriteList(txn, name, meta, *was, now);
          txn.SetMeta(name, meta);
        }
        reply.Integer(static_cast<int64_t>(removed));
        return absl::OkStatus();
      });
}

void LTrim(CommandContext& ctx) {
  int64_t start = 0, end = 0;
  if (!types::ParseInt64(ctx.argv[2], &start) ||
      !types::ParseInt64(ctx.argv[3], &end)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kList, /*create=*/false,
           [&](TypedTxn& txn, std::optional<TypedMeta>& found,
               Reply& reply) -> absl::Status {
             if (found) {
               TypedMeta& meta = *found;
               const types::list::Ends drop = types::list::TrimmedEnds(
                   RangeOf(start, end, meta.size), meta.size);
               if (drop.left + drop.right > 0) {
                 RemoveEnds(txn, name, meta, drop.left, drop.right);
                 txn.SetMeta(name, meta);
               }
             }
             reply.Ok();
             return absl::OkStatus();
           });
}

// ---- Moves ----

// Pops from `src` (whose list is `src_meta`, not empty) at `from` and
// pushes the element onto `dst` at `to`, or replies WRONGTYPE if `dst`
// holds another type. Sets *moved when it moved one.
absl::Status MoveFrom(TypedTxn& txn, Reply& reply, const std::string& src,
                      TypedMeta src_meta, const std::string& dst, End from,
                      End to, bool* moved) {
  std::optional<TypedMeta> dst_meta;
  if (dst != src) {
    absl::StatusOr<types::TypedKey> key =
        types::LookupOrCreate(txn, dst, ValueType::kList);
    if (!key.ok()) return key.status();
    if (key->wrong_type) {
      reply.Error(kWrongTypeError);
      return absl::OkStatus();
    }
    dst_meta = key->meta;
  }
  absl::StatusOr<std::string> value = PopElement(txn, src, src_meta, from);
  if (!value.ok()) return value.status();
  // The same list rotates: its one meta takes the pop and the push.
  TypedMeta& into = dst_meta ? *dst_meta : src_meta;
  PushElement(txn, dst, into, *value, to);
  txn.SetMeta(src, src_meta);
  if (dst_meta) txn.SetMeta(dst, *dst_meta);
  reply.Bulk(*value);
  *moved = true;
  return absl::OkStatus();
}

// LMOVE and RPOPLPUSH: source destination.
void MoveGeneric(CommandContext& ctx, End from, End to) {
  const std::string src = ctx.Name(ctx.argv[1]);
  const std::string dst = ctx.Name(ctx.argv[2]);
  bool moved = false;
  RunTyped(ctx, {src, dst}, [&](TypedTxn& txn, Reply& reply) {
    absl::StatusOr<types::TypedKey> key =
        types::LookupTyped(txn, src, ValueType::kList);
    if (!key.ok()) return key.status();
    if (key->wrong_type) {
      reply.Error(kWrongTypeError);
      return absl::OkStatus();
    }
    if (!key->meta) {
      reply.Null();
      return absl::OkStatus();
    }
    return MoveFrom(txn, reply, src, *key->meta, dst, from, to, &moved);
  });
  if (moved) WakePoppers(ctx, dst);
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT.
void LMove(CommandContext& ctx) {
  End from, to;
  if (!ParseEnd(ctx.argv[3], &from) || !ParseEnd(ctx.argv[4], &to)) {
    return ctx.reply.Error(kSyntaxError);
  }
  MoveGeneric(ctx, from, to);
}

void RPopLPush(CommandContext& ctx) {
  MoveGeneric(ctx, End::kRight, End::kLeft);
}

// ---- Blocking ----

// One try of a blocking list command over `names` (every key it
// touches), in one transaction: replies when done, nothing when it found
// nothing to pop.
using ListTry = std::function<absl::Status(
    TypedTxn& txn, Reply& reply, bool first, const PopWaiters::Ticket& ticket)>;

BlockingTry InOneTransaction(CommandContext& ctx,
                             std::vector<std::string> names, ListTry attempt) {
  return [&ctx, names = std::move(names), attempt = std::move(attempt)](
             Reply& reply, bool first, const PopWaiters::Ticket& ticket) {
    std::string out;
    Reply scratch(&out, reply.protocol());
    absl::Status s = ctx.store().UpdateTyped(
        names, NowMs(),
        [&](TypedTxn& txn) { return attempt(txn, scratch, first, ticket); });
    if (!ctx.Check(s)) return true;
    reply.Encoded(out);
    return !out.empty();
  };
}

// BLPOP and BRPOP: key [key ...] timeout.
void BlockingPop(CommandContext& ctx, End end) {
  const std::optional<absl::Time> deadline =
      ParseDeadlineOrReply(ctx, ctx.argv.back());
  if (!deadline) return;
  std::vector<std::string> names;
  for (size_t j = 1; j + 1 < ctx.argv.size(); ++j) {
    names.push_back(ctx.Name(ctx.argv[j]));
  }
  ListTry pop = [&](TypedTxn& txn, Reply& reply, bool first,
                    const PopWaiters::Ticket& ticket) -> absl::Status {
    for (size_t j = 0; j < names.size(); ++j) {
      absl::StatusOr<types::TypedKey> key =
          types::LookupTyped(txn, names[j], ValueType::kList);
      if (!key.ok()) return key.status();
      if (key->wrong_type && first) {
        reply.Error(kWrongTypeError);
        return absl::OkStatus();
      }
      if (!key->meta || !ticket.First(names[j])) continue;
      TypedMeta& meta = *key->meta;
      absl::StatusOr<std::string> value = PopElement(txn, names[j], meta, end);
      if (!value.ok()) return value.status();
      txn.SetMeta(names[j], meta);
      reply.Array(2);
      reply.Bulk(ctx.argv[j + 1]);
      reply.Bulk(*value);
      return absl::OkStatus();
    }
    return absl::OkStatus();
  };
  BlockUntilServed(ctx, PopWaiters::Kind::kList, names, *deadline,
                   InOneTransaction(ctx, names, pop));
}

void BLPop(CommandContext& ctx) { BlockingPop(ctx, End::kLeft); }
void BRPop(CommandContext& ctx) { BlockingPop(ctx, End::kRight); }

// BLMOVE and BRPOPLPUSH, once their arguments are read.
void BlockingMove(CommandContext& ctx, End from, End to, absl::Time deadline) {
  const std::string src = ctx.Name(ctx.argv[1]);
  const std::string dst = ctx.Name(ctx.argv[2]);
  bool moved = false;
  ListTry move = [&](TypedTxn& txn, Reply& reply, bool first,
                     const PopWaiters::Ticket& ticket) -> absl::Status {
    absl::StatusOr<types::TypedKey> key =
        types::LookupTyped(txn, src, ValueType::kList);
    if (!key.ok()) return key.status();
    if (key->wrong_type && first) {
      reply.Error(kWrongTypeError);
      return absl::OkStatus();
    }
    if (!key->meta || !ticket.First(src)) return absl::OkStatus();
    return MoveFrom(txn, reply, src, *key->meta, dst, from, to, &moved);
  };
  BlockUntilServed(ctx, PopWaiters::Kind::kList, {src}, deadline,
                   InOneTransaction(ctx, {src, dst}, move));
  if (moved) WakePoppers(ctx, dst);
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout.
void BLMove(CommandContext& ctx) {
  End from, to;
  if (!ParseEnd(ctx.argv[3], &from) || !ParseEnd(ctx.argv[4], &to)) {
    return ctx.reply.Error(kSyntaxError);
  }
  const std::optional<absl::Time> deadline =
      ParseDeadlineOrReply(ctx, ctx.argv[5]);
  if (deadline) BlockingMove(ctx, from, to, *deadline);
}

// BRPOPLPUSH source destination timeout.
void BRPopLPush(CommandContext& ctx) {
  const std::optional<absl::Time> deadline =
      ParseDeadlineOrReply(ctx, ctx.argv[3]);
  if (deadline) BlockingMove(ctx, End::kRight, End::kLeft, *deadline);
}

// ---- LMPOP, BLMPOP ----

// LMPOP's pop over its keys (`names`: the storage names of argv's keys
// from args.first_key), in one transaction: from the first that holds a
// list (and where `ticket`, if any, is first in line), replying [key,
// [elements]]; WRONGTYPE for a key of another type before it, on a `first`
// try only. False when it found nothing to pop and replied nothing.
absl::StatusOr<bool> MpopOnce(CommandContext& ctx, const MpopArgs& args,
                              const std::vector<std::string>& names, End end,
                              TypedTxn& txn, Reply& reply, bool first,
                              const PopWaiters::Ticket* ticket) {
  for (size_t j = 0; j < names.size(); ++j) {
    absl::StatusOr<types::TypedKey> key =
        types::LookupTyped(txn, names[j], ValueType::kList);
    if (!key.ok()) return key.status();
    if (key->wrong_type && first) {
      reply.Error(kWrongTypeError);
      return true;
    }
    if (!key->meta || (ticket && !ticket->First(names[j]))) continue;
    absl::StatusOr<std::vector<std::string>> values =
        PopCounted(txn, names[j], *key->meta, end, args.count);
    if (!values.ok()) return values.status();
    reply.Array(2);
    reply.Bulk(ctx.argv[args.first_key + j]);
    reply.Array(values->size());
    for (const std::string& v : *values) reply.Bulk(v);
    return true;
  }
  return false;
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count], and with
// `blocking` BLMPOP timeout numkeys ... (its timeout read after the rest,
// as Redis reads it).
void MpopGeneric(CommandContext& ctx, bool blocking) {
  MpopArgs args;
  End end = End::kLeft;
  auto is_end = [&](const std::string& arg) { return ParseEnd(arg, &end); };
  if (!ParseMpopArgsOrReply(ctx, blocking ? 2 : 1, is_end, &args)) return;
  std::optional<absl::Time> deadline = absl::InfinitePast();
  if (blocking) deadline = ParseDeadlineOrReply(ctx, ctx.argv[1]);
  if (!deadline) return;
  std::vector<std::string> names;
  for (size_t j = 0; j < args.keys; ++j) {
    names.push_back(ctx.Name(ctx.argv[args.first_key + j]));
  }
  if (!blocking) {
    return RunTyped(ctx, names, [&](TypedTxn& txn, Reply& reply) {
      absl::StatusOr<bool> replied =
          MpopOnce(ctx, args, names, end, txn, reply, true, nullptr);
      if (!replied.ok()) return replied.status();
      if (!*replied) reply.NullArray();
      return absl::OkStatus();
    });
  }
  ListTry pop = [&](TypedTxn& txn, Reply& reply, bool first,
                    const PopWaiters::Ticket& ticket) {
    return MpopOnce(ctx, args, names, end, txn, reply, first, &ticket).status();
  };
  BlockUntilServed(ctx, PopWaiters::Kind::kList, names, *deadline,
                   InOneTransaction(ctx, names, pop));
}

void LMPop(CommandContext& ctx) { MpopGeneric(ctx, false); }
void BLMPop(CommandContext& ctx) { MpopGeneric(ctx, true); }

// ---- Where they run ----

// LRANGE of a range known small from its arguments alone: both ends on
// one side of the list, close together.
bool SmallRange(const std::vector<std::string>& argv) {
  int64_t start = 0, end = 0;
  if (argv.size() != 4 || !types::ParseInt64(argv[2], &start) ||
      !types::ParseInt64(argv[3], &end)) {
    return false;
  }
  return (start < 0) == (end < 0) && end - start < kLoopMembers;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(list, table) {
  table->Add("lpush", -3, LPush, {"write", "denyoom", "fast"});
  table->Add("rpush", -3, RPush, {"write", "denyoom", "fast"});
  table->Add("lpushx", -3, LPushX, {"write", "denyoom", "fast"});
  table->Add("rpushx", -3, RPushX, {"write", "denyoom", "fast"});
  table->Add("lpop", -2, LPop, {"write", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("rpop", -2, RPop, {"write", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("llen", 2, LLen, {"readonly", "fast"});
  table->Add("lindex", 3, LIndex, {"readonly"});
  table->Add("lset", 4, LSet, {"write", "denyoom"});
  table->Add("lrange", 4, LRange, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("ltrim", 4, LTrim, {"write"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("lrem", 4, LRem, {"write"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("linsert", 5, LInsert, {"write", "denyoom"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("lpos", -3, LPos, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("lmove", 5, LMove, {"write", "denyoom"}, 1, 2, 1);
  table->Add("rpoplpush", 3, RPopLPush, {"write", "denyoom"}, 1, 2, 1);
  // A try of BLPOP, BRPOP, BLMOVE or BRPOPLPUSH pops one element, as LPOP
  // does on the loop; a wait holds no thread (blocking_pop.h).
  table->Add("blpop", -3, BLPop, {"write", "noscript", "blocking"}, 1, -2, 1);
  table->Add("brpop", -3, BRPop, {"write", "noscript", "blocking"}, 1, -2, 1);
  table->Add("lmpop", -4, LMPop, {"write", "movablekeys"}, 0, 0, 0,
             RunsOn::kWorker);
  table->Add("blmpop", -5, BLMPop, {"write", "blocking", "movablekeys"}, 0, 0,
             0, RunsOn::kWorker);
  table->Add("blmove", 6, BLMove, {"write", "denyoom", "noscript", "blocking"},
             1, 2, 1);
  table->Add("brpoplpush", 4, BRPopLPush,
             {"write", "denyoom", "noscript", "blocking"}, 1, 2, 1);
  table->RunOnLoopWhen("lrange", SmallRange);
  table->RunOnLoopWhen("lpop", SmallPopCount);
  table->RunOnLoopWhen("rpop", SmallPopCount);
  AddTypedGroup(table, {"lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop",
                        "llen", "lindex", "lset", "lrange"});
}

}  // namespace trackdb::resp
