#include "service/resp/dispatch/shutdown_gate.h"

#include <utility>

namespace trackdb::resp {

void ShutdownGate::set_stop(Stop stop) {
  absl::MutexLock l(&mu_);
  stop_ = std::move(stop);
}

bool ShutdownGate::Begin() {
  absl::MutexLock l(&mu_);
  if (in_progress_ || !stop_) return false;
  in_progress_ = true;
  aborted_ = false;
  return true;
}

bool ShutdownGate::Wait(const std::function<bool()>& done,
                        absl::Time deadline) {
  // `done` reads other state (the replicas' acks), which signals nothing
  // here: it is polled.
  constexpr absl::Duration kPoll = absl::Milliseconds(10);
  absl::MutexLock l(&mu_);
  while (!aborted_ && !done() && absl::Now() < deadline) {
    mu_.AwaitWithTimeout(absl::Condition(&aborted_), kPoll);
  }
  if (!aborted_) return true;
  in_progress_ = false;
  return false;
}

bool ShutdownGate::Abort() {
  absl::MutexLock l(&mu_);
  if (!in_progress_ || finished_) return false;
  aborted_ = true;
  return true;
}

void ShutdownGate::Cancel() {
  absl::MutexLock l(&mu_);
  in_progress_ = false;
}

void ShutdownGate::Finish() {
  Stop stop;
  {
    absl::MutexLock l(&mu_);
    finished_ = true;
    stop = stop_;
  }
  stop();
}

}  // namespace trackdb::resp
