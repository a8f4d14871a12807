#include "storage/memory/cache_reservation.h"

#include <utility>

namespace trackdb::storage {
namespace {

// The placeholder's value: the cache needs a non-null one and owns nothing.
char placeholder;

void DeleteNothing(const rocksdb::Slice&, void*) {}

}  // namespace

CacheReservation::CacheReservation(std::shared_ptr<rocksdb::Cache> cache,
                                   std::string name)
    : cache_(std::move(cache)) {
  if (cache_ == nullptr) return;
  // Keys no block key can equal: block keys are ids of 16 or more bytes.
  const uint64_t id = cache_->NewId();
  for (int i = 0; i < 8; ++i) {
    prefix_.push_back(static_cast<char>(id >> (8 * i)));
  }
  prefix_.append("trackdb:reservation:");
  prefix_.append(name);
  prefix_.push_back(':');
}

CacheReservation::~CacheReservation() {
  for (rocksdb::Cache::Handle* h : handles_) {
    cache_->Release(h, /*erase_if_last_ref=*/true);
  }
}

std::string CacheReservation::Key(size_t i) const {
  return prefix_ + std::to_string(i);
}

void CacheReservation::Set(int64_t bytes) {
  if (cache_ == nullptr) return;
  const int64_t want = bytes > 0 ? (bytes + kStep - 1) / kStep : 0;
  if (want == entries_.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(mu_);
  while (static_cast<int64_t>(handles_.size()) < want) {
    rocksdb::Cache::Handle* h = nullptr;
    if (!cache_
             ->Insert(Key(handles_.size()), &placeholder, kStep, &DeleteNothing,
                      &h)
             .ok()) {
      break;  // charges what it could; the next Set tries again
    }
    handles_.push_back(h);
  }
  while (static_cast<int64_t>(handles_.size()) > want) {
    cache_->Release(handles_.back(), /*erase_if_last_ref=*/true);
    handles_.pop_back();
  }
  entries_.store(static_cast<int64_t>(handles_.size()),
                 std::memory_order_relaxed);
}

}  // namespace trackdb::storage
