#ifndef TRACKDB_SERVICE_REPLICATION_REPLICA_REGISTRY_H_
#define TRACKDB_SERVICE_REPLICATION_REPLICA_REGISTRY_H_

// A primary's replicas, as their pulls tell (REPL.PULL <replid> <next>
// says the replica applied everything before `next`): what INFO
// replication lists, what WAIT counts, and what a write waits for under
// synchronous acknowledgement (replication.sync_replicas).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trackdb::replication {

struct ReplicaInfo {
  int64_t client_id = 0;  // its connection
  std::string ip;
  int port = 0;          // its own RESP port
  uint64_t applied = 0;  // the last sequence it applied
  int64_t last_pull_ms = 0;
};

class ReplicaRegistry {
 public:
  // A pull from connection `client_id`: it applied everything up to
  // `applied`. Wakes the waits it satisfies.
  void Pulled(int64_t client_id, const std::string& ip, int port,
              uint64_t applied);
  // The connection closed.
  void Gone(int64_t client_id);
  std::vector<ReplicaInfo> Replicas() const;
  // Replicas that applied `sequence`.
  int Acked(uint64_t sequence) const;
  // Replicas that pulled within `max_lag` of `now_ms` (Redis's "good"
  // replicas, for NOREPLICAS).
  int Good(int64_t now_ms, int64_t max_lag_ms) const;
  // Waits until Acked(sequence) >= n, `deadline` or Stop; returns Acked.
  int WaitForAcks(int n, uint64_t sequence, absl::Time deadline);
  // Ends every wait, now and later (the server is shutting down).
  void Stop();
  // Calls `done` once Acked(sequence) >= n (at once if already), from the
  // thread that records the pull, and returns 0; or returns an id for
  // Cancel, which a waiter that gives up calls (true: `done` will never
  // be called; false: it was or is being called).
  uint64_t OnAcked(int n, uint64_t sequence, std::function<void()> done);
  bool Cancel(uint64_t id);

 private:
  int AckedLocked(uint64_t sequence) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  struct Waiter {
    int n;
    uint64_t sequence;
    std::function<void()> done;
  };

  mutable absl::Mutex mu_;
  absl::CondVar changed_;
  std::map<int64_t, ReplicaInfo> replicas_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, Waiter> waiters_ ABSL_GUARDED_BY(mu_);
  uint64_t next_waiter_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace trackdb::replication

#endif  // TRACKDB_SERVICE_REPLICATION_REPLICA_REGISTRY_H_
