#include "storage/typed/typed_cache.h"

#include <utility>

namespace trackdb::storage {

TypedCache::TypedCache(std::shared_ptr<rocksdb::Cache> cache,
                       size_t max_value_bytes)
    : max_value_bytes_(max_value_bytes),
      entries_(max_value_bytes > 0 && cache != nullptr
                   ? cache->GetCapacity() / kShareOfBlockCache
                   : 0,
               cache, "typed_cache") {}

bool TypedCache::LookupForRead(absl::string_view key,
                               std::optional<std::string>* value) {
  if (!entries_.enabled()) return false;
  if (front_.Lookup(key, value)) return true;
  const uint64_t seen = front_.Seen(key);
  if (!entries_.Lookup(key, value)) return false;
  front_.Admit(key, *value, seen);
  return true;
}

// The threads' copies are outdated after the shared entry changed, never
// before: a reader between the two would copy the old entry under the new
// version (storage/memory/read_front.h).
void TypedCache::Put(absl::string_view key,
                     const std::optional<std::string>& value) {
  const size_t bytes = value ? value->size() : 0;
  if (bytes > max_value_bytes_) {
    entries_.Erase(key);
  } else {
    entries_.Insert(key, value, bytes);
  }
  front_.Changed(key);
}

void TypedCache::Erase(absl::string_view key) {
  entries_.Erase(key);
  front_.Changed(key);
}

}  // namespace trackdb::storage
