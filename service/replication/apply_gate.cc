#include "service/replication/apply_gate.h"

namespace trackdb::replication {

absl::Status ApplyGate::Run(const std::function<absl::Status()>& apply) {
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::CancelledError("the replica link is stopping");
  return apply();
}

void ApplyGate::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
}

}  // namespace trackdb::replication
