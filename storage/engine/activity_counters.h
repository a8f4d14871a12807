#ifndef TRACKDB_STORAGE_ENGINE_ACTIVITY_COUNTERS_H_
#define TRACKDB_STORAGE_ENGINE_ACTIVITY_COUNTERS_H_

// What a store has done since it opened, for the metrics port: fixes
// written and fence events committed by this node's writes (a replica's
// applied batches are not counted: they were counted where they were
// written), and searches run. Relaxed atomics: each is a count, read
// alone.

#include <atomic>
#include <cstdint>

namespace trackdb::storage {

struct Activity {
  uint64_t points_written = 0;
  uint64_t fence_events = 0;
  // Scans of the latest index (ScanRegion): one or more a search (GEOSEARCH
  // COUNT n and gRPC's first page look in smaller circles first).
  uint64_t region_scans = 0;
  uint64_t history_searches = 0;  // SearchHistory
};

class ActivityCounters {
 public:
  void AddPoints(uint64_t n) { points_.fetch_add(n, kOrder); }
  void AddFenceEvents(uint64_t n) { fence_events_.fetch_add(n, kOrder); }
  void AddRegionScan() { region_scans_.fetch_add(1, kOrder); }
  void AddHistorySearch() { history_searches_.fetch_add(1, kOrder); }

  Activity Read() const {
    return {points_.load(kOrder), fence_events_.load(kOrder),
            region_scans_.load(kOrder), history_searches_.load(kOrder)};
  }

 private:
  static constexpr std::memory_order kOrder = std::memory_order_relaxed;
  std::atomic<uint64_t> points_{0};
  std::atomic<uint64_t> fence_events_{0};
  std::atomic<uint64_t> region_scans_{0};
  std::atomic<uint64_t> history_searches_{0};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_ACTIVITY_COUNTERS_H_
