#ifndef TRACKDB_SERVICE_JOBS_STOPPABLE_THREAD_H_
#define TRACKDB_SERVICE_JOBS_STOPPABLE_THREAD_H_

// A background thread that its owner stops: the body polls Stopped() or
// sleeps in WaitFor(), which returns early once Stop() is called, so that
// stopping never waits out a sleep. The destructor stops and joins; an
// owner declares its StoppableThread last among its members, so that the
// thread ends before anything it uses is destroyed.

#include <functional>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trackdb::service {

class StoppableThread {
 public:
  StoppableThread() = default;
  StoppableThread(const StoppableThread&) = delete;
  StoppableThread& operator=(const StoppableThread&) = delete;
  ~StoppableThread() { Stop(); }

  // Runs `body` on a new thread; at most once.
  void Start(std::function<void()> body);
  // Wakes a WaitFor under way and joins the thread; idempotent.
  void Stop();

  bool Stopped() const;
  // Sleeps up to `d`; false if stopped before or during it.
  bool WaitFor(absl::Duration d) const;

 private:
  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_JOBS_STOPPABLE_THREAD_H_
