#include "storage/fences/fence_registry.h"

#include <algorithm>
#include <utility>

namespace trackdb::storage {

void CollectionFences::Put(fence::Fence f) {
  Remove(f.name);
  const uint64_t id = next_id++;
  if (f.shape) index.Add(id, *f.shape);
  if (!f.shape || f.Detects(v1::FENCE_EVENT_OUTSIDE)) every_fix.push_back(id);
  if (f.Detects(v1::FENCE_EVENT_CROSS)) ++crossing;
  ids[f.name] = id;
  fences.emplace(id, std::move(f));
}

bool CollectionFences::Remove(const std::string& name) {
  auto it = ids.find(name);
  if (it == ids.end()) return false;
  const uint64_t id = it->second;
  ids.erase(it);
  index.Remove(id);
  every_fix.erase(std::remove(every_fix.begin(), every_fix.end(), id),
                  every_fix.end());
  auto f = fences.find(id);
  if (f->second.Detects(v1::FENCE_EVENT_CROSS)) --crossing;
  fences.erase(f);
  return true;
}

void CollectionFences::MayHaveStates(absl::string_view entity, bool may) {
  absl::MutexLock lock(&states_mu_);
  if (may) {
    with_states_.emplace(entity);
  } else {
    with_states_.erase(entity);
  }
}

bool CollectionFences::MayHaveStates(absl::string_view entity) const {
  absl::MutexLock lock(&states_mu_);
  return with_states_.contains(entity);
}

uint64_t CollectionFences::Reserve(uint64_t n) {
  absl::MutexLock lock(&mu_);
  const uint64_t first = next_offset_;
  next_offset_ += n;
  in_flight_.insert(first);
  return first;
}

void CollectionFences::Release(uint64_t first) {
  {
    absl::MutexLock lock(&mu_);
    in_flight_.erase(first);
  }
  if (clock != nullptr) clock->Tick();
}

uint64_t CollectionFences::VisibleLocked() const {
  return in_flight_.empty() ? next_offset_ : *in_flight_.begin();
}

uint64_t CollectionFences::visible() const {
  absl::MutexLock lock(&mu_);
  return VisibleLocked();
}

uint64_t CollectionFences::first_kept() const {
  absl::MutexLock lock(&mu_);
  return first_kept_;
}

bool CollectionFences::WaitUntilReadable(uint64_t offset,
                                         absl::Time deadline) const {
  absl::MutexLock lock(&mu_);
  auto beyond = [this, offset]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return VisibleLocked() > offset;
  };
  return mu_.AwaitWithDeadline(absl::Condition(&beyond), deadline);
}

void CollectionFences::SetLoaded(uint64_t first_kept, uint64_t next) {
  absl::MutexLock lock(&mu_);
  first_kept_ = first_kept;
  next_offset_ = next;
}

void CollectionFences::SetFirstKept(uint64_t first) {
  absl::MutexLock lock(&mu_);
  first_kept_ = std::max(first_kept_, first);
}

uint64_t FenceLogClock::ticks() const {
  absl::MutexLock lock(&mu_);
  return ticks_;
}

void FenceLogClock::Tick() {
  absl::MutexLock lock(&mu_);
  ++ticks_;
}

bool FenceLogClock::WaitPast(uint64_t seen, absl::Time deadline) const {
  absl::MutexLock lock(&mu_);
  auto moved = [this, seen]()
                   ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return ticks_ > seen; };
  return mu_.AwaitWithDeadline(absl::Condition(&moved), deadline);
}

std::vector<std::pair<std::string, uint64_t>> FenceRegistry::LogEnds() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  absl::ReaderMutexLock lock(&mu_);
  out.reserve(by_name_.size());
  for (const auto& [name, f] : by_name_) out.emplace_back(name, f->visible());
  return out;
}

CollectionFences* FenceRegistry::Find(absl::string_view collection) const {
  if (empty()) return nullptr;
  absl::ReaderMutexLock lock(&mu_);
  auto it = by_name_.find(collection);
  return it == by_name_.end() ? nullptr : it->second.get();
}

CollectionFences& FenceRegistry::FindOrAdd(absl::string_view collection) {
  absl::MutexLock lock(&mu_);
  auto& slot = by_name_[collection];
  if (!slot) {
    slot = std::make_unique<CollectionFences>();
    slot->clock = &clock_;
    count_.fetch_add(1, std::memory_order_release);
  }
  return *slot;
}

}  // namespace trackdb::storage
