// Hash commands: HSET, HMSET, HSETNX, HGET, HMGET, HDEL, HEXISTS, HLEN,
// HSTRLEN, HKEYS, HVALS, HGETALL, HINCRBY, HINCRBYFLOAT, HRANDFIELD, HSCAN.
//
// Each follows Redis 7.0's t_hash.c: the same checks in the same order, so
// that replies, errors included, are byte for byte Redis's. A hash is a
// typed value (storage/format/typed_values.h): one meta whose size is the number
// of fields, and one member per field (subkey: the field, value: the
// value). Every command runs as one transaction (RunTyped), so a command
// that writes is atomic.
//
// Order: fields come out in byte order of their names, where Redis gives
// its listpack's insertion order or its dict's order; Redis promises
// neither.
//
// Cost: trackdb has no index by rank, so picking a random field reads the
// hash up to it: HRANDFIELD is O(N), and runs on the worker pool with
// HKEYS, HVALS, HGETALL and HSCAN.
//
// HSCAN: a hash that Redis would keep in a listpack (object_encoding.h: up
// to 512 fields, none and no value over 64 bytes) is replied whole with
// cursor 0 whatever the cursor, as Redis does. Any other is paged: each
// call reads COUNT fields in byte order, and its cursor is a number the
// server keeps (ServerState's SaveCursor, as SCAN's) mapping to the key's
// storage name and the first field not yet replied. A cursor the server
// does not know (never issued, evicted, from another key or from before a
// restart) starts again from the first field, which SCAN's guarantees
// allow.
//
// On purpose unlike Redis: HRANDFIELD with a negative count (fields may
// repeat) refuses more than kMaxRepeatedPicks picks from a non-empty hash
// with "value is out of range", where Redis builds a reply of any size:
// the reply is built in memory before it is sent, and one command must not
// be able to exhaust the server's.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "model/glob.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/hash.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

// The hash at argv[1] as a body sees it: nullopt when missing (never, when
// the body may create it).
using HashBody =
    std::function<absl::Status(TypedTxn& txn, const std::string& name,
                               std::optional<TypedMeta> meta, Reply& reply)>;

// Runs `body` on argv[1]'s hash in one transaction, after Redis's type
// check: WRONGTYPE when the key holds anything else. With `create`, a
// missing hash comes as a new, empty one (stored once SetMeta gives it a
// size).
void RunOnHash(CommandContext& ctx, bool create, const HashBody& body) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kHash, create,
           [&](TypedTxn& txn, std::optional<TypedMeta>& meta, Reply& reply) {
             return body(txn, name, meta, reply);
           });
}

// Every field and value of a hash, in field order.
absl::Status ScanHash(
    TypedTxn& txn, const std::string& name, const TypedMeta& meta,
    const std::function<void(absl::string_view, absl::string_view)>& visit) {
  return txn.Scan(name, meta, "", "", /*reverse=*/false,
                  [&](absl::string_view field, absl::string_view value) {
                    visit(field, value);
                    return true;
                  });
}

// ---- Writes ----

// HSET and HMSET: any number of field-value pairs; a field given twice is
// one new field, set to its last value.
void HSetGeneric(CommandContext& ctx, bool hmset) {
  const auto& argv = ctx.argv;
  if (argv.size() % 2 == 1) {
    return ReplyArityError(ctx, hmset ? "hmset" : "hset");
  }
  RunOnHash(ctx, /*create=*/true,
            [&](TypedTxn& txn, const std::string& name,
                std::optional<TypedMeta> meta, Reply& reply) -> absl::Status {
              types::HashWriter hash(txn, name, *meta);
              int64_t created = 0;
              for (size_t i = 2; i < argv.size(); i += 2) {
                absl::StatusOr<bool> is_new = hash.Set(argv[i], argv[i + 1]);
                if (!is_new.ok()) return is_new.status();
                created += *is_new;
              }
              hash.Finish();
              hmset ? reply.Ok() : reply.Integer(created);
              return absl::OkStatus();
            });
}

