#ifndef TRACKDB_SERVICE_GRPC_GRPC_SERVER_H_
#define TRACKDB_SERVICE_GRPC_GRPC_SERVER_H_

// The gRPC front door: TrackService, AdminService (stats, doctor, bulk-load
// mode), the standard health-checking service (grpc.health.v1.Health,
// "trackdb.v1.TrackService" and "" report SERVING) and server reflection,
// so `grpcurl list` and `describe` need no .proto. With server.grpc_tls the
// port speaks TLS only; with users or requirepass every TrackService and
// AdminService call needs credentials (service/grpc/grpc_auth.h).

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "service/events/fence_webhook.h"
#include "service/grpc/admin_service.h"
#include "service/grpc/fence_service.h"
#include "service/grpc/grpc_auth.h"
#include "service/grpc/track_service.h"
#include "service/metrics/call_metrics.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::service {

class GrpcServer {
 public:
  // Listens on config.server's grpc address and port (0: a free port).
  // `config` must have defaults filled in; `store` outlives the server.
  // `users` may be shared with the RESP door, whose CONFIG SET requirepass
  // then holds here too (null: the server's own, from config).
  // `webhooks`, whose counters GetStats reports, outlives the server (null:
  // none run).
  static absl::StatusOr<std::unique_ptr<GrpcServer>> Start(
      const v1::TrackdbConfig& config, storage::TrackStore* store,
      std::shared_ptr<const auth::UserTable> users = nullptr,
      const FenceWebhooks* webhooks = nullptr,
      std::shared_ptr<const replication::SyncAcks> sync_acks = nullptr,
      std::shared_ptr<ClusterRouter> router = nullptr,
      std::shared_ptr<BackupJob> backups = nullptr);

  int port() const { return port_; }
  // Every method's calls, errors and latency (the metrics port).
  const metrics::CallMetrics& call_metrics() const { return calls_; }

  // Stops accepting calls, lets in-flight ones finish for up to `grace`,
  // then cancels the rest. Returns once the server has stopped.
  void Shutdown(absl::Duration grace);

 private:
  GrpcServer() = default;
  // Before server_: the interceptors record here until the server is gone.
  metrics::CallMetrics calls_;
  std::unique_ptr<TrackServiceImpl> service_;
  std::unique_ptr<AdminServiceImpl> admin_;
  std::unique_ptr<FenceServiceImpl> fences_;
  std::unique_ptr<GrpcAuth> auth_;
  // What the server serves: service_ and admin_ behind auth_'s checks.
  std::unique_ptr<v1::TrackService::Service> authorized_service_;
  std::unique_ptr<v1::AdminService::Service> authorized_admin_;
  std::unique_ptr<v1::FenceService::Service> authorized_fences_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_GRPC_SERVER_H_
