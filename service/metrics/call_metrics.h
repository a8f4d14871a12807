#ifndef TRACKDB_SERVICE_METRICS_CALL_METRICS_H_
#define TRACKDB_SERVICE_METRICS_CALL_METRICS_H_

// A door's calls by command or method: how many, how many failed, and how
// long they took, as a latency histogram (Prometheus's cumulative buckets,
// from 50 µs to 10 s). Recording costs a lookup in a per-thread cache of
// the names and a few relaxed atomic adds on counters of the thread's own
// shard (threads serving the same command would otherwise contend for one
// cache line); a name is added under a lock once, on its first call (names
// come from a door's fixed table: RESP's commands, gRPC's methods).

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "service/metrics/prometheus_text.h"

namespace trackdb::metrics {

// Upper bounds of the latency buckets, in seconds.
inline constexpr std::array<double, 16> kLatencyBounds = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025,   0.05,   0.1,     0.25,   0.5,   1,      2.5,   10};

struct CallSnapshot {
  std::string name;
  uint64_t calls = 0;
  uint64_t errors = 0;
  uint64_t rejected = 0;  // of `errors`, refused before they ran
  double seconds = 0;     // the calls' total time
  // Calls per bucket (not cumulative), one past the last bound.
  std::array<uint64_t, kLatencyBounds.size() + 1> buckets{};
};

class CallMetrics {
 public:
  CallMetrics();

  // One call of `name` that took `nanos`; `failed` when it answered an
  // error, `rejected` (failed too) when it was refused before it ran
  // (wrong arity, NOAUTH, MOVED...).
  void Record(absl::string_view name, int64_t nanos, bool failed,
              bool rejected = false);
  // Every name called so far, in name order.
  std::vector<CallSnapshot> Snapshot() const;

  // Writes the families `<prefix>s_total`, `<prefix>_errors_total` and
  // `<prefix>_duration_seconds`, each sample labelled `label`=name;
  // `what` says in the help text what is counted ("RESP command").
  void Write(absl::string_view prefix, absl::string_view label,
             absl::string_view what, PrometheusText& out) const;

 private:
  static constexpr size_t kShards = 4;
  struct alignas(64) Shard {
    std::atomic<uint64_t> calls{0};
    std::atomic<uint64_t> errors{0};
    std::atomic<uint64_t> rejected{0};
    std::atomic<uint64_t> nanos{0};
    std::array<std::atomic<uint64_t>, kLatencyBounds.size() + 1> buckets{};
  };
  struct Counts {
    std::array<Shard, kShards> shards;
  };
  Counts& For(absl::string_view name);
  Counts& ForLocked(absl::string_view name);

  // Names this object's per-thread caches (never reused: a cache of a
  // destroyed CallMetrics is never consulted again).
  const uint64_t id_;

  mutable absl::Mutex mu_;
  // Counts never move once made: Record uses them after the lock.
  absl::flat_hash_map<std::string, std::unique_ptr<Counts>> names_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace trackdb::metrics

#endif  // TRACKDB_SERVICE_METRICS_CALL_METRICS_H_
