#ifndef TRACKDB_SERVICE_RESP_SERVER_RESP_SERVER_H_
#define TRACKDB_SERVICE_RESP_SERVER_RESP_SERVER_H_

// The Redis-protocol front door: server.resp_threads Asio event loops
// (epoll underneath), a thread each, and a pool of
// server.resp_worker_threads. A connection lives on one loop, chosen in
// turn, and costs a socket, a small state and a 512-byte read buffer: no
// thread. Each connection parses everything one read brought (pipelining),
// runs the commands in order, and sends all their replies in one write.
//
// Point commands (GET, SET, GEOADD, ZSCORE, ...) run on the loop, as in
// Redis: their RocksDB work is a few lookups or one batch. Commands whose
// work grows with the data or that wait (registered with RunsOn::kWorker
// in their family's file: KEYS, SCAN, GEOSEARCH, ZRANGE, FLUSHDB, DEBUG
// SLEEP, ...) run on a worker while their connection waits, so the loop's
// other connections go on being parsed and served. A point command stuck in
// RocksDB (a write stall) holds its loop; the other loops go on.
//
// Limits, as Redis's: maxclients, proto-max-bulk-len, timeout (idle
// connections closed), a hard output limit. Replies to a pipeline go out in
// 1 MiB pieces: the rest of it is served once a piece is sent, so a client
// that pipelines and never reads holds one piece, not every reply.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cluster/cluster_state.h"
#include "service/auth/users.h"
#include "service/events/fence_webhook.h"
#include "service/jobs/backup_job.h"
#include "service/metrics/call_metrics.h"
#include "service/replication/node_role.h"
#include "service/replication/sync_acks.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::resp {

class RespServer {
 public:
  // Binds server.resp_bind_address:resp_port (0 picks a free port; none
  // with resp_tls_only) and, with resp_tls_port, a TLS listener there too,
  // and starts serving `store`, which must outlive the server. `users` may
  // be shared with the gRPC door (null: the server's own, from config).
  // `webhooks`, whose counters INFO reports, outlives the server (null:
  // none run). `sync_acks` may be shared with the gRPC door (null: the
  // server's own, from config.replication). `backups` may be shared with
  // the gRPC door (null: the server's own, from config).
  static absl::StatusOr<std::unique_ptr<RespServer>> Start(
      const v1::TrackdbConfig& config, storage::TrackStore* store,
      std::shared_ptr<auth::UserTable> users = nullptr,
      const service::FenceWebhooks* webhooks = nullptr,
      std::shared_ptr<replication::SyncAcks> sync_acks = nullptr,
      std::shared_ptr<service::BackupJob> backups = nullptr);
  ~RespServer();  // Shutdown()s

  int port() const;      // 0 with resp_tls_only
  int tls_port() const;  // 0 without resp_tls_port
  // The node's cluster state; null unless server.cluster_enabled.
  const cluster::ClusterState* cluster() const;
  // For the metrics port: every command's calls, errors and latency; the
  // node's replication role (its replicas, its link); open connections.
  const metrics::CallMetrics& call_metrics() const;
  const replication::NodeRole& role() const;
  int64_t connected_clients() const;
  // Stops accepting, closes every connection, joins the threads.
  void Shutdown();
  // How SHUTDOWN stops the process (it returns at once; the process then
  // calls Shutdown()). Until set, SHUTDOWN is refused.
  void OnShutdownCommand(std::function<void()> stop);

  class Impl;

 private:
  explicit RespServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_SERVER_RESP_SERVER_H_
