#include "service/fence_log_trimmer.h"

#include <cstdio>
#include <string>

#include "absl/time/clock.h"

namespace trackdb::service {

FenceLogTrimmer::FenceLogTrimmer(storage::TrackStore* store,
                                 absl::Duration interval)
    : store_(store), interval_(interval) {
  thread_ = std::thread([this] { Run(); });
}

FenceLogTrimmer::~FenceLogTrimmer() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

uint64_t FenceLogTrimmer::removed() const {
  absl::MutexLock lock(&mu_);
  return removed_;
}

void FenceLogTrimmer::Run() {
  for (;;) {
    absl::StatusOr<uint64_t> removed = store_->TrimFenceLogs(absl::Now());
    if (!removed.ok()) {
      // A failed pass (a disk error) removes nothing; the next one retries.
      std::fprintf(stderr, "trackd: trimming fence event logs: %s\n",
                   std::string(removed.status().message()).c_str());
    }
    absl::MutexLock lock(&mu_);
    if (removed.ok()) removed_ += *removed;
    if (mu_.AwaitWithTimeout(absl::Condition(&stop_), interval_)) return;
  }
}

}  // namespace trackdb::service
