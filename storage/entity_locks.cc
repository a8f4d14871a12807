#include "storage/entity_locks.h"

#include <algorithm>

#include "absl/hash/hash.h"

namespace trackdb::storage {

size_t EntityLocks::StripeOf(absl::string_view collection,
                             absl::string_view entity) {
  return absl::HashOf(collection, entity) % kStripes;
}

EntityLocks::Held EntityLocks::Lock(std::vector<size_t> stripes) {
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  for (size_t s : stripes) mutexes_[s].lock();
  return Held(this, std::move(stripes));
}

EntityLocks::Held::Held(EntityLocks* owner, std::vector<size_t> stripes)
    : owner_(owner), stripes_(std::move(stripes)) {}

EntityLocks::Held::~Held() {
  for (auto it = stripes_.rbegin(); it != stripes_.rend(); ++it) {
    owner_->mutexes_[*it].unlock();
  }
}

}  // namespace trackdb::storage
