// Key commands: DEL, UNLINK, EXISTS, TOUCH, TYPE, KEYS, SCAN, RANDOMKEY,
// RENAME, RENAMENX, EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL,
// EXPIRETIME, PEXPIRETIME, PERSIST.
//
// Each follows Redis 7.0's db.c / expire.c checks in Redis's order, so that
// replies, errors included, are Redis's bytes. Keys are strings (with an
// optional expiry), hashes, lists, sets and sorted sets (typed values,
// with an optional expiry) or GEO keys (collections, reported as "zset",
// with an optional expiry: storage/collections/collection_expiry.h). Where trackdb
// differs from Redis, it is on GEO keys and said in the README:
//   - RENAME of a GEO key copies the collection with all its history in
//     one batch (storage's CopyName): as slow as the data is large, and
//     refused past storage.max_atomic_copy_mb.
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "model/glob.h"
#include "model/clock.h"
#include "service/resp/commands/string_update.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/key_scan.h"
#include "types/key_type.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

std::vector<std::string> NamesOf(CommandContext& ctx, size_t first) {
  std::vector<std::string> names;
  for (size_t i = first; i < ctx.argv.size(); ++i) {
    names.push_back(ctx.Name(ctx.argv[i]));
  }
  return names;
}

// ---- DEL, UNLINK, EXISTS, TOUCH, TYPE ----

// Deletes every named key (a repeated key counts once), strings and
// collections, in one batch. A name can hold both after a SET raced a
// GEOADD (README): both go, and the key counts once.
void Del(CommandContext& ctx) {
  absl::StatusOr<std::vector<storage::TrackStore::NameContents>> removed =
      ctx.store().DeleteNames(NamesOf(ctx, 1), NowMs());
  if (!ctx.Check(removed.status())) return;
  int64_t deleted = 0;
  for (const storage::TrackStore::NameContents& c : *removed) {
    if (c.exists()) ++deleted;
  }
  ctx.reply.Integer(deleted);
}

// How many of the arguments exist, a repeated key counting each time.
void Exists(CommandContext& ctx) {
  const std::vector<std::string> names = NamesOf(ctx, 1);
  auto values = ctx.store().GetStrings(names, NowMs());
  if (!ctx.Check(values.status())) return;
  absl::flat_hash_map<std::string, bool> other_of;
  int64_t count = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if ((*values)[i]) {
      ++count;
      continue;
    }
    auto it = other_of.find(names[i]);
    if (it == other_of.end()) {
      absl::StatusOr<bool> other =
          types::HoldsNonString(ctx.store(), names[i], NowMs());
      if (!ctx.Check(other.status())) return;
      it = other_of.emplace(names[i], *other).first;
    }
    if (it->second) ++count;
  }
  ctx.reply.Integer(count);
}

void Type(CommandContext& ctx) {
  absl::StatusOr<types::KeyType> t =
      types::TypeOf(ctx.store(), ctx.Name(ctx.argv[1]), NowMs());
  if (!ctx.Check(t.status())) return;
  ctx.reply.Status(types::TypeName(*t));
}

// ---- KEYS, SCAN ----

void Keys(CommandContext& ctx) {
  const std::string& pattern = ctx.argv[1];
  const bool all = pattern == "*";
  std::vector<std::string> keys;
  bool done = false;
  absl::Status s = types::ScanKeys(
      ctx.store(), ctx.client.db, NowMs(), {},
      [&](const std::string& key, types::KeyType) {
        if (all || model::GlobMatch(pattern, key)) keys.push_back(key);
        return true;
      },
      nullptr, &done);
  if (!ctx.Check(s)) return;
  ctx.reply.Array(keys.size());
  for (const std::string& k : keys) ctx.reply.Bulk(k);
}

// A SCAN position kept under a cursor number: 's', 't' or 'g' (which part
// of the walk, types/key_scan.h) and the storage name to resume at.
std::string EncodePosition(const types::KeyScanPosition& p) {
  return absl::StrCat(std::string(1, static_cast<char>(p.part)), p.resume_name);
}

