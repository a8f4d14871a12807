#ifndef TRACKDB_STORAGE_MEMORY_BLOCK_CACHE_ENTRIES_H_
#define TRACKDB_STORAGE_MEMORY_BLOCK_CACHE_ENTRIES_H_

// Decoded values of trackdb's own kept in the store's one block cache,
// beside RocksDB's blocks and charged to it, so that they share the one
// memory bound (storage/engine/options.h) and its LRU eviction: what the string
// cache (storage/strings/string_cache.h) and the typed cache
// (storage/typed/typed_cache.h) are made of.
//
// Entries are keyed by a per-instance id from the cache, a marker naming
// their kind, and the caller's key: two instances sharing a cache never see
// each other's entries, and no key is 16 bytes long, the length of
// RocksDB's own block keys.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "rocksdb/cache.h"
#include "storage/memory/spread_counter.h"

namespace trackdb::storage {

template <typename Value>
class BlockCacheEntries {
 public:
  // A null `cache` turns caching off: every Lookup misses, Insert does
  // nothing. `marker` (at least 9 bytes) names the kind of entry.
  BlockCacheEntries(std::shared_ptr<rocksdb::Cache> cache,
                    absl::string_view marker)
      : cache_(std::move(cache)) {
    if (cache_ == nullptr) return;
    const uint64_t id = cache_->NewId();
    for (int i = 0; i < 8; ++i)
      head_.push_back(static_cast<char>(id >> (8 * i)));
    head_.append(marker.data(), marker.size());
  }

  bool enabled() const { return cache_ != nullptr; }

  // True when `key` is cached, with its value copied into *value.
  bool Lookup(absl::string_view key, Value* value) {
    if (cache_ == nullptr) return false;
    // The key is built in a buffer of this thread's: a lookup allocates
    // nothing but the copy of a hit's value.
    thread_local std::string buffer;
    buffer.assign(head_).append(key.data(), key.size());
    rocksdb::Cache::Handle* h = cache_->Lookup(buffer);
    if (h == nullptr) {
      misses_.Add();
      return false;
    }
    hits_.Add();
    *value = *static_cast<Value*>(cache_->Value(h));
    cache_->Release(h);
    return true;
  }
  // Caches `value` under `key`, replacing any entry, charged its key, its
  // `value_bytes` and a fixed overhead.
  void Insert(absl::string_view key, Value value, size_t value_bytes) {
    if (cache_ == nullptr) return;
    const std::string cache_key = CacheKey(key);
    auto* copy = new Value(std::move(value));
    const size_t charge = cache_key.size() + value_bytes + kEntryOverhead;
    // On failure (only with a strict capacity limit, which the store's
    // cache does not set) Insert has already deleted `copy`; the old entry
    // must not outlive it.
    if (!cache_->Insert(cache_key, copy, charge, &DeleteValue).ok()) {
      cache_->Erase(cache_key);
    }
  }
  void Erase(absl::string_view key) {
    if (cache_ != nullptr) cache_->Erase(CacheKey(key));
  }
  // Every entry of this instance, in no order (for invariant checks: it
  // walks and copies the whole cache). `visit` runs after the walk, so it
  // may use the cache (a DB read does) without deadlocking on the shard
  // the walk holds.
  void ForEach(
      const std::function<void(absl::string_view key, const Value&)>& visit) {
    if (cache_ == nullptr) return;
    std::vector<std::pair<std::string, Value>> entries;
    cache_->ApplyToAllEntries(
        [&](const rocksdb::Slice& key, void* value, size_t,
            rocksdb::Cache::DeleterFn deleter) {
          if (deleter != &DeleteValue || !key.starts_with(head_)) return;
          entries.emplace_back(
              std::string(key.data() + head_.size(), key.size() - head_.size()),
              *static_cast<const Value*>(value));
        },
        {});
    for (const auto& [key, value] : entries) visit(key, value);
  }

  uint64_t hits() const { return hits_.Total(); }
  uint64_t misses() const { return misses_.Total(); }

 private:
  // What an entry costs beyond its key and value bytes: the Value, the
  // cache's handle and hash-table slot.
  static constexpr size_t kEntryOverhead = 128;

  static void DeleteValue(const rocksdb::Slice&, void* value) {
    delete static_cast<Value*>(value);
  }
  std::string CacheKey(absl::string_view key) const {
    std::string out;
    out.reserve(head_.size() + key.size());
    out.append(head_).append(key.data(), key.size());
    return out;
  }

  std::shared_ptr<rocksdb::Cache> cache_;
  std::string head_;  // every entry's key starts so: id | marker
  SpreadCounter hits_;
  SpreadCounter misses_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_MEMORY_BLOCK_CACHE_ENTRIES_H_
