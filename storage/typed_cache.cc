#include "storage/typed_cache.h"

#include <utility>

namespace trackdb::storage {

TypedCache::TypedCache(std::shared_ptr<rocksdb::Cache> cache,
                       size_t max_value_bytes)
    : max_value_bytes_(max_value_bytes),
      entries_(max_value_bytes > 0 ? std::move(cache) : nullptr, "trackdb:t") {}

void TypedCache::Put(absl::string_view key,
                     const std::optional<std::string>& value) {
  const size_t bytes = value ? value->size() : 0;
  if (bytes > max_value_bytes_) return entries_.Erase(key);
  entries_.Insert(key, value, bytes);
}

}  // namespace trackdb::storage
