// MEMORY USAGE and MEMORY HELP. MEMORY USAGE key [SAMPLES count] answers,
// for an existing key, the bytes its value takes in trackdb's store: each
// RocksDB entry's key and value as written, plus the 8-byte sequence tag
// RocksDB adds to every entry, before compression. Like Redis, it reads
// `count` members (default 5, 0 for all) of a hash, set, sorted set or
// list and scales their average to the key's size. A GEO key counts as
// the sorted set Redis would hold, its members' ids with 8-byte scores
// (the history trackdb keeps beside it is not counted). Redis counts its
// own allocations instead, so the numbers differ, but both grow with what
// the key holds, which is what tools that rank keys by it (redis-cli
// --memkeys, RedisInsight) read. Options are checked before the key, with
// Redis 7.0's errors; a missing key is nil.
//
// MEMORY's other subcommands (DOCTOR, STATS, MALLOC-STATS, PURGE) report
// on Redis's allocator and are not served; INFO memory covers trackdb's.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/track_point.h"
#include "model/clock.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/format/kv_codec.h"
#include "storage/format/typed_codec.h"
#include "storage/format/typed_values.h"
#include "types/codec/redis_number.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

// RocksDB's per-entry sequence number and type, beside the user key.
constexpr int64_t kEntryTagBytes = 8;
// Redis's OBJ_COMPUTE_SIZE_DEF_SAMPLES.
constexpr int64_t kDefaultSamples = 5;

int64_t EntryBytes(size_t key_bytes, size_t value_bytes) {
  return static_cast<int64_t>(key_bytes + value_bytes) + kEntryTagBytes;
}

// `sampled` bytes over `seen` members, scaled to `size` members.
int64_t Scaled(int64_t sampled, int64_t seen, uint64_t size) {
  if (seen == 0) return 0;
  return static_cast<int64_t>(static_cast<double>(sampled) / seen *
                              static_cast<double>(size));
}

// A typed value's meta entry and its members, `samples` of them read.
absl::StatusOr<int64_t> TypedUsage(TypedTxn& txn, const std::string& name,
                                   const TypedMeta& meta, int64_t samples) {
  const std::string prefix = storage::TypedMembersPrefix(name, meta.version);
  const bool zset = meta.type == ValueType::kZset;
  const std::string walked =
      zset ? std::string(1, storage::kZsetMemberTag) : std::string();
  int64_t sampled = 0;
  int64_t seen = 0;
  absl::Status s = txn.Scan(
      name, meta, walked, "", /*reverse=*/false,
      [&](absl::string_view subkey, absl::string_view value) {
        sampled += EntryBytes(prefix.size() + subkey.size(), value.size());
        if (zset) {
          // Its (score, member) entry: tag, 8-byte score, member; no value.
          sampled += EntryBytes(prefix.size() + subkey.size() + 8, 0);
        }
        return ++seen < samples;
      });
  if (!s.ok()) return s;
  return EntryBytes(storage::TypedMetaKey(name).size(),
                    storage::EncodeTypedMeta(meta).size()) +
         Scaled(sampled, seen, meta.size);
}

// A GEO key as the sorted set Redis would hold: member ids and scores.
absl::StatusOr<int64_t> GeoUsage(storage::TrackStore& store,
                                 const std::string& name, int64_t samples) {
  absl::StatusOr<int64_t> size = store.CollectionSize(name);
  if (!size.ok()) return size.status();
  int64_t sampled = 0;
  int64_t seen = 0;
  absl::Status s = store.ScanLatest(name, [&](const model::TrackPoint& point) {
    sampled += EntryBytes(point.entity.size(), sizeof(double));
    return ++seen < samples;
  });
  if (!s.ok()) return s;
  return EntryBytes(name.size(), 0) + Scaled(sampled, seen, *size);
}

// Redis's MEMORY USAGE options: SAMPLES count, repeatable, 0 for all.
// False once it has replied an error.
bool ParseSamples(CommandContext& ctx, int64_t* samples) {
  const auto& argv = ctx.argv;
  *samples = kDefaultSamples;
  for (size_t j = 3; j < argv.size(); ++j) {
    if (!IsWord(argv[j], "samples") || j + 1 >= argv.size()) {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
    if (!types::ParseInt64(argv[++j], samples)) {
      ctx.reply.Error(kNotIntegerError);
      return false;
    }
    if (*samples < 0) {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
    if (*samples == 0) *samples = std::numeric_limits<int64_t>::max();
  }
  return true;
}

void MemoryUsage(CommandContext& ctx) {
  int64_t samples = 0;
  if (!ParseSamples(ctx, &samples)) return;
  const std::string name = ctx.Name(ctx.argv[2]);
  absl::StatusOr<std::optional<storage::StringValue>> string =
      ctx.store().GetString(name, NowMs());
  if (!ctx.Check(string.status())) return;
  if (*string) {
    return ctx.reply.Integer(
        EntryBytes(name.size(), storage::EncodeStringValue(**string).size()));
  }
  RunTyped(ctx, {name}, [&](TypedTxn& txn, Reply& reply) -> absl::Status {
    absl::StatusOr<std::optional<TypedMeta>> meta = txn.Meta(name);
    if (!meta.ok()) return meta.status();
    absl::StatusOr<int64_t> bytes = int64_t{0};
    if (*meta) {
      bytes = TypedUsage(txn, name, **meta, samples);
    } else {
      absl::StatusOr<bool> geo = types::IsGeoKey(ctx.store(), name);
      if (!geo.ok()) return geo.status();
      if (!*geo) {
        reply.Null();
        return absl::OkStatus();
      }
      bytes = GeoUsage(ctx.store(), name, samples);
    }
    if (!bytes.ok()) return bytes.status();
    reply.Integer(*bytes);
    return absl::OkStatus();
  });
}

void MemoryHelp(CommandContext& ctx) {
  const char* lines[] = {
      "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "USAGE <key> [SAMPLES <count>]",
      "    Return the bytes trackdb stores for <key> and its value. Nested "
      "values are",
      "    sampled up to <count> times (default: 5, 0 means sample all).",
      "HELP",
      "    Prints this help."};
  ctx.reply.StatusLines(lines);
}

CommandSpec MemoryCommand() {
  // On the worker pool: SAMPLES 0 reads every member.
  CommandSpec memory = CommandWithSubcommands("memory");
  memory.runs_on = RunsOn::kWorker;
  AddSubcommand(memory, {"usage", -3, {"readonly"}, 2, 2, 1}, MemoryUsage);
  AddSubcommand(memory, {"help", 2, {"loading", "stale"}}, MemoryHelp);
  return memory;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(memory, table) { table->Add(MemoryCommand()); }

}  // namespace trackdb::resp
