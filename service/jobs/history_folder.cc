#include "service/jobs/history_folder.h"

#include <cstdio>
#include <string>

#include "absl/time/clock.h"
#include "storage/replication/replication.h"

namespace trackdb::service {

HistoryFolder::HistoryFolder(storage::TrackStore* store,
                             absl::Duration interval,
                             storage::FoldOptions options)
    : store_(store), interval_(interval), options_([&] {
        // A pass over a large history stops for shutdown between entities.
        options.cancelled = [this] { return thread_.Stopped(); };
        return options;
      }()) {
  thread_.Start([this] { Run(); });
}

uint64_t HistoryFolder::fixes_folded() const {
  absl::MutexLock lock(&mu_);
  return fixes_folded_;
}

void HistoryFolder::Pass() {
  if (storage::IsReplica(*store_)) return;
  absl::StatusOr<storage::FoldCounts> folded =
      store_->chunker().FoldAll(options_, absl::ToUnixMillis(absl::Now()));
  if (!folded.ok()) {
    // A failed fold (a disk error) moves nothing; the next pass retries.
    std::fprintf(stderr, "trackd: folding history into chunks: %s\n",
                 std::string(folded.status().message()).c_str());
    return;
  }
  absl::MutexLock lock(&mu_);
  fixes_folded_ += folded->fixes;
}

void HistoryFolder::Run() {
  do {
    Pass();
  } while (thread_.WaitFor(interval_));
}

}  // namespace trackdb::service
