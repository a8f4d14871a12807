#include "service/jobs/stoppable_thread.h"

#include <utility>

#include "absl/base/internal/raw_logging.h"

namespace trackdb::service {

void StoppableThread::Start(std::function<void()> body) {
  // A second thread would replace a joinable std::thread: terminate.
  ABSL_RAW_CHECK(!thread_.joinable(), "StoppableThread started twice");
  thread_ = std::thread(std::move(body));
}

void StoppableThread::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

bool StoppableThread::Stopped() const {
  absl::MutexLock lock(&mu_);
  return stop_;
}

bool StoppableThread::WaitFor(absl::Duration d) const {
  absl::MutexLock lock(&mu_);
  return !mu_.AwaitWithTimeout(absl::Condition(&stop_), d);
}

}  // namespace trackdb::service
