#ifndef TRACKDB_TYPES_KEY_SCAN_H_
#define TRACKDB_TYPES_KEY_SCAN_H_

// Walks the keys of one Redis database: its strings (the kv column family),
// its hashes, lists, sets and sorted sets (typed values), then its GEO keys
// (the collection registry). KEYS, SCAN, DBSIZE and
// FLUSHDB are built on it.

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "types/key_type.h"

namespace trackdb::types {

// A position in the walk: which part, and the storage name to resume at.
struct KeyScanPosition {
  enum class Part : char { kStrings = 's', kTyped = 't', kGeo = 'g' };
  Part part = Part::kStrings;
  // Strings: the first name not yet visited; typed values and GEO keys:
  // the last one visited.
  std::string resume_name;
};

// Visits keys of `db` from `from` in order. `visit` returns false to stop
// after the key it was given; then `next` (if not null) is where a later
// walk resumes. When every key has been visited, `*done` is true.
absl::Status ScanKeys(
    storage::TrackStore& store, int db, int64_t now_ms,
    const KeyScanPosition& from,
    const std::function<bool(const std::string& key, KeyType type)>& visit,
    KeyScanPosition* next, bool* done);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_KEY_SCAN_H_
