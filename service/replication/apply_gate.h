#ifndef TRACKDB_SERVICE_REPLICATION_APPLY_GATE_H_
#define TRACKDB_SERVICE_REPLICATION_APPLY_GATE_H_

// Orders a replica link's applies against its stop. A link stopped for a
// promotion (REPLICAOF NO ONE, a cluster failover) may still be reading a
// pull's reply from its old primary; applying it after the node became a
// primary would give the new primary a write its old one wrote after the
// failover, which no client was ever told succeeded. Once Close has
// returned, nothing more is applied: an apply in progress is waited out,
// and every later one is refused.

#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::replication {

class ApplyGate {
 public:
  // Runs `apply` and returns its status, unless Close has been called:
  // then CANCELLED, and `apply` does not run.
  absl::Status Run(const std::function<absl::Status()>& apply);
  // Refuses every later Run, after waiting for one that is running.
  void Close();

 private:
  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace trackdb::replication

#endif  // TRACKDB_SERVICE_REPLICATION_APPLY_GATE_H_
