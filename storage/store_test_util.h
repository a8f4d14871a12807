#ifndef TRACKDB_STORAGE_STORE_TEST_UTIL_H_
#define TRACKDB_STORAGE_STORE_TEST_UTIL_H_

// Helpers for storage tests: scratch data dirs, point builders, and an
// invariant checker that reads the raw column families.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/track_store.h"

namespace trackdb::storage::testing {

// A fresh, empty directory under the test's temp dir.
std::string NewDataDir();

// Opens a store with small memtables (so tests exercise flushes too).
std::unique_ptr<TrackStore> OpenStore(
    const std::string& dir, v1::Durability durability = v1::DURABILITY_WAL);

model::TrackPoint Point(std::string entity, int64_t t, double lat, double lon);

// Checks I1, I3, I4 and I6 of storage/write_funnel.h for every entity of
// `collection` by scanning the points and latest column families
// directly and asking the latest index. Returns one line per violation;
// empty means all hold.
std::vector<std::string> InvariantViolations(TrackStore& store,
                                             const std::string& collection);

// Every key and value of `cf` that starts with `prefix`, in key order, read
// from the DB itself (not through the store's API).
using RawEntries = std::vector<std::pair<std::string, std::string>>;
RawEntries ReadRaw(TrackStore& store, ColumnFamily cf,
                   absl::string_view prefix = "");
// Flushes every column family's memtable.
absl::Status FlushAll(TrackStore& store);
// Flushes `cf`'s memtable, even while writes are stalled.
absl::Status FlushColumnFamily(TrackStore& store, ColumnFamily cf);
// Flushes `cf` and compacts all of it into the bottom level, so that
// compaction filters have run over every entry.
absl::Status FlushAndCompact(TrackStore& store, ColumnFamily cf);
// SST files in level 0 of `cf`.
absl::StatusOr<int> FilesAtLevel0(TrackStore& store, ColumnFamily cf);

// Checks I5: every string cache entry equals the name's value as stored in
// the kv column family, or its absence there. One line per violation; empty
// means it holds.
std::vector<std::string> StringCacheViolations(TrackStore& store);

// Checks I8: every typed cache entry holds its key's value in the types
// column family, or its absence. One line per violation.
std::vector<std::string> TypedCacheViolations(TrackStore& store);

}  // namespace trackdb::storage::testing

#endif  // TRACKDB_STORAGE_STORE_TEST_UTIL_H_