// The position saved under `cursor` if it belongs to database `db`; a
// cursor this server does not know (never issued, evicted, or from before a
// restart) starts a new walk, which SCAN's guarantees allow.
types::KeyScanPosition DecodePosition(const std::string& saved, int db) {
  if (saved.empty()) return {};
  const char part = saved[0];
  if (part != 's' && part != 't' && part != 'g') return {};
  types::KeyScanPosition p{static_cast<types::KeyScanPosition::Part>(part),
                           saved.substr(1)};
  std::optional<types::DbKey> k = types::ParseKeyName(p.resume_name);
  if (!k || k->db != db) return {};
  return p;
}

types::KeyScanPosition LoadPosition(ServerState& server, uint64_t cursor,
                                    int db) {
  if (cursor == 0 || cursor > static_cast<uint64_t>(INT64_MAX)) return {};
  std::optional<std::string> saved =
      server.LoadCursor(static_cast<int64_t>(cursor));
  return saved ? DecodePosition(*saved, db) : types::KeyScanPosition{};
}

// SCAN's options after the cursor.
struct ScanOptions {
  int64_t count = 10;
  const std::string* pattern = nullptr;  // MATCH
  const std::string* type = nullptr;     // TYPE
};

// Reads COUNT, MATCH and TYPE from argv[2] on, as Redis's scanGenericCommand
// does; false once it has replied an error.
bool ParseScanOptionsOrReply(CommandContext& ctx, ScanOptions* opts) {
  const auto& argv = ctx.argv;
  for (size_t i = 2; i < argv.size(); i += 2) {
    const bool has_value = argv.size() - i >= 2;
    if (IsWord(argv[i], "count") && has_value) {
      if (!types::ParseInt64(argv[i + 1], &opts->count)) {
        ctx.reply.Error(kNotIntegerError);
        return false;
      }
      if (opts->count < 1) {
        ctx.reply.Error(kSyntaxError);
        return false;
      }
    } else if (IsWord(argv[i], "match") && has_value) {
      opts->pattern = &argv[i + 1];
    } else if (IsWord(argv[i], "type") && has_value) {
      opts->type = &argv[i + 1];
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

void Scan(CommandContext& ctx) {
  uint64_t cursor = 0;
  if (!types::ParseScanCursor(ctx.argv[1], &cursor)) {
    return ctx.reply.Error("invalid cursor");
  }
  ScanOptions opts;
  if (!ParseScanOptionsOrReply(ctx, &opts)) return;
  const std::string* pattern = opts.pattern;
  const std::string* type = opts.type;
  const int64_t count = opts.count;
  const bool use_pattern = pattern != nullptr && *pattern != "*";

  const types::KeyScanPosition from =
      LoadPosition(ctx.server, cursor, ctx.client.db);
  std::vector<std::string> keys;
  int64_t examined = 0;
  types::KeyScanPosition next;
  bool done = false;
  absl::Status s = types::ScanKeys(
      ctx.store(), ctx.client.db, NowMs(), from,
      [&](const std::string& key, types::KeyType t) {
        ++examined;
        if ((!use_pattern || model::GlobMatch(*pattern, key)) &&
            (type == nullptr || IsWord(*type, types::TypeName(t)))) {
          keys.push_back(key);
        }
        return examined < count;
      },
      &next, &done);
  if (!ctx.Check(s)) return;
  const int64_t next_cursor =
      done ? 0 : ctx.server.SaveCursor(EncodePosition(next));
  ctx.reply.Array(2);
  ctx.reply.Bulk(absl::StrCat(next_cursor));
  ctx.reply.Array(keys.size());
  for (const std::string& k : keys) ctx.reply.Bulk(k);
}

// ---- RANDOMKEY ----
// trackdb keeps keys in name order, with no count to draw an index from.
// So, as Kvrocks does, each call walks the next window of the database's
// keys (SCAN's walk, key_scan.h, from where the last call stopped) and
// answers one of them at random; the walk starts over at the end. Over a
// whole walk every key is as likely to come out, but consecutive calls
// answer neighbouring keys. A database with no key answers nil.

constexpr int kRandomKeyWindow = 64;

// Up to kRandomKeyWindow keys of `db` from `from`; `*next` is where the
// following window starts, the start once the walk is done.
absl::Status RandomKeyWindow(CommandContext& ctx,
                             const types::KeyScanPosition& from,
                             std::vector<std::string>* keys,
                             types::KeyScanPosition* next) {
  bool done = false;
  absl::Status s = types::ScanKeys(
      ctx.store(), ctx.client.db, NowMs(), from,
      [&](const std::string& key, types::KeyType) {
        keys->push_back(key);
        return keys->size() < kRandomKeyWindow;
      },
      next, &done);
  if (done) *next = {};
  return s;
}

void RandomKey(CommandContext& ctx) {
  const int db = ctx.client.db;
  const types::KeyScanPosition from =
      DecodePosition(ctx.server.RandomKeyPosition(db), db);
  std::vector<std::string> keys;
  types::KeyScanPosition next;
  if (!ctx.Check(RandomKeyWindow(ctx, from, &keys, &next))) return;
  const bool from_start = from.part == types::KeyScanPosition::Part::kStrings &&
                          from.resume_name.empty();
  if (keys.empty() && !from_start) {
    if (!ctx.Check(RandomKeyWindow(ctx, {}, &keys, &next))) return;
  }
  const bool at_start = next.part == types::KeyScanPosition::Part::kStrings &&
                        next.resume_name.empty();
  ctx.server.SetRandomKeyPosition(db, at_start ? "" : EncodePosition(next));
  if (keys.empty()) return ctx.reply.Null();
  std::uniform_int_distribution<size_t> pick(0, keys.size() - 1);
  ctx.reply.Bulk(keys[pick(PickRandom())]);
}

// ---- RENAME, RENAMENX, COPY, MOVE ----
// Each is one storage CopyName: the key's string (with its expiry) or its
// collection (with all history) lands whole at the destination, with
// whatever the destination held removed, in one batch.

// Redis's renameGenericCommand.
void RenameGeneric(CommandContext& ctx, bool nx) {
  const std::string src = ctx.Name(ctx.argv[1]);
  const std::string dst = ctx.Name(ctx.argv[2]);
  if (src == dst) {
    absl::StatusOr<types::KeyType> type =
        types::TypeOf(ctx.store(), src, NowMs());
    if (!ctx.Check(type.status())) return;
    if (*type == types::KeyType::kNone) return ctx.reply.Error("no such key");
    return nx ? ctx.reply.Integer(0) : ctx.reply.Ok();
  }
  storage::TrackStore::CopyNameOptions options;
  options.remove_source = true;
  options.replace = !nx;
  absl::StatusOr<storage::TrackStore::CopyNameResult> result =
      ctx.store().CopyName(src, dst, NowMs(), options);
  if (!ctx.Check(result.status())) return;
  switch (*result) {
    case storage::TrackStore::CopyNameResult::kNoSource:
      return ctx.reply.Error("no such key");
    case storage::TrackStore::CopyNameResult::kDestinationExists:
      return ctx.reply.Integer(0);
    case storage::TrackStore::CopyNameResult::kCopied:
      return nx ? ctx.reply.Integer(1) : ctx.reply.Ok();
  }
}

void Rename(CommandContext& ctx) { RenameGeneric(ctx, false); }
void Renamenx(CommandContext& ctx) { RenameGeneric(ctx, true); }

// A database index argument, as Redis's getIntFromObjectOrReply and
// selectDb check it; nullopt after replying an error.
std::optional<int> ParseDbOrReply(CommandContext& ctx, const std::string& arg) {
  int64_t db = 0;
  if (!types::ParseInt64(arg, &db)) {
    ctx.reply.Error(kNotIntegerError);
    return std::nullopt;
  }
  if (db < INT_MIN || db > INT_MAX) {
    ctx.reply.Error(
        "value is out of range, value must between -2147483648 and "
        "2147483647");
    return std::nullopt;
  }
  if (db < 0 || db >= types::kDatabases) {
    ctx.reply.Error("DB index is out of range");
    return std::nullopt;
  }
  return static_cast<int>(db);
}

// Copies (COPY) or moves (MOVE) `key` to `dst_key` in database `dst_db`:
// 1 if done, 0 if there is no source or the destination exists.
void CopyOrMove(CommandContext& ctx, const std::string& key, int dst_db,
                const std::string& dst_key, bool move, bool replace) {
  storage::TrackStore::CopyNameOptions options;
  options.remove_source = move;
  options.replace = replace;
  absl::StatusOr<storage::TrackStore::CopyNameResult> result =
      ctx.store().CopyName(ctx.Name(key), types::KeyName(dst_db, dst_key),
                           NowMs(), options);
  if (!ctx.Check(result.status())) return;
  ctx.reply.Integer(
      *result == storage::TrackStore::CopyNameResult::kCopied ? 1 : 0);
}

// Redis's copyCommand: COPY source destination [DB index] [REPLACE].
void Copy(CommandContext& ctx) {
  int dst_db = ctx.client.db;
  bool replace = false;
  for (size_t j = 3; j < ctx.argv.size(); ++j) {
    const bool has_value = j + 1 < ctx.argv.size();
    if (IsWord(ctx.argv[j], "replace")) {
      replace = true;
    } else if (IsWord(ctx.argv[j], "db") && has_value) {
      std::optional<int> db = ParseDbOrReply(ctx, ctx.argv[++j]);
      if (!db) return;
      dst_db = *db;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  if (ctx.server.cluster() != nullptr && dst_db != 0) {
    return ctx.reply.Error(
        "Copying to another database is not allowed in cluster mode");
  }
  if (dst_db == ctx.client.db && ctx.argv[1] == ctx.argv[2]) {
    return ctx.reply.Error(kSameObjectError);
  }
  CopyOrMove(ctx, ctx.argv[1], dst_db, ctx.argv[2], /*move=*/false, replace);
}

// Redis's moveCommand: MOVE key db.
void Move(CommandContext& ctx) {
  if (ctx.server.cluster() != nullptr) {
    return ctx.reply.Error("MOVE is not allowed in cluster mode");
  }
  std::optional<int> db = ParseDbOrReply(ctx, ctx.argv[2]);
  if (!db) return;
  if (*db == ctx.client.db) return ctx.reply.Error(kSameObjectError);
  CopyOrMove(ctx, ctx.argv[1], *db, ctx.argv[1], /*move=*/true,
             /*replace=*/false);
}

// ---- EXPIRE family, TTL family, PERSIST ----

enum : int { kExpireNx = 1, kExpireXx = 2, kExpireGt = 4, kExpireLt = 8 };

// Redis's parseExtendedExpireArgumentsOrReply.
bool ParseExpireFlags(CommandContext& ctx, int* flags) {
  for (size_t j = 3; j < ctx.argv.size(); ++j) {
    const std::string& opt = ctx.argv[j];
    if (IsWord(opt, "nx")) {
      *flags |= kExpireNx;
    } else if (IsWord(opt, "xx")) {
      *flags |= kExpireXx;
    } else if (IsWord(opt, "gt")) {
      *flags |= kExpireGt;
    } else if (IsWord(opt, "lt")) {
      *flags |= kExpireLt;
    } else {
      ctx.reply.Error(absl::StrCat("Unsupported option ", CWord(opt)));
      return false;
    }
  }
  if ((*flags & kExpireNx) && (*flags & (kExpireXx | kExpireGt | kExpireLt))) {
    ctx.reply.Error(
        "NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if ((*flags & kExpireGt) && (*flags & kExpireLt)) {
    ctx.reply.Error("GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

// Whether NX/XX/GT/LT let an expiry `when` replace `current` (-1: none).
bool ExpireConditionHolds(int flags, int64_t current, int64_t when) {
  if ((flags & kExpireNx) && current != -1) return false;
  if ((flags & kExpireXx) && current == -1) return false;
  if ((flags & kExpireGt) && (current == -1 || when <= current)) return false;
  if ((flags & kExpireLt) && current != -1 && when >= current) return false;
  return true;
}

void ExpireNonString(CommandContext& ctx, const std::string& name, int flags,
                     int64_t when, absl::string_view command);

// Redis's expireGenericCommand: `basetime` is now for EXPIRE/PEXPIRE and 0
// for the AT forms. A time already past deletes the key.
void ExpireGeneric(CommandContext& ctx, bool relative, bool seconds,
                   absl::string_view command) {
  int flags = 0;
  if (!ParseExpireFlags(ctx, &flags)) return;
  int64_t when = 0;
  if (!types::ParseInt64(ctx.argv[2], &when)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  const int64_t now = NowMs();
  const int64_t basetime = relative ? now : 0;
  if (seconds) {
    if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) {
      return ReplyInvalidExpire(ctx, command);
    }
    when *= 1000;
  }
  if (when > LLONG_MAX - basetime) return ReplyInvalidExpire(ctx, command);
  when += basetime;

  const std::string name = ctx.Name(ctx.argv[1]);
  bool absent = false;
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, {name}, now, [&](StringSlots& values) -> absl::StatusOr<bool> {
        std::optional<StringValue>& cur = values[0];
        if (!cur) {
          absent = true;
          return false;
        }
        const int64_t current = cur->expire_at_ms == 0 ? -1 : cur->expire_at_ms;
        if (!ExpireConditionHolds(flags, current, when)) {
          answer.Integer(0);
          return false;
        }
        if (when <= now) {
          cur.reset();
        } else {
          cur->expire_at_ms = when;
        }
        answer.Integer(1);
        return true;
      });
  if (!ran) return;
  if (absent) return ExpireNonString(ctx, name, flags, when, command);
  answer.Send(ctx.reply);
}

// EXPIRE and its forms on a key that holds no string: a typed value's
// expiry is its meta's, a GEO key's its collection's
// (storage/collections/collection_expiry.h); a time already past removes the key, in
// O(1) for a typed value.
void ExpireNonString(CommandContext& ctx, const std::string& name, int flags,
                     int64_t when, absl::string_view command) {
  bool geo = false;
  RunTyped(ctx, {name}, [&](storage::TypedTxn& txn, Reply& reply) {
    absl::StatusOr<std::optional<storage::TypedMeta>> meta = txn.Meta(name);
    if (!meta.ok()) return meta.status();
    if (!*meta) {
      absl::StatusOr<bool> other = txn.HoldsStringOrCollection(name);
      if (!other.ok()) return other.status();
      geo = *other;
      if (!geo) reply.Integer(0);
      return absl::OkStatus();
    }
    storage::TypedMeta& m = **meta;
    const int64_t current = m.expire_at_ms == 0 ? -1 : m.expire_at_ms;
    if (!ExpireConditionHolds(flags, current, when)) {
      reply.Integer(0);
      return absl::OkStatus();
    }
    if (when <= txn.now_ms()) {
      txn.DeleteMeta(name);
    } else {
      m.expire_at_ms = when;
      txn.SetMeta(name, m);
    }
    reply.Integer(1);
    return absl::OkStatus();
  });
  if (!geo) return;
  // The condition is checked where the expiry changes, under the GEO key's
  // lock; a time already past deletes the key, as Redis does.
  absl::StatusOr<bool> set = ctx.store().SetCollectionExpiryIf(
      name, when, NowMs(), [&](int64_t current) {
        return ExpireConditionHolds(flags, current == 0 ? -1 : current, when);
      });
  if (!ctx.Check(set.status())) return;
  ctx.reply.Integer(*set ? 1 : 0);
}

void Expire(CommandContext& ctx) { ExpireGeneric(ctx, true, true, "expire"); }
void Pexpire(CommandContext& ctx) {
  ExpireGeneric(ctx, true, false, "pexpire");
}
void Expireat(CommandContext& ctx) {
  ExpireGeneric(ctx, false, true, "expireat");
}
void Pexpireat(CommandContext& ctx) {
  ExpireGeneric(ctx, false, false, "pexpireat");
}

// TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 for no key, -1 for no expiry.
void TtlGeneric(CommandContext& ctx, bool ms, bool absolute) {
  const std::string name = ctx.Name(ctx.argv[1]);
  const int64_t now = NowMs();
  auto v = ctx.store().GetString(name, now);
  if (!ctx.Check(v.status())) return;
  int64_t at = 0;
  if (*v) {
    at = (*v)->expire_at_ms;
  } else {
    auto typed = ctx.store().GetTypedMeta(name, now);
    if (!ctx.Check(typed.status())) return;
    if (!*typed) {
      absl::StatusOr<bool> geo = types::IsGeoKey(ctx.store(), name);
      if (!ctx.Check(geo.status())) return;
      if (!*geo) return ctx.reply.Integer(-2);
      at = ctx.store().CollectionExpiry(name);
    } else {
      at = (*typed)->expire_at_ms;
    }
  }
  if (at == 0) return ctx.reply.Integer(-1);
  if (absolute) {
    // Redis rounds to the nearest second; for expiries within 500 ms of
    // INT64_MAX its compiled code (knowing the time is not negative)
    // divides without overflow, as unsigned arithmetic does.
    const int64_t rounded =
        static_cast<int64_t>((static_cast<uint64_t>(at) + 500) / 1000);
    return ctx.reply.Integer(ms ? at : rounded);
  }
  const int64_t ttl = std::max<int64_t>(0, at - now);
  ctx.reply.Integer(ms ? ttl : (ttl + 500) / 1000);
}

void Ttl(CommandContext& ctx) { TtlGeneric(ctx, false, false); }
void Pttl(CommandContext& ctx) { TtlGeneric(ctx, true, false); }
void Expiretime(CommandContext& ctx) { TtlGeneric(ctx, false, true); }
void Pexpiretime(CommandContext& ctx) { TtlGeneric(ctx, true, true); }

void Persist(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  DeferredReply answer;
  bool absent = false;
  const bool ran = UpdateStringsFor(
      ctx, {name}, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        absent = !values[0];
        if (!values[0] || values[0]->expire_at_ms == 0) {
          answer.Integer(0);  // no string, or no expiry
          return false;
        }
        values[0]->expire_at_ms = 0;
        answer.Integer(1);
        return true;
      });
  if (!ran) return;
  if (!absent) return answer.Send(ctx.reply);
  // A typed value's expiry, else a GEO key's.
  bool geo = false;
  RunTyped(ctx, {name}, [&](storage::TypedTxn& txn, Reply& reply) {
    absl::StatusOr<std::optional<storage::TypedMeta>> meta = txn.Meta(name);
    if (!meta.ok()) return meta.status();
    if (!*meta) {
      geo = true;
      return absl::OkStatus();
    }
    if ((*meta)->expire_at_ms == 0) {
      reply.Integer(0);
      return absl::OkStatus();
    }
    (*meta)->expire_at_ms = 0;
    txn.SetMeta(name, **meta);
    reply.Integer(1);
    return absl::OkStatus();
  });
  if (!geo) return;
  if (ctx.store().CollectionExpiry(name) == 0) return ctx.reply.Integer(0);
  absl::StatusOr<bool> cleared = ctx.store().SetCollectionExpiry(name, 0);
  if (!ctx.Check(cleared.status())) return;
  ctx.reply.Integer(*cleared ? 1 : 0);
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(key, table) {
  table->Add("del", -2, Del, {"write"}, 1, -1, 1);
  table->Add("unlink", -2, Del, {"write", "fast"}, 1, -1, 1);
  table->Add("exists", -2, Exists, {"readonly", "fast"}, 1, -1, 1);
  table->Add("touch", -2, Exists, {"readonly", "fast"}, 1, -1, 1);
  table->Add("type", 2, Type, {"readonly", "fast"});
  table->Add("keys", 2, Keys, {"readonly"}, 0, 0, 0, RunsOn::kWorker);
  table->Add("scan", -2, Scan, {"readonly"}, 0, 0, 0, RunsOn::kWorker);
  table->Add("randomkey", 1, RandomKey, {"readonly"}, 0, 0, 0, RunsOn::kWorker);
  table->Add("rename", 3, Rename, {"write"}, 1, 2, 1, RunsOn::kWorker);
  table->Add("renamenx", 3, Renamenx, {"write", "fast"}, 1, 2, 1,
             RunsOn::kWorker);
  table->Add("copy", -3, Copy, {"write", "denyoom"}, 1, 2, 1, RunsOn::kWorker);
  table->Add("move", 3, Move, {"write", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("expire", -3, Expire, {"write", "fast"});
  table->Add("pexpire", -3, Pexpire, {"write", "fast"});
  table->Add("expireat", -3, Expireat, {"write", "fast"});
  table->Add("pexpireat", -3, Pexpireat, {"write", "fast"});
  table->Add("ttl", 2, Ttl, {"readonly", "fast"});
  table->Add("pttl", 2, Pttl, {"readonly", "fast"});
  table->Add("expiretime", 2, Expiretime, {"readonly", "fast"});
  table->Add("pexpiretime", 2, Pexpiretime, {"readonly", "fast"});
  table->Add("persist", 2, Persist, {"write", "fast"});
}

}  // namespace trackdb::resp
