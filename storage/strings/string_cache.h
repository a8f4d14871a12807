#ifndef TRACKDB_STORAGE_STRINGS_STRING_CACHE_H_
#define TRACKDB_STORAGE_STRINGS_STRING_CACHE_H_

// Decoded string values (the Redis key path's `kv` column family) kept in
// the store's one block cache, beside blocks and charged to it, so they
// share the one memory bound (storage/engine/options.h) and its LRU eviction.
//
// Why: a GET or SET that finds its value in a memtable still walks a
// skiplist of every recent write, a few cache misses per level; that walk
// was half of trackd's CPU under redis-benchmark -P 16. A hash lookup here
// answers in one.
//
// A name known to have no value is cached too, as absent: the type check
// every hash, set, sorted-set and list command makes on a missing key (is
// it a string?) and a GET of a missing key then answer without a read.
//
// This class only stores; TrackStore keeps it true (track_store.h, I5).
// Entries are keyed by name (storage/memory/block_cache_entries.h).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "rocksdb/cache.h"
#include "storage/memory/block_cache_entries.h"
#include "storage/format/kv_codec.h"

namespace trackdb::storage {

class StringCache {
 public:
  // Values longer than `max_value_bytes` are not cached; a null `cache` or
  // a zero limit turns caching off (every Lookup misses, Put does nothing).
  StringCache(std::shared_ptr<rocksdb::Cache> cache, size_t max_value_bytes);

  bool enabled() const { return entries_.enabled(); }

  // The cached value of `name`, expired or not; nullopt if none is cached
  // (which says nothing about whether the name has a value).
  std::optional<StringValue> Lookup(absl::string_view name);
  // Lookup that also tells a name cached as absent: nullopt if nothing is
  // cached, else the cached value or absence.
  std::optional<std::optional<StringValue>> Find(absl::string_view name);
  // Caches `value` as name's value, replacing any entry; a value too long
  // to cache erases the entry instead.
  void Put(absl::string_view name, const StringValue& value);
  // Caches that `name` has no value, replacing any entry.
  void PutAbsent(absl::string_view name) {
    entries_.Insert(name, std::nullopt, 0);
  }
  void Erase(absl::string_view name) { entries_.Erase(name); }
  // Every entry of this instance, in no order (for invariant checks: it
  // walks and copies the whole cache). `visit` runs after the walk, so it
  // may use the cache.
  // An absent entry is visited as nullopt.
  void ForEach(
      const std::function<void(absl::string_view name,
                               const std::optional<StringValue>&)>& visit) {
    entries_.ForEach(visit);
  }

  uint64_t hits() const { return entries_.hits(); }
  uint64_t misses() const { return entries_.misses(); }

 private:
  size_t max_value_bytes_;
  BlockCacheEntries<std::optional<StringValue>> entries_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_STRINGS_STRING_CACHE_H_
