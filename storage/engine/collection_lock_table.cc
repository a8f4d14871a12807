#include "storage/engine/collection_lock_table.h"

#include <algorithm>
#include <functional>

#include "absl/hash/hash.h"

namespace trackdb::storage {

absl::Mutex& CollectionLockTable::For(absl::string_view collection) {
  return locks_[absl::HashOf(collection) % locks_.size()];
}

std::vector<absl::Mutex*> CollectionLockTable::ForAll(
    absl::Span<const std::string> names) {
  std::vector<absl::Mutex*> locks;
  locks.reserve(names.size());
  for (const std::string& name : names) locks.push_back(&For(name));
  std::sort(locks.begin(), locks.end(), std::less<absl::Mutex*>());
  locks.erase(std::unique(locks.begin(), locks.end()), locks.end());
  return locks;
}

}  // namespace trackdb::storage