void HSet(CommandContext& ctx) { HSetGeneric(ctx, /*hmset=*/false); }
void HMSet(CommandContext& ctx) { HSetGeneric(ctx, /*hmset=*/true); }

void HSetNx(CommandContext& ctx) {
  const std::string& field = ctx.argv[2];
  const std::string& value = ctx.argv[3];
  RunOnHash(ctx, /*create=*/true,
            [&](TypedTxn& txn, const std::string& name,
                std::optional<TypedMeta> meta, Reply& reply) -> absl::Status {
              types::HashWriter hash(txn, name, *meta);
              auto old = hash.Get(field);
              if (!old.ok()) return old.status();
              if (*old) {
                reply.Integer(0);
                return absl::OkStatus();
              }
              hash.Set(field, value, /*existed=*/false);
              hash.Finish();
              reply.Integer(1);
              return absl::OkStatus();
            });
}

void HDel(CommandContext& ctx) {
  const auto& argv = ctx.argv;
  RunOnHash(ctx, /*create=*/false,
            [&](TypedTxn& txn, const std::string& name,
                std::optional<TypedMeta> meta, Reply& reply) -> absl::Status {
              if (!meta) {
                reply.Integer(0);
                return absl::OkStatus();
              }
              types::HashWriter hash(txn, name, *meta);
              int64_t removed = 0;
              for (size_t i = 2; i < argv.size(); ++i) {
                absl::StatusOr<bool> was = hash.Remove(argv[i]);
                if (!was.ok()) return was.status();
                removed += *was;
              }
              hash.Finish();  // an emptied hash goes, as in Redis
              reply.Integer(removed);
              return absl::OkStatus();
            });
}

// Stores `value` under `field`, just read (`existed`: it had a value).
void PutField(TypedTxn& txn, const std::string& name, const TypedMeta& meta,
              const std::string& field, absl::string_view value,
              bool existed) {
  types::HashWriter hash(txn, name, meta);
  hash.Set(field, value, existed);
  hash.Finish();
}

