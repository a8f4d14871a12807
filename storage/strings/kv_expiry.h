#ifndef TRACKDB_STORAGE_STRINGS_KV_EXPIRY_H_
#define TRACKDB_STORAGE_STRINGS_KV_EXPIRY_H_

// Expired strings leave the `kv` column family in compaction, not only when
// a read finds them: this compaction filter drops every value whose expiry
// (storage/format/kv_codec.h) has passed. Reads hide expired values themselves, so
// correctness never depends on when compaction runs; the filter bounds the
// space they take.

#include <cstdint>
#include <functional>
#include <memory>

#include "rocksdb/compaction_filter.h"

namespace trackdb::storage {

// Unix milliseconds now; tests substitute their own clock.
using ClockMs = std::function<int64_t()>;
int64_t SystemNowMs();

std::shared_ptr<rocksdb::CompactionFilterFactory> NewExpiredStringFilterFactory(
    ClockMs clock = SystemNowMs);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_STRINGS_KV_EXPIRY_H_
