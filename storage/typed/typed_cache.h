#ifndef TRACKDB_STORAGE_TYPED_TYPED_CACHE_H_
#define TRACKDB_STORAGE_TYPED_TYPED_CACHE_H_

// Keys of the `types` column family (storage/format/typed_codec.h: a hash's,
// set's, sorted set's or list's meta and members) and their stored values
// or their absence, kept in hash maps of their own (storage/
// generational_cache.h) of at most a quarter of the block cache's capacity
// and charged to the block cache, so that the memory budget holds them.
// (The string cache keeps its entries in the block cache itself,
// storage/strings/string_cache.h; a member lookup there cost twice as much.)
//
// Why: every typed command reads its key's meta, and most read a member
// (HSET and SADD to count new fields, ZADD the old score, LPOP the head):
// each a memtable skiplist and SST search, a third of trackd's CPU under
// redis-benchmark's hset. A hash lookup here answers most of them, and
// LRANGE's elements (exact keys, the list being contiguous) come from it
// without an iterator over every memtable and level.
//
// This class only stores; the write funnel keeps it true
// (storage/write_funnel.h, I8): every Put and Erase also outdates the
// threads' copies of the key (storage/memory/read_front.h). Entries are keyed by the
// `types` key.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "rocksdb/cache.h"
#include "storage/memory/generational_cache.h"
#include "storage/memory/read_front.h"

namespace trackdb::storage {

class TypedCache {
 public:
  // The share of the block cache's capacity the entries may take.
  static constexpr size_t kShareOfBlockCache = 4;  // a quarter

  // Values longer than `max_value_bytes` are not cached; a null `cache` or
  // a zero limit turns caching off (every Lookup misses, Put does nothing).
  TypedCache(std::shared_ptr<rocksdb::Cache> cache, size_t max_value_bytes);

  bool enabled() const { return entries_.enabled(); }

  // True when `key` is cached; then *value is its stored value, nullopt
  // when the key is absent from `types`. False says nothing about the key.
  bool Lookup(absl::string_view key, std::optional<std::string>* value) {
    return entries_.Lookup(key, value);
  }
  // Lookup for a read that other reads of the same keys are likely to
  // repeat (a read-only transaction's): answered from the calling thread's
  // copy when it has a current one (storage/memory/read_front.h), and a shared hit
  // is copied there.
  bool LookupForRead(absl::string_view key, std::optional<std::string>* value);
  // Caches `value` (nullopt: absent) as key's, replacing any entry; a value
  // too long to cache erases the entry instead.
  void Put(absl::string_view key, const std::optional<std::string>& value);
  void Erase(absl::string_view key);
  // Every entry of this instance, in no order (for invariant checks: it
  // walks and copies the whole cache), then the calling thread's current
  // copies. `visit` runs after the walk.
  void ForEach(
      const std::function<void(absl::string_view key,
                               const std::optional<std::string>&)>& visit) {
    entries_.ForEach(visit);
    front_.ForEachOnThisThread(visit);
  }

  // Lookups of the shared cache (a thread's copy answers without one).
  uint64_t hits() const { return entries_.hits(); }
  uint64_t misses() const { return entries_.misses(); }
  // What the entries take, and what the block cache is charged for them.
  size_t bytes() const { return entries_.bytes(); }
  int64_t charged() const { return entries_.charged(); }
  // For tests.
  const ReadFront& front() const { return front_; }

 private:
  size_t max_value_bytes_;
  GenerationalCache<std::optional<std::string>> entries_;
  ReadFront front_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_TYPED_TYPED_CACHE_H_
