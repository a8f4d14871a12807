// DUMP and RESTORE: a key's value in Redis's serialization format
// (rdb_payload.h), so that what moves keys between Redis servers with DUMP
// and RESTORE (RIOT, redis-shake's restore writer, scripts) moves them into
// and out of trackdb. DUMP writes the oldest encodings that Redis 6.2 and 7
// both read; RESTORE reads what Redis 6 to 7.4 write. A GEO key dumps as the
// sorted set Redis would hold (its members' geohash scores) and a restored
// sorted set stays a plain one, which the GEO commands read as Redis does.
// The serialized value carries no expiry: RESTORE's ttl gives one.
//
// RESTORE of a hash, set, sorted set or list is one transaction, its
// existence check included. RESTORE of a string checks that the key is free
// and then writes, as SET NX does over a GEO key: a key created between the
// two is overwritten. IDLETIME and FREQ are checked as Redis checks them and
// then ignored: trackdb evicts no keys.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/clock.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/commands/typed_zset.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/pop_waiters.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/format/typed_codec.h"
#include "storage/format/typed_values.h"
#include "types/codec/rdb_payload.h"
#include "types/codec/redis_number.h"
#include "types/key_dump.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

constexpr char kBusyKeyError[] = "-BUSYKEY Target key name already exists.";

// ---- DUMP ----

// Redis's dumpCommand: DUMP key. Nil for a missing key.
void Dump(CommandContext& ctx) {
  absl::StatusOr<std::optional<types::DumpedKey>> dumped =
      types::DumpKey(ctx.store(), ctx.Name(ctx.argv[1]), NowMs());
  if (!ctx.Check(dumped.status())) return;
  *dumped ? ctx.reply.Bulk((*dumped)->payload) : ctx.reply.Null();
}

// ---- RESTORE ----

struct RestoreArgs {
  bool replace = false;
  bool absttl = false;
};

