#include "service/jobs/retention_trimmer.h"

#include <cstdio>
#include <string>

#include "absl/time/clock.h"
#include "storage/replication/replication.h"

namespace trackdb::service {
namespace {

// A failed pass (a disk error) removes nothing; the next one retries.
void LogFailure(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "trackd: %s: %s\n", what,
               std::string(status.message()).c_str());
}

}  // namespace

RetentionTrimmer::RetentionTrimmer(storage::TrackStore* store,
                                   absl::Duration interval)
    : store_(store), interval_(interval) {
  thread_.Start([this] { Run(); });
}

uint64_t RetentionTrimmer::fence_events_removed() const {
  absl::MutexLock lock(&mu_);
  return fence_events_removed_;
}

uint64_t RetentionTrimmer::entities_expired() const {
  absl::MutexLock lock(&mu_);
  return entities_expired_;
}

uint64_t RetentionTrimmer::points_trimmed() const {
  absl::MutexLock lock(&mu_);
  return points_trimmed_;
}

void RetentionTrimmer::Pass() {
  // A replica's history is trimmed when its primary's is (replicated).
  if (storage::IsReplica(*store_)) return;
  const absl::Time now = absl::Now();
  absl::StatusOr<uint64_t> removed = store_->fences().TrimLogs(now);
  if (!removed.ok()) LogFailure("trimming fence event logs", removed.status());
  absl::StatusOr<int64_t> expired =
      store_->retention().ExpireEntities(absl::ToUnixMillis(now));
  if (!expired.ok()) LogFailure("expiring entities", expired.status());
  absl::StatusOr<int64_t> trimmed = store_->retention().TrimHistories();
  if (!trimmed.ok()) LogFailure("trimming histories", trimmed.status());
  absl::MutexLock lock(&mu_);
  if (removed.ok()) fence_events_removed_ += *removed;
  if (expired.ok()) entities_expired_ += static_cast<uint64_t>(*expired);
  if (trimmed.ok()) points_trimmed_ += static_cast<uint64_t>(*trimmed);
}

void RetentionTrimmer::Run() {
  do {
    Pass();
  } while (thread_.WaitFor(interval_));
}

}  // namespace trackdb::service
