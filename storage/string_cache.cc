#include "storage/string_cache.h"

#include <utility>
#include <vector>

namespace trackdb::storage {
namespace {

// Marks our entries apart from RocksDB's (whose keys are 16 bytes): with the
// 8-byte id before it, every key is at least 17 bytes long.
constexpr char kMarker[] = "trackdb:s";  // 9 bytes with the NUL dropped
constexpr size_t kMarkerLen = sizeof(kMarker) - 1;

// What an entry costs beyond its key and value bytes: the StringValue, the
// cache's handle and hash-table slot.
constexpr size_t kEntryOverhead = 128;

void DeleteValue(const rocksdb::Slice&, void* value) {
  delete static_cast<StringValue*>(value);
}

}  // namespace

StringCache::StringCache(std::shared_ptr<rocksdb::Cache> cache,
                         size_t max_value_bytes)
    : cache_(max_value_bytes > 0 ? std::move(cache) : nullptr),
      max_value_bytes_(max_value_bytes) {
  if (cache_ != nullptr) id_ = cache_->NewId();
}

std::string StringCache::Key(absl::string_view name) const {
  std::string key;
  key.reserve(8 + kMarkerLen + name.size());
  for (int i = 0; i < 8; ++i) key.push_back(static_cast<char>(id_ >> (8 * i)));
  key.append(kMarker, kMarkerLen);
  key.append(name.data(), name.size());
  return key;
}

std::optional<StringValue> StringCache::Lookup(absl::string_view name) {
  if (cache_ == nullptr) return std::nullopt;
  rocksdb::Cache::Handle* h = cache_->Lookup(Key(name));
  if (h == nullptr) {
    misses_.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }
  hits_.fetch_add(1, std::memory_order_relaxed);
  std::optional<StringValue> v = *static_cast<StringValue*>(cache_->Value(h));
  cache_->Release(h);
  return v;
}

void StringCache::Put(absl::string_view name, const StringValue& value) {
  if (cache_ == nullptr) return;
  const std::string key = Key(name);
  if (value.value.size() > max_value_bytes_) {
    cache_->Erase(key);
    return;
  }
  auto* copy = new StringValue(value);
  const size_t charge = key.size() + value.value.size() + kEntryOverhead;
  // On failure (only with a strict capacity limit, which the store's cache
  // does not set) Insert has already deleted `copy`; the old entry must not
  // outlive it.
  if (!cache_->Insert(key, copy, charge, &DeleteValue).ok()) {
    cache_->Erase(key);
  }
}

void StringCache::Erase(absl::string_view name) {
  if (cache_ != nullptr) cache_->Erase(Key(name));
}

void StringCache::ForEach(
    const std::function<void(absl::string_view, const StringValue&)>& visit) {
  if (cache_ == nullptr) return;
  // The cache walks each shard holding its mutex: copy first, so `visit`
  // may use the cache (a DB read does) without deadlocking on that shard.
  std::vector<std::pair<std::string, StringValue>> entries;
  const std::string prefix = Key("");
  cache_->ApplyToAllEntries(
      [&](const rocksdb::Slice& key, void* value, size_t,
          rocksdb::Cache::DeleterFn deleter) {
        if (deleter != &DeleteValue || !key.starts_with(prefix)) return;
        entries.emplace_back(
            std::string(key.data() + prefix.size(), key.size() - prefix.size()),
            *static_cast<const StringValue*>(value));
      },
      {});
  for (const auto& [name, value] : entries) visit(name, value);
}

}  // namespace trackdb::storage
