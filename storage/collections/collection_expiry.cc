#include "storage/collections/collection_expiry.h"

namespace trackdb::storage {

int64_t CollectionExpiries::Get(absl::string_view collection) const {
  if (size() == 0) return 0;
  absl::MutexLock l(&mu_);
  auto it = at_.find(collection);
  return it == at_.end() ? 0 : it->second;
}

void CollectionExpiries::Set(absl::string_view collection, int64_t at_ms) {
  absl::MutexLock l(&mu_);
  if (at_ms == 0) {
    at_.erase(collection);
  } else {
    at_[collection] = at_ms;
  }
  size_.store(at_.size(), std::memory_order_release);
}

std::vector<std::string> CollectionExpiries::AllDue(int64_t now_ms) const {
  std::vector<std::string> due;
  if (size() == 0) return due;
  absl::MutexLock l(&mu_);
  for (const auto& [collection, at] : at_) {
    if (at <= now_ms) due.push_back(collection);
  }
  return due;
}

}  // namespace trackdb::storage
