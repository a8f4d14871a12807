#ifndef TRACKDB_SERVICE_GRPC_GRPC_AUTH_H_
#define TRACKDB_SERVICE_GRPC_GRPC_AUTH_H_

// Users on the gRPC door: each call carries its user in metadata,
// `authorization: Basic base64(name:password)` (RFC 7617), checked against
// the same users as RESP's AUTH (service/auth/users.h). The services
// are served through wrappers that check every method before it runs, each
// method classified as reading, writing or administering below; a method
// the wrappers do not know answers UNIMPLEMENTED, so a new RPC is never
// served unchecked.
//
// Health and reflection stay open: load balancers and orchestrators probe
// health without credentials, and reflection only describes the public
// API (grpcurl needs it to build requests); neither reads or changes data.

#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"
#include "service/grpc/admin_service.h"
#include "service/auth/users.h"
#include "service/grpc/cluster_router.h"
#include "service/grpc/fence_service.h"
#include "service/replication/sync_acks.h"
#include "service/grpc/track_service.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::service {

class GrpcAuth {
 public:
  // Requires credentials while `users` does (users, or a requirepass: live,
  // as RESP's CONFIG SET changes it).
  // `acks` (null: none) makes every write wait for replicas
  // (service/replication/sync_acks.h).
  // `router` (null: none) routes calls in cluster mode
  // (service/grpc/cluster_router.h); `cluster`: server.cluster_enabled.
  explicit GrpcAuth(std::shared_ptr<const auth::UserTable> users,
                    std::shared_ptr<const replication::SyncAcks> acks = nullptr,
                    std::shared_ptr<ClusterRouter> router = nullptr,
                    bool cluster = false);
  ClusterRouter* router() const { return router_.get(); }
  // Whether a call may wait inside its handler: for replicas to
  // acknowledge a write (replication.sync_replicas), or for the node a
  // call is forwarded to (cluster mode).
  bool CallsMayWait() const {
    return cluster_ || (acks_ != nullptr && acks_->enabled());
  }

  // OK if the call's user may do `need`; UNAUTHENTICATED without valid
  // credentials, PERMISSION_DENIED naming `method` when the role forbids it.
  // A write is also refused (UNAVAILABLE, Redis's NOREPLICAS) while too
  // few replicas follow to acknowledge it.
  grpc::Status Check(const grpc::ServerContextBase& context, auth::Access need,
                     const char* method) const;
  // What a method that ran with `done` answers: a write waits for its
  // replicas, and is UNAVAILABLE when they do not have it in time.
  grpc::Status Acknowledged(auth::Access need, grpc::Status done) const;

 private:
  const std::shared_ptr<const auth::UserTable> users_;
  const std::shared_ptr<const replication::SyncAcks> acks_;
  const std::shared_ptr<ClusterRouter> router_;
  const bool cluster_;
};

// TrackService with every method checked by `auth`, then served by `impl`.
std::unique_ptr<v1::TrackService::Service> AuthorizedTrackService(
    TrackServiceImpl* impl, const GrpcAuth* auth);
// AdminService likewise.
std::unique_ptr<v1::AdminService::Service> AuthorizedAdminService(
    AdminServiceImpl* impl, const GrpcAuth* auth);
// FenceService likewise.
std::unique_ptr<v1::FenceService::Service> AuthorizedFenceService(
    FenceServiceImpl* impl, const GrpcAuth* auth);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_GRPC_AUTH_H_