// Redis's restoreCommand options: REPLACE, ABSTTL, IDLETIME seconds, FREQ
// frequency (not both). False once it has replied an error.
bool ParseRestoreOptions(CommandContext& ctx, RestoreArgs* args) {
  const std::vector<std::string>& argv = ctx.argv;
  int64_t idle = -1;
  int64_t freq = -1;
  for (size_t j = 4; j < argv.size(); ++j) {
    const bool has_value = j + 1 < argv.size();
    if (IsWord(argv[j], "replace")) {
      args->replace = true;
    } else if (IsWord(argv[j], "absttl")) {
      args->absttl = true;
    } else if (IsWord(argv[j], "idletime") && has_value && freq == -1) {
      if (!types::ParseInt64(argv[++j], &idle)) {
        ctx.reply.Error(kNotIntegerError);
        return false;
      }
      if (idle < 0) {
        ctx.reply.Error("Invalid IDLETIME value, must be >= 0");
        return false;
      }
    } else if (IsWord(argv[j], "freq") && has_value && idle == -1) {
      if (!types::ParseInt64(argv[++j], &freq)) {
        ctx.reply.Error(kNotIntegerError);
        return false;
      }
      if (freq < 0 || freq > 255) {
        ctx.reply.Error("Invalid FREQ value, must be >= 0 and <= 255");
        return false;
      }
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

// What RESTORE does once the key is known to be free (or REPLACE given):
// the ttl and payload checks, in Redis's order after the key's, and the
// expiry they give.
struct RestorePlan {
  std::optional<std::string> error;  // replied instead of writing
  absl::StatusOr<types::RdbValue> value = absl::UnknownError("unset");
  int64_t expire_at_ms = 0;  // 0: none
  bool expired = false;      // a ttl already past: nothing is created
};

RestorePlan PlanRestore(const std::vector<std::string>& argv,
                        const RestoreArgs& args, int64_t now_ms) {
  RestorePlan plan;
  int64_t ttl = 0;
  if (!types::ParseInt64(argv[2], &ttl)) {
    plan.error = kNotIntegerError;
    return plan;
  }
  if (ttl < 0) {
    plan.error = "Invalid TTL value, must be >= 0";
    return plan;
  }
  plan.value = types::DecodeDumpPayload(argv[3]);
  if (!plan.value.ok()) {
    plan.error = std::string(plan.value.status().message());
    return plan;
  }
  if (ttl != 0) {
    // Redis adds the relative ttl to the clock as a long long: a sum past
    // its range wraps, lands in the past, and the key is not created.
    plan.expire_at_ms =
        args.absttl ? ttl
                    : static_cast<int64_t>(static_cast<uint64_t>(ttl) +
                                           static_cast<uint64_t>(now_ms));
    plan.expired = plan.expire_at_ms <= now_ms;
  }
  return plan;
}

ValueType TypeOfKind(types::RdbValue::Kind kind) {
  switch (kind) {
    case types::RdbValue::Kind::kHash:
      return ValueType::kHash;
    case types::RdbValue::Kind::kSet:
      return ValueType::kSet;
    case types::RdbValue::Kind::kList:
      return ValueType::kList;
    default:
      return ValueType::kZset;
  }
}

// Stages `value` (not a string) as `name`'s new value: a new version, so
// whatever typed value it held becomes garbage.
void StageTypedValue(TypedTxn& txn, const std::string& name,
                     const types::RdbValue& value, int64_t expire_at_ms) {
  if (value.kind == types::RdbValue::Kind::kZset) {
    std::vector<types::ZEntry> entries;
    entries.reserve(value.zset.size());
    for (const auto& [member, score] : value.zset) {
      entries.push_back(types::ZEntry{member, score});
    }
    return types::StageNewZset(txn, name, /*had_typed=*/false, entries,
                               expire_at_ms);
  }
  TypedMeta meta = txn.Create(TypeOfKind(value.kind));
  if (value.kind == types::RdbValue::Kind::kHash) {
    for (const auto& [field, field_value] : value.hash) {
      txn.Put(name, meta, field, field_value);
    }
    meta.size = value.hash.size();
  } else {
    const bool list = value.kind == types::RdbValue::Kind::kList;
    for (size_t i = 0; i < value.elements.size(); ++i) {
      if (list) {
        txn.Put(name, meta, storage::ListSubkey(meta.head + i),
                value.elements[i]);
      } else {
        txn.Put(name, meta, value.elements[i], "");
      }
    }
    meta.size = value.elements.size();
  }
  meta.expire_at_ms = expire_at_ms;
  txn.SetMeta(name, meta);
}

// RESTORE of a string payload: the key checked, then written.
void RestoreString(CommandContext& ctx, const std::string& name,
                   const RestoreArgs& args, const RestorePlan& plan,
                   int64_t now_ms) {
  if (!args.replace) {
    absl::StatusOr<types::KeyType> type =
        types::TypeOf(ctx.store(), name, now_ms);
    if (!ctx.Check(type.status())) return;
    if (*type != types::KeyType::kNone) return ctx.reply.Error(kBusyKeyError);
  }
  if (plan.expired) {
    if (args.replace &&
        !ctx.Check(types::DeleteAnyKey(ctx.store(), name, NowMs()).status())) {
      return;
    }
    return ctx.reply.Ok();
  }
  const std::string names[] = {name};
  const storage::StringValue values[] = {
      {plan.value->string, plan.expire_at_ms}};
  if (!ctx.Check(ctx.store().ReplaceWithStrings(names, values))) return;
  ctx.reply.Ok();
}

// RESTORE of any other payload, or of one that fails its checks (whose
// error comes after the key's): one transaction.
void RestoreTyped(CommandContext& ctx, const std::string& name,
                  const RestoreArgs& args, const RestorePlan& plan) {
  const std::string names[] = {name};
  bool created = false;
  RunTyped(
      ctx, names,
      [&](TypedTxn& txn, Reply& reply) -> absl::Status {
        absl::StatusOr<std::optional<TypedMeta>> old = txn.Meta(name);
        if (!old.ok()) return old.status();
        absl::StatusOr<bool> other = txn.HoldsStringOrCollection(name);
        if (!other.ok()) return other.status();
        if (!args.replace && (*old || *other)) {
          reply.Error(kBusyKeyError);
          return absl::OkStatus();
        }
        if (plan.error) {
          reply.Error(*plan.error);
          return absl::OkStatus();
        }
        if (absl::Status s = txn.RemoveOtherTypes(name); !s.ok()) return s;
        // A new value replaces the old meta key; an expired one leaves none.
        if (*old && plan.expired) txn.DeleteMeta(name);
        if (!plan.expired) {
          StageTypedValue(txn, name, *plan.value, plan.expire_at_ms);
          created = true;
        }
        reply.Ok();
        return absl::OkStatus();
      },
      names);
  // A list or sorted set created: a blocking pop waiting on it is served.
  if (created) WakePoppers(ctx, name);
}

// Redis's restoreCommand: RESTORE key ttl serialized-value [REPLACE]
// [ABSTTL] [IDLETIME seconds] [FREQ frequency].
void Restore(CommandContext& ctx) {
  RestoreArgs args;
  if (!ParseRestoreOptions(ctx, &args)) return;
  const std::string name = ctx.Name(ctx.argv[1]);
  const int64_t now = NowMs();
  const RestorePlan plan = PlanRestore(ctx.argv, args, now);
  if (!plan.error && plan.value->kind == types::RdbValue::Kind::kString) {
    return RestoreString(ctx, name, args, plan, now);
  }
  RestoreTyped(ctx, name, args, plan);
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(dump_restore, table) {
  table->Add("dump", 2, Dump, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("restore", -4, Restore, {"write", "denyoom"}, 1, 1, 1,
             RunsOn::kWorker);
  // What MIGRATE sends in cluster mode (a slot being imported accepts it);
  // trackdb's slots move with CLUSTERX MIGRATE, so it is RESTORE here.
  table->Add("restore-asking", -4, Restore, {"write", "denyoom", "asking"}, 1,
             1, 1, RunsOn::kWorker);
}

}  // namespace trackdb::resp
