#ifndef TRACKDB_STORAGE_MEMORY_GENERATIONAL_CACHE_H_
#define TRACKDB_STORAGE_MEMORY_GENERATIONAL_CACHE_H_

// Decoded values of trackdb's own in hash maps of its own, bounded, their
// bytes charged to the store's block cache (storage/memory/cache_reservation.h)
// so that they stay inside the one memory bound (storage/engine/options.h): what
// the typed cache (storage/typed/typed_cache.h) is made of.
//
// Why not entries of the block cache itself (storage/memory/block_cache_entries.h,
// as the string cache keeps): a block cache hit costs a hash chain walk
// and an unlink and relink in its LRU list, each a cache miss on an entry
// somewhere in memory; under redis-benchmark's sadd that lookup was 22% of
// trackd's CPU. Here a lookup is one probe of a flat hash map under its
// shard's lock, about half the time (bench/typed_cache_lookup_bench.cc).
//
// Eviction is by generations, per shard: entries go into the young map;
// when its bytes pass half the shard's share, the old map is dropped
// whole and the young one becomes old. A hit in the old map moves the
// entry back to the young one, so what is read keeps its place and what
// is not goes within two generations. A shard never holds more than its
// share of `max_bytes` (plus one entry).
//
// Thread-safe.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "rocksdb/cache.h"
#include "storage/memory/cache_reservation.h"
#include "storage/memory/spread_counter.h"

namespace trackdb::storage {

template <typename Value>
class GenerationalCache {
 public:
  static constexpr size_t kShards = 64;
  // What an entry costs beyond its key and value bytes: the map's slot,
  // the key's and the value's heap blocks.
  static constexpr size_t kEntryOverhead = 96;

  // A zero `max_bytes` turns caching off: every Lookup misses, Insert does
  // nothing. The bytes held are charged to `block_cache` (may be null)
  // under `name`.
  GenerationalCache(size_t max_bytes,
                    std::shared_ptr<rocksdb::Cache> block_cache,
                    std::string name)
      : shard_max_bytes_(max_bytes / kShards),
        charge_(std::move(block_cache), std::move(name)) {}

  bool enabled() const { return shard_max_bytes_ > 0; }

  // True when `key` is cached, with its value copied into *value.
  bool Lookup(absl::string_view key, Value* value) {
    if (!enabled()) return false;
    Shard& shard = ShardOf(key);
    bool hit = false;
    Map dropped;
    {
      absl::MutexLock lock(&shard.mu);
      if (auto it = shard.young.find(key); it != shard.young.end()) {
        *value = it->second.value;
        hit = true;
      } else if (auto old = shard.old.find(key); old != shard.old.end()) {
        *value = old->second.value;
        hit = true;
        const size_t bytes = old->second.bytes;
        auto node = shard.old.extract(old);
        shard.old_bytes -= bytes;
        shard.young.insert(std::move(node));
        shard.young_bytes += bytes;
        AgeIfFull(shard, &dropped);
      }
    }
    (hit ? hits_ : misses_).Add();
    if (!dropped.empty()) Charge();
    return hit;
  }

  // Caches `value` under `key`, replacing any entry, charged its key, its
  // `value_bytes` and kEntryOverhead.
  void Insert(absl::string_view key, Value value, size_t value_bytes) {
    if (!enabled()) return;
    const size_t bytes = key.size() + value_bytes + kEntryOverhead;
    Shard& shard = ShardOf(key);
    Map dropped;
    {
      absl::MutexLock lock(&shard.mu);
      if (auto it = shard.young.find(key); it != shard.young.end()) {
        // A write of what was just read (HSET, ZADD of a known member)
        // replaces the young entry where it is: one probe, no new key.
        Entry& entry = it->second;
        shard.young_bytes = shard.young_bytes - entry.bytes + bytes;
        total_bytes_.fetch_sub(entry.bytes, std::memory_order_relaxed);
        entry = Entry{std::move(value), bytes};
      } else {
        EraseFrom(shard.old, &shard.old_bytes, key);
        shard.young.emplace(std::string(key), Entry{std::move(value), bytes});
        shard.young_bytes += bytes;
      }
      total_bytes_.fetch_add(bytes, std::memory_order_relaxed);
      AgeIfFull(shard, &dropped);
    }
    Charge();
  }

