#ifndef TRACKDB_STORAGE_OPTIONS_H_
#define TRACKDB_STORAGE_OPTIONS_H_

// From trackd's StorageConfig to RocksDB options: trackdb's tuned defaults
// (conf/config.h), the typed knobs, then the raw option strings, in that
// order of precedence (later wins).
//
// Memory: one LRU block cache shared by every column family, with index and
// filter blocks charged to it, so the cache size bounds them too (seed 003's
// Pravega saw memory far above its caches because they were not). Memtables
// are bounded by db_write_buffer_size.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::storage {

struct StoreOptions {
  rocksdb::DBOptions db;
  // default, points, latest, geo, kv (storage/keys.h), in that order.
  std::vector<rocksdb::ColumnFamilyDescriptor> column_families;
  rocksdb::WriteOptions write;
};

// INVALID_ARGUMENT naming the field when RocksDB rejects a raw option string
// or this build of RocksDB lacks the chosen compression.
absl::StatusOr<StoreOptions> BuildStoreOptions(const v1::StorageConfig& config);

// The effective values of the knobs trackdb tunes, a line per column family,
// for the log at start.
std::string DescribeOptions(const StoreOptions& options);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_OPTIONS_H_
