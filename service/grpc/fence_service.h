#ifndef TRACKDB_SERVICE_GRPC_FENCE_SERVICE_H_
#define TRACKDB_SERVICE_GRPC_FENCE_SERVICE_H_

// trackdb.v1.FenceService over a TrackStore: fences are stored and
// evaluated by storage (TrackStore's fence methods); this checks requests,
// converts, and streams the event log to watchers.

#include "grpcpp/grpcpp.h"
#include "model/limits.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"
#include "trackdb/v1/fence.grpc.pb.h"

namespace trackdb::service {

class FenceServiceImpl final : public v1::FenceService::Service {
 public:
  // `store` outlives the service.
  explicit FenceServiceImpl(storage::TrackStore* store) : store_(store) {}

  grpc::Status PutFence(grpc::ServerContext*, const v1::PutFenceRequest*,
                        v1::PutFenceResponse*) override;
  grpc::Status GetFence(grpc::ServerContext*, const v1::GetFenceRequest*,
                        v1::Fence*) override;
  grpc::Status DeleteFence(grpc::ServerContext*, const v1::DeleteFenceRequest*,
                           v1::DeleteFenceResponse*) override;
  grpc::Status ListFences(grpc::ServerContext*, const v1::ListFencesRequest*,
                          v1::ListFencesResponse*) override;
  grpc::Status GetFenceState(grpc::ServerContext*,
                             const v1::GetFenceStateRequest*,
                             v1::GetFenceStateResponse*) override;
  // Reads the log from the request's offset and then waits for more, in
  // rounds of at most a second so that a cancelled call or a server
  // shutting down ends it promptly.
  grpc::Status Watch(grpc::ServerContext*, const v1::WatchRequest*,
                     grpc::ServerWriter<v1::FenceEvent>*) override;

 private:
  storage::TrackStore* store_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_FENCE_SERVICE_H_