void HIncrBy(CommandContext& ctx) {
  const std::string& field = ctx.argv[2];
  int64_t incr = 0;
  if (!types::ParseInt64(ctx.argv[3], &incr)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  RunOnHash(ctx, /*create=*/true,
            [&](TypedTxn& txn, const std::string& name,
                std::optional<TypedMeta> meta, Reply& reply) -> absl::Status {
              auto old = txn.Get(name, *meta, field);
              if (!old.ok()) return old.status();
              int64_t value = 0;
              if (*old && !types::ParseInt64(**old, &value)) {
                reply.Error("hash value is not an integer");
                return absl::OkStatus();
              }
              int64_t sum = 0;
              if (__builtin_add_overflow(value, incr, &sum)) {
                reply.Error("increment or decrement would overflow");
                return absl::OkStatus();
              }
              PutField(txn, name, *meta, field, absl::StrCat(sum),
                       old->has_value());
              reply.Integer(sum);
              return absl::OkStatus();
            });
}

void HIncrByFloat(CommandContext& ctx) {
  const std::string& field = ctx.argv[2];
  long double incr = 0;
  if (!types::ParseRedisLongDouble(ctx.argv[3], &incr)) {
    return ctx.reply.Error(kNotFloatError);
  }
  if (std::isnan(incr) || std::isinf(incr)) {
    return ctx.reply.Error("value is NaN or Infinity");
  }
  RunOnHash(ctx, /*create=*/true,
            [&](TypedTxn& txn, const std::string& name,
                std::optional<TypedMeta> meta, Reply& reply) -> absl::Status {
              auto old = txn.Get(name, *meta, field);
              if (!old.ok()) return old.status();
              long double value = 0;
              if (*old && !types::ParseRedisLongDouble(**old, &value)) {
                reply.Error("hash value is not a float");
                return absl::OkStatus();
              }
              value += incr;
              if (std::isnan(value) || std::isinf(value)) {
                reply.Error("increment would produce NaN or Infinity");
                return absl::OkStatus();
              }
              const std::string text = types::FormatLongDouble(value);
              PutField(txn, name, *meta, field, text, old->has_value());
              reply.Bulk(text);
              return absl::OkStatus();
            });
}

// ---- Point reads ----

void HGet(CommandContext& ctx) {
  const std::string& field = ctx.argv[2];
  RunOnHash(ctx, /*create=*/false,
            [&](TypedTxn& txn, const std::string& name,
                std::optional<TypedMeta> meta, Reply& reply) -> absl::Status {
              if (!meta) {
                reply.Null();
                return absl::OkStatus();
              }
              auto value = txn.Get(name, *meta, field);
              if (!value.ok()) return value.status();
              *value ? reply.Bulk(**value) : reply.Null();
              return absl::OkStatus();
            });
}

void HMGet(CommandContext& ctx) {
  const auto& argv = ctx.argv;
  RunOnHash(ctx, /*create=*/false,
            [&](TypedTxn& txn, const std::string& name,
                std::optional<TypedMeta> meta, Reply& reply) -> absl::Status {
              reply.Array(argv.size() - 2);
              for (size_t i = 2; i < argv.size(); ++i) {
                if (!meta) {
                  reply.Null();
                  continue;
                }
                auto value = txn.Get(name, *meta, argv[i]);
                if (!value.ok()) return value.status();
                *value ? reply.Bulk(**value) : reply.Null();
              }
              return absl::OkStatus();
            });
}

// HEXISTS and HSTRLEN: an integer about one field, 0 for a missing key.
void FieldInteger(CommandContext& ctx,
                  int64_t (*of)(const std::optional<std::string>& value)) {
  const std::string& field = ctx.argv[2];
  RunOnHash(ctx, /*create=*/false,
            [&](TypedTxn& txn, const std::string& name,
                std::optional<TypedMeta> meta, Reply& reply) -> absl::Status {
              if (!meta) {
                reply.Integer(0);
                return absl::OkStatus();
              }
              auto value = txn.Get(name, *meta, field);
              if (!value.ok()) return value.status();
              reply.Integer(of(*value));
              return absl::OkStatus();
            });
}

void HExists(CommandContext& ctx) {
  FieldInteger(ctx, [](const std::optional<std::string>& value) -> int64_t {
    return value ? 1 : 0;
  });
}

void HStrlen(CommandContext& ctx) {
  FieldInteger(ctx, [](const std::optional<std::string>& value) -> int64_t {
    return value ? static_cast<int64_t>(value->size()) : 0;
  });
}

void HLen(CommandContext& ctx) {
  RunOnHash(ctx, /*create=*/false,
            [&](TypedTxn&, const std::string&, std::optional<TypedMeta> meta,
                Reply& reply) -> absl::Status {
              reply.Integer(meta ? static_cast<int64_t>(meta->size) : 0);
              return absl::OkStatus();
            });
}

// ---- Whole-hash reads ----

// HKEYS, HVALS, HGETALL (Redis's genericHgetallCommand): fields and values
// both make a map (RESP3), one of them a flat array.
void HGetAllGeneric(CommandContext& ctx, bool keys, bool values) {
  RunOnHash(ctx, /*create=*/false,
            [&](TypedTxn& txn, const std::string& name,
                std::optional<TypedMeta> meta, Reply& reply) -> absl::Status {
              std::string items;
              Reply item_reply(&items, reply.protocol());
              size_t n = 0;
              if (meta) {
                absl::Status s = ScanHash(
                    txn, name, *meta,
                    [&](absl::string_view field, absl::string_view value) {
                      if (keys) item_reply.Bulk(field);
                      if (values) item_reply.Bulk(value);
                      ++n;
                    });
                if (!s.ok()) return s;
              }
              if (keys && values) {
                reply.Map(n);
              } else {
                reply.Array(n);
              }
              reply.Encoded(items);
              return absl::OkStatus();
            });
}

void HKeys(CommandContext& ctx) { HGetAllGeneric(ctx, true, false); }
void HVals(CommandContext& ctx) { HGetAllGeneric(ctx, false, true); }
void HGetAll(CommandContext& ctx) { HGetAllGeneric(ctx, true, true); }

// ---- HRANDFIELD ----

// The field indexes (in field order, [0, size)) to reply, in reply order:
// `count` of them, distinct unless `repeat`. Distinct ones come out in field
// order; repeated ones in random order.
std::vector<uint64_t> PickIndexes(uint64_t size, uint64_t count, bool repeat) {
  std::vector<uint64_t> picks;
  std::mt19937_64& rng = PickRandom();
  std::uniform_int_distribution<uint64_t> any(0, size - 1);
  if (repeat) {
    picks.reserve(count);
    for (uint64_t i = 0; i < count; ++i) picks.push_back(any(rng));
    return picks;
  }
  if (count >= size) count = size;
  picks.reserve(count);
  // Selection sampling: each index is taken with probability
  // (still wanted) / (still left), which picks a uniform subset.
  for (uint64_t i = 0; i < size && picks.size() < count; ++i) {
    std::uniform_int_distribution<uint64_t> left(0, size - i - 1);
    if (left(rng) < count - picks.size()) picks.push_back(i);
  }
  return picks;
}

struct FieldValue {
  std::string field, value;
};

// The fields at `picks` (indexes in field order), in the order of `picks`;
// an error if the hash holds fewer fields than its meta says.
absl::StatusOr<std::vector<FieldValue>> FieldsAt(
    TypedTxn& txn, const std::string& name, const TypedMeta& meta,
    const std::vector<uint64_t>& picks) {
  std::vector<uint64_t> wanted = picks;
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::vector<FieldValue> found;
  found.reserve(wanted.size());
  uint64_t index = 0;
  absl::Status s =
      txn.Scan(name, meta, "", "", /*reverse=*/false,
               [&](absl::string_view field, absl::string_view value) {
                 if (index++ == wanted[found.size()]) {
                   found.push_back({std::string(field), std::string(value)});
                 }
                 return found.size() < wanted.size();
               });
  if (!s.ok()) return s;
  if (found.size() < wanted.size()) {
    return absl::DataLossError(
        absl::StrCat("hash has fewer fields than its metadata's ", meta.size));
  }
  std::vector<FieldValue> out;
  out.reserve(picks.size());
  for (uint64_t pick : picks) {
    const auto at = std::lower_bound(wanted.begin(), wanted.end(), pick);
    out.push_back(found[at - wanted.begin()]);
  }
  return out;
}

// Redis's hrandfieldWithCountCommand reply: RESP2 a flat array (fields and
// values alternating), RESP3 an array of [field, value] pairs.
void ReplyPicked(Reply& reply, const std::vector<FieldValue>& picked,
                 bool withvalues) {
  const bool flat = withvalues && reply.protocol() == 2;
  reply.Array(flat ? 2 * picked.size() : picked.size());
  for (const FieldValue& fv : picked) {
    if (withvalues && !flat) reply.Array(2);
    reply.Bulk(fv.field);
    if (withvalues) reply.Bulk(fv.value);
  }
}

void HRandField(CommandContext& ctx) {
  RandomPickArgs args;
  if (!ParseRandomPickArgs(ctx, "withvalues", &args)) return;
  RunOnHash(
      ctx, /*create=*/false,
      [&](TypedTxn& txn, const std::string& name, std::optional<TypedMeta> meta,
          Reply& reply) -> absl::Status {
        if (!meta || meta->size == 0 || (args.with_count && args.count == 0)) {
          args.with_count ? reply.Array(0) : reply.Null();
          return absl::OkStatus();
        }
        const bool repeat = args.count < 0;
        const uint64_t count = !args.with_count ? 1
                               : repeat ? static_cast<uint64_t>(-args.count)
                                        : static_cast<uint64_t>(args.count);
        if (repeat && count > kMaxRepeatedPicks) {
          reply.Error("value is out of range");
          return absl::OkStatus();
        }
        absl::StatusOr<std::vector<FieldValue>> picked =
            FieldsAt(txn, name, *meta, PickIndexes(meta->size, count, repeat));
        if (!picked.ok()) return picked.status();
        if (!args.with_count) {
          reply.Bulk((*picked)[0].field);
        } else {
          ReplyPicked(reply, *picked, args.with_values);
        }
        return absl::OkStatus();
      });
}

// ---- HSCAN ----

void ReplyScan(Reply& reply, int64_t cursor,
               const std::vector<FieldValue>& fields) {
  reply.Array(2);
  reply.Bulk(absl::StrCat(cursor));
  reply.Array(2 * fields.size());
  for (const FieldValue& fv : fields) {
    reply.Bulk(fv.field);
    reply.Bulk(fv.value);
  }
}

void HScan(CommandContext& ctx) {
  uint64_t cursor = 0;
  if (!types::ParseScanCursor(ctx.argv[2], &cursor)) {
    return ctx.reply.Error("invalid cursor");
  }
  RunOnHash(
      ctx, /*create=*/false,
      [&](TypedTxn& txn, const std::string& name, std::optional<TypedMeta> meta,
          Reply& reply) -> absl::Status {
        if (!meta) {
          ReplyScan(reply, 0, {});
          return absl::OkStatus();
        }
        KeyScanOptions options;
        if (!ParseKeyScanOptions(ctx.argv, reply, &options)) {
          return absl::OkStatus();
        }
        // Whole when Redis would keep the hash in a listpack.
        bool whole = false;
        if (meta->size <= kMaxWholeScan) {
          const absl::StatusOr<const char*> encoding =
              TypedEncoding(txn, name, *meta);
          if (!encoding.ok()) return encoding.status();
          whole = absl::string_view(*encoding) == "listpack";
        }
        const std::string from =
            whole ? "" : KeyScanResumeAt(ctx.server, 'H', cursor, name);
        std::vector<FieldValue> fields;
        int64_t examined = 0;
        std::optional<std::string> resume;
        absl::Status s = txn.Scan(
            name, *meta, "", from, /*reverse=*/false,
            [&](absl::string_view field, absl::string_view value) {
              if (!whole && examined == options.count) {
                resume = std::string(field);
                return false;
              }
              ++examined;
              if (!options.pattern ||
                  model::GlobMatch(*options.pattern, field)) {
                fields.push_back({std::string(field), std::string(value)});
              }
              return true;
            });
        if (!s.ok()) return s;
        const int64_t next =
            resume ? SaveKeyScanCursor(ctx.server, 'H', name, *resume) : 0;
        ReplyScan(reply, next, fields);
        return absl::OkStatus();
      });
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(hash, table) {
  table->Add("hset", -4, HSet, {"write", "denyoom", "fast"});
  table->Add("hmset", -4, HMSet, {"write", "denyoom", "fast"});
  table->Add("hsetnx", 4, HSetNx, {"write", "denyoom", "fast"});
  table->Add("hget", 3, HGet, {"readonly", "fast"});
  table->Add("hmget", -3, HMGet, {"readonly", "fast"});
  table->Add("hdel", -3, HDel, {"write", "fast"});
  table->Add("hexists", 3, HExists, {"readonly", "fast"});
  table->Add("hlen", 2, HLen, {"readonly", "fast"});
  table->Add("hstrlen", 3, HStrlen, {"readonly", "fast"});
  table->Add("hincrby", 4, HIncrBy, {"write", "denyoom", "fast"});
  table->Add("hincrbyfloat", 4, HIncrByFloat, {"write", "denyoom", "fast"});
  table->Add("hkeys", 2, HKeys, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("hvals", 2, HVals, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("hgetall", 2, HGetAll, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("hrandfield", -2, HRandField, {"readonly"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("hscan", -3, HScan, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  AddTypedGroup(table,
                {"hset", "hmset", "hsetnx", "hget", "hmget", "hdel", "hexists",
                 "hlen", "hstrlen", "hincrby", "hincrbyfloat"});
}

}  // namespace trackdb::resp
