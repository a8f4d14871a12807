#ifndef TRACKDB_CONF_CONFIG_H_
#define TRACKDB_CONF_CONFIG_H_

// Loading trackd's configuration (proto/trackdb/v1/config.proto) from
// protobuf text format, trackdb's defaults, and validation. A config that
// fails to parse or validate is refused whole: trackd does not start on a
// half-understood file.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::conf {

// The smallest storage.memory_budget_mb accepted, and the largest memtable a
// budget derives (larger budgets get more memtables, not larger ones). 8, not
// RocksDB's 64: the write path's main cost is skiplist inserts, whose cache
// misses grow with the memtable. Seed 004's workload ran 1.4-1.6x faster with
// 8 MiB memtables than with 64, for 2.5x the bytes written to disk
// (bench/README.md, "Memtable size").
inline constexpr uint64_t kMinMemoryBudgetMb = 16;
inline constexpr uint64_t kMaxDerivedWriteBufferMb = 8;
// Per-CF memtable maxima summed over the column families beyond this many
// budgets are warned about (the memtable total bounds them, but the knobs
// then say something the store cannot do).
inline constexpr uint64_t kFarAboveBudget = 4;

// storage.memory_budget_mb is for the whole process. The server (code,
// gRPC buffers, threads, allocator slack) keeps a reserve of budget / 8, at
// least 64 MiB and at most half the budget; RocksDB's one cache (memtables
// charged to it, blocks) gets the rest, from which the memtable and cache
// knobs are derived (proto/trackdb/v1/config.proto).
inline constexpr uint64_t kMinServerReserveMb = 64;
uint64_t ServerReserveMb(uint64_t budget_mb);
uint64_t RocksDbShareMb(uint64_t budget_mb);

// Parses `text`; errors name `source_name`, the 1-based line and column, and
// the field ("conf/x.textproto:7:3: ... no field named \"write_bufer\"").
// The result is validated but defaults are not filled in.
absl::StatusOr<v1::TrackdbConfig> ParseConfigText(
    absl::string_view text, absl::string_view source_name);

// Reads and parses a file, as ParseConfigText.
absl::StatusOr<v1::TrackdbConfig> LoadConfigFile(const std::string& path);

// The config with every unset field given trackdb's default. The shipped
// conf/trackdb.textproto spells out exactly these values (tested).
v1::TrackdbConfig WithDefaults(const v1::TrackdbConfig& config);

struct HostPort {
  std::string host;
  int port = 0;
};
// replication.replicaof's "host port".
absl::StatusOr<HostPort> ParseReplicaOf(absl::string_view text);
v1::StorageConfig WithStorageDefaults(const v1::StorageConfig& storage);

// INVALID_ARGUMENT naming the field ("storage.level0_stop_writes_trigger")
// for values RocksDB would reject or that contradict each other, judged on
// the effective values (defaults filled in).
absl::Status ValidateConfig(const v1::TrackdbConfig& config);

}  // namespace trackdb::conf

#endif  // TRACKDB_CONF_CONFIG_H_
