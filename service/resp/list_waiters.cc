#include "service/resp/list_waiters.h"

namespace trackdb::resp {

uint64_t ListWaiters::generation() const {
  absl::MutexLock l(&mu_);
  return generation_;
}

void ListWaiters::NotifyPush() {
  if (registered_.load() == 0) return;
  absl::MutexLock l(&mu_);
  ++generation_;
  pushed_.SignalAll();
}

bool ListWaiters::WaitForPush(uint64_t seen, absl::Time until) {
  absl::MutexLock l(&mu_);
  while (!stopped_ && generation_ == seen) {
    if (pushed_.WaitWithDeadline(&mu_, until)) break;  // timed out
  }
  return !stopped_;
}

void ListWaiters::Stop() {
  absl::MutexLock l(&mu_);
  stopped_ = true;
  pushed_.SignalAll();
}

}  // namespace trackdb::resp
