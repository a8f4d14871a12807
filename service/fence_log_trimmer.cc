#include "service/fence_log_trimmer.h"

#include <cstdio>
#include <string>

#include "absl/time/clock.h"

namespace trackdb::service {

FenceLogTrimmer::FenceLogTrimmer(storage::TrackStore* store,
                                 absl::Duration interval)
    : store_(store), interval_(interval) {
  thread_.Start([this] { Run(); });
}

uint64_t FenceLogTrimmer::removed() const {
  absl::MutexLock lock(&mu_);
  return removed_;
}

void FenceLogTrimmer::Run() {
  do {
    absl::StatusOr<uint64_t> removed = store_->TrimFenceLogs(absl::Now());
    if (!removed.ok()) {
      // A failed pass (a disk error) removes nothing; the next one retries.
      std::fprintf(stderr, "trackd: trimming fence event logs: %s\n",
                   std::string(removed.status().message()).c_str());
    }
    if (removed.ok()) {
      absl::MutexLock lock(&mu_);
      removed_ += *removed;
    }
  } while (thread_.WaitFor(interval_));
}

}  // namespace trackdb::service
