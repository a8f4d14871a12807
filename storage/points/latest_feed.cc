#include "storage/points/latest_feed.h"

#include <algorithm>
#include <utility>

namespace trackdb::storage {

LatestFeed::Watch::~Watch() {
  if (feed_ == nullptr) return;
  if (feed_->watchers_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // The last watcher is gone: what the ring holds is nobody's news, and
    // a watcher that comes later starts from a snapshot anyway.
    absl::MutexLock l(&feed_->mu_);
    if (feed_->watchers_.load(std::memory_order_acquire) == 0) {
      feed_->ring_.clear();
    }
  }
}

LatestFeed::Watch LatestFeed::StartWatch() {
  // Counted before the seq is read: a change applied after that is either
  // recorded or has a seq >= from, so a snapshot taken next shows it.
  watchers_.fetch_add(1, std::memory_order_acq_rel);
  absl::MutexLock l(&mu_);
  return Watch(this, next_seq_);
}

void LatestFeed::Record(Update::Kind kind, absl::string_view collection,
                        absl::string_view entity,
                        const PointPosition& position) {
  absl::MutexLock l(&mu_);
  if (ring_.size() == kCapacity) ring_.pop_front();
  Update& u = ring_.emplace_back();
  u.seq = next_seq_++;
  u.kind = kind;
  u.collection = std::string(collection);
  u.entity = std::string(entity);
  u.position = position;
}

uint64_t LatestFeed::next_seq() const {
  absl::MutexLock l(&mu_);
  return next_seq_;
}

LatestFeed::Batch LatestFeed::Read(absl::string_view collection,
                                   uint64_t from, size_t max,
                                   absl::Time deadline) {
  Batch batch;
  absl::MutexLock l(&mu_);
  auto arrived = [this, from]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return next_seq_ > from;
  };
  mu_.AwaitWithDeadline(absl::Condition(&arrived), deadline);
  batch.next = std::max(from, next_seq_);
  if (from >= next_seq_) {
    batch.next = from;
    return batch;
  }
  const uint64_t oldest = ring_.empty() ? next_seq_ : ring_.front().seq;
  if (from < oldest) {
    batch.lost = true;
    batch.next = next_seq_;
    return batch;
  }
  for (size_t i = from - oldest; i < ring_.size(); ++i) {
    const Update& u = ring_[i];
    batch.next = u.seq + 1;
    if (u.collection != collection) continue;
    batch.updates.push_back(u);
    if (batch.updates.size() == max) break;
  }
  return batch;
}

}  // namespace trackdb::storage
