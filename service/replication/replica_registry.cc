#include "service/replication/replica_registry.h"

#include <utility>

namespace trackdb::replication {

void ReplicaRegistry::Pulled(int64_t client_id, const std::string& ip, int port,
                             uint64_t applied) {
  std::vector<std::function<void()>> ready;
  {
    absl::MutexLock lock(&mu_);
    ReplicaInfo& r = replicas_[client_id];
    r.client_id = client_id;
    r.ip = ip;
    r.port = port;
    r.applied = applied;  // after a full sync it may be lower
    r.last_pull_ms = absl::ToUnixMillis(absl::Now());
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (AckedLocked(it->second.sequence) >= it->second.n) {
        ready.push_back(std::move(it->second.done));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
    changed_.SignalAll();
  }
  for (auto& done : ready) done();
}

void ReplicaRegistry::Gone(int64_t client_id) {
  absl::MutexLock lock(&mu_);
  replicas_.erase(client_id);
}

std::vector<ReplicaInfo> ReplicaRegistry::Replicas() const {
  absl::MutexLock lock(&mu_);
  std::vector<ReplicaInfo> out;
  for (const auto& [id, r] : replicas_) out.push_back(r);
  return out;
}

int ReplicaRegistry::AckedLocked(uint64_t sequence) const {
  int n = 0;
  for (const auto& [id, r] : replicas_) n += r.applied >= sequence ? 1 : 0;
  return n;
}

int ReplicaRegistry::Acked(uint64_t sequence) const {
  absl::MutexLock lock(&mu_);
  return AckedLocked(sequence);
}

int ReplicaRegistry::Good(int64_t now_ms, int64_t max_lag_ms) const {
  absl::MutexLock lock(&mu_);
  int n = 0;
  for (const auto& [id, r] : replicas_) {
    n += now_ms - r.last_pull_ms <= max_lag_ms ? 1 : 0;
  }
  return n;
}

int ReplicaRegistry::WaitForAcks(int n, uint64_t sequence,
                                 absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  while (AckedLocked(sequence) < n && !stopped_ &&
         !changed_.WaitWithDeadline(&mu_, deadline)) {
  }
  return AckedLocked(sequence);
}

void ReplicaRegistry::Stop() {
  absl::MutexLock lock(&mu_);
  stopped_ = true;
  changed_.SignalAll();
}

uint64_t ReplicaRegistry::OnAcked(int n, uint64_t sequence,
                                  std::function<void()> done) {
  {
    absl::MutexLock lock(&mu_);
    if (AckedLocked(sequence) < n) {
      const uint64_t id = next_waiter_++;
      waiters_[id] = Waiter{n, sequence, std::move(done)};
      return id;
    }
  }
  done();
  return 0;
}

bool ReplicaRegistry::Cancel(uint64_t id) {
  absl::MutexLock lock(&mu_);
  return waiters_.erase(id) > 0;
}

}  // namespace trackdb::replication
