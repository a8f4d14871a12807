#ifndef TRACKDB_STORAGE_MEMORY_CACHE_RESERVATION_H_
#define TRACKDB_STORAGE_MEMORY_CACHE_RESERVATION_H_

// Memory trackdb holds outside RocksDB but inside the memory budget (the
// latest index, storage/points/latest_index.h), charged to the block cache that
// the budget sizes, as one placeholder entry whose charge follows the
// memory's size in placeholder entries of kStep bytes, the way RocksDB
// charges memtables to the same cache (storage/engine/options.h): blocks are
// evicted to make room for them, so the cache's usage stays the budget's
// whatever the mix. Many small entries, not one large one, because the
// cache is sharded by key: each entry lands in its own shard's capacity,
// and one large entry would only empty its own shard. The cache is not
// strict, so a charge above its capacity is taken whole and evicts
// everything else; StoreStats then shows usage above capacity, which the
// doctor reports as a budget too small for the data.
//
// Set is cheap when the size needs the entries it has (an atomic load and
// a division): it is called after every committed write.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rocksdb/cache.h"

namespace trackdb::storage {

class CacheReservation {
 public:
  static constexpr int64_t kStep = int64_t{1} << 20;

  // `cache` may be null: then nothing is charged.
  CacheReservation(std::shared_ptr<rocksdb::Cache> cache, std::string name);
  ~CacheReservation();
  CacheReservation(const CacheReservation&) = delete;
  CacheReservation& operator=(const CacheReservation&) = delete;

  // Charges `bytes`, rounded up to whole kSteps, instead of the current
  // charge.
  void Set(int64_t bytes);
  int64_t charged() const {
    return entries_.load(std::memory_order_relaxed) * kStep;
  }

 private:
  std::string Key(size_t i) const;

  std::shared_ptr<rocksdb::Cache> cache_;
  std::string prefix_;
  std::mutex mu_;  // serialises changing the entries
  std::vector<rocksdb::Cache::Handle*> handles_;
  std::atomic<int64_t> entries_{0};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_MEMORY_CACHE_RESERVATION_H_
