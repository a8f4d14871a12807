#ifndef TRACKDB_STORAGE_TYPED_CACHE_H_
#define TRACKDB_STORAGE_TYPED_CACHE_H_

// Keys of the `types` column family (storage/typed_codec.h: a hash's,
// set's, sorted set's or list's meta and members) and their stored values
// or their absence, kept in the store's one block cache beside blocks and
// charged to it, as the string cache keeps strings (storage/string_cache.h).
//
// Why: every typed command reads its key's meta, and most read a member
// (HSET and SADD to count new fields, ZADD the old score, LPOP the head):
// each a memtable skiplist and SST search, a third of trackd's CPU under
// redis-benchmark's hset. A hash lookup here answers most of them, and
// LRANGE's elements (exact keys, the list being contiguous) come from it
// without an iterator over every memtable and level.
//
// This class only stores; the write funnel keeps it true
// (storage/write_funnel.h, I8). Entries are keyed by a per-instance id
// from the cache plus the `types` key, as the string cache's are.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "rocksdb/cache.h"

namespace trackdb::storage {

class TypedCache {
 public:
  // Values longer than `max_value_bytes` are not cached; a null `cache` or
  // a zero limit turns caching off (every Lookup misses, Put does nothing).
  TypedCache(std::shared_ptr<rocksdb::Cache> cache, size_t max_value_bytes);

  bool enabled() const { return cache_ != nullptr; }

  // True when `key` is cached; then *value is its stored value, nullopt
  // when the key is absent from `types`. False says nothing about the key.
  bool Lookup(absl::string_view key, std::optional<std::string>* value);
  // Caches `value` (nullopt: absent) as key's, replacing any entry; a value
  // too long to cache erases the entry instead.
  void Put(absl::string_view key, const std::optional<std::string>& value);
  void Erase(absl::string_view key);
  // Every entry of this instance, in no order (for invariant checks: it
  // walks and copies the whole cache). `visit` runs after the walk.
  void ForEach(
      const std::function<void(absl::string_view key,
                               const std::optional<std::string>&)>& visit);

  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  uint64_t misses() const { return misses_.load(std::memory_order_relaxed); }

 private:
  std::string CacheKey(absl::string_view key) const;

  std::shared_ptr<rocksdb::Cache> cache_;
  size_t max_value_bytes_;
  std::string key_head_;  // every entry's key starts so: id | marker
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_TYPED_CACHE_H_
