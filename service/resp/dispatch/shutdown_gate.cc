#include "service/resp/dispatch/shutdown_gate.h"

#include <utility>

namespace trackdb::resp {

void ShutdownGate::set_stop(ProcessStop stop) {
  absl::MutexLock l(&mu_);
  stop_ = std::move(stop);
}

bool ShutdownGate::Begin() {
  absl::MutexLock l(&mu_);
  if (in_progress_ || !stop_ || stopped_) return false;
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
  waiting_ = true;
  const auto ends = [this] { return aborted_ || stopped_; };
  while (!ends() && !done() && absl::Now() < deadline) {
    mu_.AwaitWithTimeout(absl::Condition(&ends), kPoll);
  }
  waiting_ = false;
  if (!aborted_) return true;
  in_progress_ = false;
  return false;
}

bool ShutdownGate::Abort() {
  absl::MutexLock l(&mu_);
  if (!waiting_) return false;
  aborted_ = true;
  return true;
}

void ShutdownGate::Cancel() {
  absl::MutexLock l(&mu_);
  in_progress_ = false;
}

void ShutdownGate::Finish() {
  ProcessStop stop;
  {
    absl::MutexLock l(&mu_);
    if (stopped_) return;
    stop = stop_;
  }
  stop();
}

void ShutdownGate::Stop() {
  absl::MutexLock l(&mu_);
  stopped_ = true;
}

}  // namespace trackdb::resp
