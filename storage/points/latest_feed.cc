#include "storage/points/latest_feed.h"

#include <algorithm>
#include <utility>

namespace trackdb::storage {

LatestFeed::Watch::~Watch() {
  if (feed_ == nullptr) return;
  absl::MutexLock l(&feed_->mu_);
  auto it = feed_->watched_.find(collection_);
  if (--it->second == 0) feed_->watched_.erase(it);
  if (feed_->watchers_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // The last watcher is gone: what the ring holds is nobody's news, and
    // a watcher that comes later starts from a snapshot anyway.
    feed_->ring_.clear();
    feed_->ring_bytes_ = 0;
  }
}

LatestFeed::Watch LatestFeed::StartWatch(absl::string_view collection) {
  absl::MutexLock l(&mu_);
  // Counted before the seq is read, under the lock Record takes: a change
  // applied after this is either recorded or has a seq >= from, so a
  // snapshot taken next shows it.
  ++watched_[collection];
  watchers_.fetch_add(1, std::memory_order_acq_rel);
  return Watch(this, std::string(collection), next_seq_);
}

void LatestFeed::Record(Update::Kind kind, absl::string_view collection,
                        absl::string_view entity,
                        const PointPosition& position) {
  absl::MutexLock l(&mu_);
  if (!watched_.contains(collection)) return;
  Update& u = ring_.emplace_back();
  u.seq = next_seq_++;
  u.kind = kind;
  u.collection = std::string(collection);
  u.entity = std::string(entity);
  u.position = position;
  ring_bytes_ += BytesOf(u);
  while (ring_.size() > kCapacity || ring_bytes_ > kMaxBytes) {
    ring_bytes_ -= BytesOf(ring_.front());
    ring_.pop_front();
  }
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
