#ifndef TRACKDB_SERVICE_METRICS_TRACKD_METRICS_H_
#define TRACKDB_SERVICE_METRICS_TRACKD_METRICS_H_

// What trackd's metrics port answers:
//
//   /metrics  Prometheus's text format: each door's calls by command or
//             method (counts, errors, latency histograms), fixes ingested,
//             entities, searches, fence events, webhook deliveries,
//             replication (a primary's replicas and their lag, a replica's
//             link), the memory budget and its use, RocksDB's write stalls,
//             compaction debt and files on disk, backups.
//   /healthz  200 while the process serves; 503 once the store has hit a
//             disk error it cannot recover from without a restart.
//   /readyz   200 once the store is open (its latest index built) and both
//             doors serve, and, on a replica, while its link to the primary
//             is in sync; 503 saying why otherwise, and from the moment
//             trackd begins to stop.
//
// The port opens before the store does, so that a probe tells "starting"
// from "down".

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "service/events/fence_webhook.h"
#include "service/jobs/backup_job.h"
#include "service/metrics/call_metrics.h"
#include "service/metrics/metrics_http.h"
#include "service/replication/node_role.h"
#include "service/replication/replica_registry.h"
#include "storage/stats/store_stats.h"
#include "storage/track_store.h"

namespace trackdb::metrics {

// What a serving trackd reads its figures from; each outlives Detach().
struct TrackdSources {
  storage::TrackStore* store = nullptr;
  const CallMetrics* resp = nullptr;
  const CallMetrics* grpc = nullptr;
  const service::FenceWebhooks* webhooks = nullptr;  // null: none run
  // This node's replicas (as a primary) and its link (as a replica).
  const replication::ReplicaRegistry* replicas = nullptr;
  const replication::NodeRole* role = nullptr;
  service::BackupJob* backups = nullptr;
  std::function<int64_t()> resp_clients;  // null: not reported
};

// The /metrics text of a serving trackd.
// `stats`: the store's, read for this answer.
std::string RenderMetrics(const TrackdSources& sources,
                          const storage::StoreStats& stats);

class TrackdEndpoints {
 public:
  // The answer to a GET of `path`.
  HttpAnswer Handle(absl::string_view path);
  // The store is open and the doors serve.
  void Attach(TrackdSources sources);
  // trackd is stopping: /readyz answers 503 from now on, and nothing is
  // read from the sources once this returns (it waits out a scrape).
  void Detach();

 private:
  // `stats`: the store's, null while there are no sources.
  HttpAnswer Ready(const storage::StoreStats* stats)
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  HttpAnswer Healthy(const storage::StoreStats* stats)
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::optional<TrackdSources> sources_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace trackdb::metrics

#endif  // TRACKDB_SERVICE_METRICS_TRACKD_METRICS_H_
