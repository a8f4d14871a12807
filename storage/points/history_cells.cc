#include "storage/points/history_cells.h"

#include <cstdint>
#include <limits>

#include "index/covering.h"

namespace trackdb::storage {
namespace {

int64_t Saturate(__int128 v) {
  if (v > std::numeric_limits<int64_t>::max()) {
    return std::numeric_limits<int64_t>::max();
  }
  if (v < std::numeric_limits<int64_t>::min()) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(v);
}

}  // namespace

int64_t HistoryBucketOf(int64_t loc_time_ms) {
  int64_t q = loc_time_ms / kHistoryBucketMs;
  if (loc_time_ms % kHistoryBucketMs < 0) --q;
  return q;
}

int64_t HistoryBucketFirstMs(int64_t bucket) {
  return Saturate(static_cast<__int128>(bucket) * kHistoryBucketMs);
}

int64_t HistoryBucketLastMs(int64_t bucket) {
  return Saturate(static_cast<__int128>(bucket) * kHistoryBucketMs +
                  kHistoryBucketMs - 1);
}

HistoryCell HistoryCellOf(int64_t loc_time_ms, double lat, double lon) {
  return {HistoryBucketOf(loc_time_ms),
          index::CellIdAtLevel({lat, lon}, kHistoryCellLevel)};
}

}  // namespace trackdb::storage