  void Erase(absl::string_view key) {
    if (!enabled()) return;
    Shard& shard = ShardOf(key);
    bool erased;
    {
      absl::MutexLock lock(&shard.mu);
      erased = EraseLocked(shard, key);
    }
    if (erased) Charge();
  }

  // Every entry, in no order (for invariant checks: it copies the whole
  // cache). `visit` runs after each shard is let go.
  void ForEach(
      const std::function<void(absl::string_view key, const Value&)>& visit) {
    for (Shard& shard : shards_) {
      std::vector<std::pair<std::string, Value>> entries;
      {
        absl::MutexLock lock(&shard.mu);
        for (const Map* map : {&shard.young, &shard.old}) {
          for (const auto& [key, entry] : *map) {
            entries.emplace_back(key, entry.value);
          }
        }
      }
      for (const auto& [key, value] : entries) visit(key, value);
    }
  }

  uint64_t hits() const { return hits_.Total(); }
  uint64_t misses() const { return misses_.Total(); }
  // What the entries are charged, summed over the shards.
  size_t bytes() const { return total_bytes_.load(std::memory_order_relaxed); }
  // What the block cache is charged for them (whole CacheReservation steps).
  int64_t charged() const { return charge_.charged(); }

 private:
  struct Entry {
    Value value;
    size_t bytes = 0;
  };
  using Map = absl::flat_hash_map<std::string, Entry>;
  // A key is in at most one of a shard's two maps.
  struct alignas(64) Shard {
    absl::Mutex mu;
    Map young ABSL_GUARDED_BY(mu);
    Map old ABSL_GUARDED_BY(mu);
    size_t young_bytes ABSL_GUARDED_BY(mu) = 0;
    size_t old_bytes ABSL_GUARDED_BY(mu) = 0;
  };

  Shard& ShardOf(absl::string_view key) {
    // The map hashes the key again: the shard takes the top bits, the map
    // the low ones.
    return shards_[(absl::HashOf(key) >> 58) % kShards];
  }

  bool EraseLocked(Shard& shard, absl::string_view key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mu) {
    const bool young = EraseFrom(shard.young, &shard.young_bytes, key);
    const bool old = EraseFrom(shard.old, &shard.old_bytes, key);
    return young || old;
  }

  // Erases `key` from `map`, one of a shard's two (whose lock the caller
  // holds), taking its bytes off `*map_bytes` and the total.
  bool EraseFrom(Map& map, size_t* map_bytes, absl::string_view key) {
    auto it = map.find(key);
    if (it == map.end()) return false;
    *map_bytes -= it->second.bytes;
    total_bytes_.fetch_sub(it->second.bytes, std::memory_order_relaxed);
    map.erase(it);
    return true;
  }

  // When the young map passed half the shard's share: the old one goes
  // (into *dropped, freed by the caller after the lock) and the young one
  // takes its place.
  void AgeIfFull(Shard& shard, Map* dropped)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(shard.mu) {
    if (shard.young_bytes <= shard_max_bytes_ / 2) return;
    total_bytes_.fetch_sub(shard.old_bytes, std::memory_order_relaxed);
    dropped->swap(shard.old);
    shard.old.swap(shard.young);
    shard.old_bytes = shard.young_bytes;
    shard.young_bytes = 0;
  }

  // Charges the block cache what the shards hold now: more at once, less
  // only once two whole CacheReservation steps are free, so that a size
  // going back and forth across a step (a queue's pushes and pops) does
  // not insert and erase a placeholder in the block cache every time.
  void Charge() {
    const int64_t held = static_cast<int64_t>(bytes());
    const int64_t charged = charge_.charged();
    if (held > charged || held + 2 * CacheReservation::kStep < charged) {
      charge_.Set(held);
    }
  }

  const size_t shard_max_bytes_;
  std::array<Shard, kShards> shards_;
  std::atomic<size_t> total_bytes_{0};
  SpreadCounter hits_;
  SpreadCounter misses_;
  CacheReservation charge_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_MEMORY_GENERATIONAL_CACHE_H_
