#include "storage/strings/string_cache.h"

#include <utility>

namespace trackdb::storage {

StringCache::StringCache(std::shared_ptr<rocksdb::Cache> cache,
                         size_t max_value_bytes)
    : max_value_bytes_(max_value_bytes),
      entries_(max_value_bytes > 0 ? std::move(cache) : nullptr, "trackdb:s") {}

std::optional<StringValue> StringCache::Lookup(absl::string_view name) {
  std::optional<std::optional<StringValue>> cached = Find(name);
  return cached ? *std::move(cached) : std::nullopt;
}

std::optional<std::optional<StringValue>> StringCache::Find(
    absl::string_view name) {
  std::optional<StringValue> value;
  if (!entries_.Lookup(name, &value)) return std::nullopt;
  return value;
}

void StringCache::Put(absl::string_view name, const StringValue& value) {
  if (value.value.size() > max_value_bytes_) return entries_.Erase(name);
  entries_.Insert(name, value, value.value.size());
}

}  // namespace trackdb::storage
