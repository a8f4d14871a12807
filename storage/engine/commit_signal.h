#ifndef TRACKDB_STORAGE_ENGINE_COMMIT_SIGNAL_H_
#define TRACKDB_STORAGE_ENGINE_COMMIT_SIGNAL_H_

// Wakes whoever waits for the store's next write (a replica's pull waiting
// on its primary, storage/replication/replication.h). A commit with nobody waiting pays
// one atomic increment and one load.

#include <atomic>
#include <cstdint>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trackdb::storage {

class CommitSignal {
 public:
  // How many commits have signalled: read before checking what to wait
  // for, then pass to WaitPast.
  uint64_t generation() const { return generation_.load(); }
  void Notify() {
    generation_.fetch_add(1);
    if (waiters_.load() == 0) return;
    absl::MutexLock lock(&mu_);
    cond_.SignalAll();
  }
  // Waits until generation() > seen or `deadline`; whether it moved.
  bool WaitPast(uint64_t seen, absl::Time deadline) {
    waiters_.fetch_add(1);
    bool moved;
    {
      absl::MutexLock lock(&mu_);
      while (!(moved = generation_.load() > seen) &&
             !cond_.WaitWithDeadline(&mu_, deadline)) {
      }
      moved = generation_.load() > seen;
    }
    waiters_.fetch_sub(1);
    return moved;
  }

 private:
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> waiters_{0};
  absl::Mutex mu_;
  absl::CondVar cond_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_COMMIT_SIGNAL_H_
