#include "storage/typed_cache.h"

#include <utility>
#include <vector>

namespace trackdb::storage {
namespace {

// Marks our entries apart from RocksDB's (16-byte keys) and the string
// cache's ("trackdb:s"): with the 8-byte id before it, every key is at
// least 17 bytes long.
constexpr char kMarker[] = "trackdb:t";
constexpr size_t kMarkerLen = sizeof(kMarker) - 1;

// What an entry costs beyond its key and value bytes: the optional string,
// the cache's handle and hash-table slot.
constexpr size_t kEntryOverhead = 128;

using Cached = std::optional<std::string>;

void DeleteValue(const rocksdb::Slice&, void* value) {
  delete static_cast<Cached*>(value);
}

}  // namespace

TypedCache::TypedCache(std::shared_ptr<rocksdb::Cache> cache,
                       size_t max_value_bytes)
    : cache_(max_value_bytes > 0 ? std::move(cache) : nullptr),
      max_value_bytes_(max_value_bytes) {
  if (cache_ == nullptr) return;
  const uint64_t id = cache_->NewId();
  for (int i = 0; i < 8; ++i)
    key_head_.push_back(static_cast<char>(id >> (8 * i)));
  key_head_.append(kMarker, kMarkerLen);
}

std::string TypedCache::CacheKey(absl::string_view key) const {
  std::string out;
  out.reserve(key_head_.size() + key.size());
  out.append(key_head_);
  out.append(key.data(), key.size());
  return out;
}

bool TypedCache::Lookup(absl::string_view key, Cached* value) {
  if (cache_ == nullptr) return false;
  rocksdb::Cache::Handle* h = cache_->Lookup(CacheKey(key));
  if (h == nullptr) {
    misses_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  hits_.fetch_add(1, std::memory_order_relaxed);
  *value = *static_cast<Cached*>(cache_->Value(h));
  cache_->Release(h);
  return true;
}

void TypedCache::Put(absl::string_view key, const Cached& value) {
  if (cache_ == nullptr) return;
  const std::string cache_key = CacheKey(key);
  const size_t bytes = value ? value->size() : 0;
  if (bytes > max_value_bytes_) {
    cache_->Erase(cache_key);
    return;
  }
  auto* copy = new Cached(value);
  const size_t charge = cache_key.size() + bytes + kEntryOverhead;
  // On failure (only with a strict capacity limit, which the store's cache
  // does not set) Insert has already deleted `copy`; the old entry must not
  // outlive it.
  if (!cache_->Insert(cache_key, copy, charge, &DeleteValue).ok()) {
    cache_->Erase(cache_key);
  }
}

void TypedCache::Erase(absl::string_view key) {
  if (cache_ != nullptr) cache_->Erase(CacheKey(key));
}

void TypedCache::ForEach(
    const std::function<void(absl::string_view, const Cached&)>& visit) {
  if (cache_ == nullptr) return;
  // The cache walks each shard holding its mutex: copy first, so `visit`
  // may use the cache (a DB read does) without deadlocking on that shard.
  std::vector<std::pair<std::string, Cached>> entries;
  const std::string prefix = CacheKey("");
  cache_->ApplyToAllEntries(
      [&](const rocksdb::Slice& key, void* value, size_t,
          rocksdb::Cache::DeleterFn deleter) {
        if (deleter != &DeleteValue || !key.starts_with(prefix)) return;
        entries.emplace_back(
            std::string(key.data() + prefix.size(), key.size() - prefix.size()),
            *static_cast<const Cached*>(value));
      },
      {});
  for (const auto& [key, value] : entries) visit(key, value);
}

}  // namespace trackdb::storage
