#include "service/grpc/grpc_auth.h"

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/method_handler.h"
#include "service/grpc/grpc_status.h"

namespace trackdb::service {
namespace {

using auth::Access;

constexpr char kHowTo[] =
    "send metadata \"authorization: Basic base64(user:password)\"";

}  // namespace

GrpcAuth::GrpcAuth(std::shared_ptr<const auth::UserTable> users,
                   std::shared_ptr<const replication::SyncAcks> acks,
                   std::shared_ptr<ClusterRouter> router, bool cluster)
    : users_(std::move(users)),
      acks_(std::move(acks)),
      router_(std::move(router)),
      cluster_(cluster) {}

grpc::Status GrpcAuth::Acknowledged(Access need, grpc::Status done) const {
  if (need != Access::kWrite || !done.ok() || acks_ == nullptr) return done;
  const absl::Status acked = acks_->AwaitWrites();
  if (acked.ok()) return done;
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      std::string(acked.message()));
}

grpc::Status GrpcAuth::Check(const grpc::ServerContextBase& context,
                             Access need, const char* method) const {
  if (need == Access::kWrite && acks_ != nullptr) {
    if (absl::Status s = acks_->CheckReplicas(); !s.ok()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          std::string(s.message()));
    }
  }
  if (!users_->auth_required()) return grpc::Status::OK;
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        absl::StrCat("credentials required: ", kHowTo));
  }
  const absl::string_view value(it->second.data(), it->second.size());
  constexpr absl::string_view kBasic = "Basic ";
  std::string decoded;
  if (!absl::StartsWithIgnoreCase(value, kBasic) ||
      !absl::Base64Unescape(value.substr(kBasic.size()), &decoded) ||
      decoded.find(':') == std::string::npos) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        absl::StrCat("malformed authorization: ", kHowTo));
  }
  const size_t colon = decoded.find(':');
  const std::string user = decoded.substr(0, colon);
  const auto role =
      users_->Authenticate(user, absl::string_view(decoded).substr(colon + 1));
  if (!role) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "invalid username-password pair");
  }
  if (!auth::RoleAllows(*role, need)) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        absl::StrCat("user ", user, " (", auth::RoleName(*role),
                                     ") has no permission to call ", method));
  }
  return grpc::Status::OK;
}

namespace {

// Checks, then forwards to the implementation.
#define TRACKDB_AUTHORIZED(Method, Request, Response, need)                \
  grpc::Status Method(grpc::ServerContext* context, Request request,       \
                      Response response) override {                        \
    grpc::Status s = auth_->Check(*context, need, #Method);                \
    if (!s.ok()) return s;                                                 \
    return auth_->Acknowledged(need,                                       \
                               impl_->Method(context, request, response)); \
  }

// A write to a slot whose migration is finishing: retry (it then goes to
// the new owner).
grpc::Status TryAgain(absl::string_view collection) {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      absl::StrCat("TRYAGAIN collection '", collection,
                                   "' is being migrated to another node"));
}

// Checks, then serves a call on one collection where its slot is served
// (service/grpc/cluster_router.h): here, or forwarded to the owner.
template <typename Service, typename Request, typename Local, typename Remote>
grpc::Status ServeRouted(const GrpcAuth& auth, grpc::ServerContextBase* context,
                         const Request& request, Access need,
                         const char* method, const Local& local,
                         const Remote& remote) {
  grpc::Status s = auth.Check(*context, need, method);
  if (!s.ok()) return s;
  ClusterRouter* router = auth.router();
  if (router != nullptr && router->enabled()) {
    const std::string collection = CollectionOf(request);
    absl::StatusOr<std::optional<ClusterRouter::Owner>> owner =
        router->Route(collection, need == Access::kWrite);
    if (!owner.ok()) return ToGrpc(owner.status());
    if (*owner) {
      if (!MayForward(*context)) return WrongShard(**owner, collection);
      grpc::ClientContext forwarded;
      PrepareForward(*context, &forwarded);
      auto stub = Service::NewStub(router->ChannelTo((*owner)->grpc_address));
      return remote(*stub, &forwarded);
    }
    if (need == Access::kWrite) {
      absl::ReaderMutexLock gate(router->WriteGate());
      if (router->HeldOff(collection)) return TryAgain(collection);
      s = local();
    } else {
      s = local();
    }
    return auth.Acknowledged(need, s);
  }
  return auth.Acknowledged(need, local());
}

// OK when this node serves `collection` (or no cluster is configured);
// else FAILED_PRECONDITION naming its owner: streams are not forwarded.
grpc::Status LocalOnly(const GrpcAuth& auth, absl::string_view collection,
                       bool write) {
  ClusterRouter* router = auth.router();
  if (router == nullptr || !router->enabled()) return grpc::Status::OK;
  absl::StatusOr<std::optional<ClusterRouter::Owner>> owner =
      router->Route(collection, write);
  if (!owner.ok()) return ToGrpc(owner.status());
  if (*owner) return WrongShard(**owner, collection);
  if (write && router->Migrating(collection)) return TryAgain(collection);
  return grpc::Status::OK;
}

// A call on one collection, routed.
#define TRACKDB_ROUTED(Service, Method, Request, Response, need)       \
  grpc::Status Method(grpc::ServerContext* context, Request request,   \
                      Response response) override {                    \
    return ServeRouted<v1::Service>(                                   \
        *auth_, context, *request, need, #Method,                      \
        [&] { return impl_->Method(context, request, response); },     \
        [&](v1::Service::Stub& stub, grpc::ClientContext* forwarded) { \
          return stub.Method(forwarded, *request, response);           \
        });                                                            \
  }

// The index gRPC's generated service gives `method`: its place in the
// proto's service declaration.
int TrackServiceMethodIndex(const char* method) {
  return google::protobuf::DescriptorPool::generated_pool()
      ->FindServiceByName(v1::TrackService::service_full_name())
      ->FindMethodByName(method)
      ->index();
}

// A unary method served by gRPC's callback API, on the thread that read
// the request: `serve` runs there and its status finishes the call.
template <typename Request, typename Response, typename Serve>
grpc::internal::MethodHandler* InlineUnary(Serve serve) {
  return new grpc::internal::CallbackUnaryHandler<Request, Response>(
      [serve](grpc::CallbackServerContext* context, const Request* request,
              Response* response) {
        grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
        reactor->Finish(serve(context, request, response));
        return reactor;
      });
}

// A routed call (TRACKDB_ROUTED) served inline by the callback API. The
// implementations of the methods it serves read nothing of their context
// (they are given none).
#define TRACKDB_INLINE_ROUTED(Service, Method, Request, Response, need)     \
  MarkMethodCallback(                                                       \
      TrackServiceMethodIndex(#Method),                                     \
      InlineUnary<Request, Response>([this](grpc::CallbackServerContext* c, \
                                            const Request* request,         \
                                            Response* response) {           \
        return ServeRouted<v1::Service>(                                    \
            *auth_, c, *request, need, #Method,                             \
            [&] { return impl_->Method(nullptr, request, response); },      \
            [&](v1::Service::Stub& stub, grpc::ClientContext* forwarded) {  \
              return stub.Method(forwarded, *request, response);            \
            });                                                             \
      }))

class TrackServiceWrapper final : public v1::TrackService::Service {
 public:
  TrackServiceWrapper(TrackServiceImpl* impl, const GrpcAuth* auth)
      : impl_(impl), auth_(auth) {
    // The point calls, as the RESP door runs its point commands on its
    // event loops: a few lookups or one batch, served on the thread that
    // read the request, without the synchronous server's hand-off to a
    // thread of its pool and back (most of their cost: bench/README.md,
    // "gRPC load"). Not where a call may wait: the waits would hold
    // gRPC's own threads.
    if (!auth_->CallsMayWait()) {
      TRACKDB_INLINE_ROUTED(TrackService, AddPoint, v1::AddPointRequest,
                            v1::AddPointResponse, Access::kWrite);
      TRACKDB_INLINE_ROUTED(TrackService, GetLatest, v1::GetLatestRequest,
                            v1::GetLatestResponse, Access::kRead);
    }
    // StreamPoints reads each message's bytes and decodes them itself
    // (TrackServiceImpl::StreamPointBytes), so that an undecodable message
    // is an error and not, as gRPC's typed reader reports it, the end of
    // the stream. The handler is gRPC's own client-streaming one over
    // grpc::ByteBuffer; the method is then served as bidirectional, which
    // on the wire is the same.
    MarkMethodStreamed(
        TrackServiceMethodIndex("StreamPoints"),
        new grpc::internal::ClientStreamingHandler<
            TrackServiceWrapper, grpc::ByteBuffer, v1::StreamPointsResponse>(
            [](TrackServiceWrapper* self, grpc::ServerContext* context,
               grpc::ServerReader<grpc::ByteBuffer>* reader,
               v1::StreamPointsResponse* response) {
              grpc::Status s =
                  self->auth_->Check(*context, Access::kWrite, "StreamPoints");
              if (!s.ok()) return s;
              return self->auth_->Acknowledged(
                  Access::kWrite, self->impl_->StreamPointBytes(
                                      context, reader, response,
                                      [self](absl::string_view collection) {
                                        return LocalOnly(*self->auth_,
                                                         collection, true);
                                      }));
            },
            this));
  }

  TRACKDB_ROUTED(TrackService, AddPoint, const v1::AddPointRequest*,
                 v1::AddPointResponse*, Access::kWrite)
  TRACKDB_ROUTED(TrackService, AddPoints, const v1::AddPointsRequest*,
                 v1::AddPointsResponse*, Access::kWrite)
  TRACKDB_ROUTED(TrackService, DeleteEntity, const v1::DeleteEntityRequest*,
                 v1::DeleteEntityResponse*, Access::kWrite)
  TRACKDB_ROUTED(TrackService, GetLatest, const v1::GetLatestRequest*,
                 v1::GetLatestResponse*, Access::kRead)
  TRACKDB_ROUTED(TrackService, GetTrack, const v1::GetTrackRequest*,
                 v1::GetTrackResponse*, Access::kRead)
  TRACKDB_ROUTED(TrackService, GetPositionAt, const v1::GetPositionAtRequest*,
                 v1::GetPositionAtResponse*, Access::kRead)
  TRACKDB_ROUTED(TrackService, AnalyzeTrack, const v1::AnalyzeTrackRequest*,
                 v1::AnalyzeTrackResponse*, Access::kRead)
  TRACKDB_ROUTED(TrackService, SearchBounds, const v1::SearchBoundsRequest*,
                 v1::SearchResponse*, Access::kRead)
  TRACKDB_ROUTED(TrackService, SearchRadius, const v1::SearchRadiusRequest*,
                 v1::SearchResponse*, Access::kRead)
  TRACKDB_ROUTED(TrackService, SearchPolygon, const v1::SearchPolygonRequest*,
                 v1::SearchResponse*, Access::kRead)
  TRACKDB_ROUTED(TrackService, SearchHistory, const v1::SearchHistoryRequest*,
                 v1::SearchHistoryResponse*, Access::kRead)
  TRACKDB_ROUTED(TrackService, SetRetention, const v1::SetRetentionRequest*,
                 v1::SetRetentionResponse*, Access::kWrite)
  TRACKDB_ROUTED(TrackService, GetRetention, const v1::GetRetentionRequest*,
                 v1::Retention*, Access::kRead)
  TRACKDB_ROUTED(TrackService, ExportGeoJson, const v1::ExportGeoJsonRequest*,
                 v1::ExportGeoJsonResponse*, Access::kRead)

 private:
  TrackServiceImpl* impl_;
  const GrpcAuth* auth_;
};

class AdminServiceWrapper final : public v1::AdminService::Service {
 public:
  AdminServiceWrapper(AdminServiceImpl* impl, const GrpcAuth* auth)
      : impl_(impl), auth_(auth) {}

  // Statistics and the doctor's findings read; bulk-load mode changes how
  // the whole store writes and compacts, as Redis's CONFIG SET.
  TRACKDB_AUTHORIZED(GetStats, const v1::GetStatsRequest*,
                     v1::GetStatsResponse*, Access::kRead)
  TRACKDB_AUTHORIZED(Diagnose, const v1::DiagnoseRequest*,
                     v1::DiagnoseResponse*, Access::kRead)
  TRACKDB_AUTHORIZED(SetBulkLoad, const v1::SetBulkLoadRequest*,
                     v1::SetBulkLoadResponse*, Access::kAdmin)
  // Backups read the whole store and write outside it, as Redis's BGSAVE
  // (an admin command); their list is read.
  TRACKDB_AUTHORIZED(CreateBackup, const v1::CreateBackupRequest*, v1::Backup*,
                     Access::kAdmin)
  TRACKDB_AUTHORIZED(ListBackups, const v1::ListBackupsRequest*,
                     v1::ListBackupsResponse*, Access::kRead)
  TRACKDB_AUTHORIZED(DeleteBackup, const v1::DeleteBackupRequest*,
                     v1::DeleteBackupResponse*, Access::kAdmin)
  // Who serves which slots: what CLUSTER SHARDS says, for readers.
  grpc::Status GetTopology(grpc::ServerContext* context,
                           const v1::GetTopologyRequest*,
                           v1::Topology* response) override {
    grpc::Status s = auth_->Check(*context, Access::kRead, "GetTopology");
    if (!s.ok()) return s;
    if (auth_->router() != nullptr) *response = auth_->router()->Topology();
    return grpc::Status::OK;
  }

 private:
  AdminServiceImpl* impl_;
  const GrpcAuth* auth_;
};

// Fences are data as points are: changing one writes, the rest read.
class FenceServiceWrapper final : public v1::FenceService::Service {
 public:
  FenceServiceWrapper(FenceServiceImpl* impl, const GrpcAuth* auth)
      : impl_(impl), auth_(auth) {}

  TRACKDB_ROUTED(FenceService, PutFence, const v1::PutFenceRequest*,
                 v1::PutFenceResponse*, Access::kWrite)
  TRACKDB_ROUTED(FenceService, DeleteFence, const v1::DeleteFenceRequest*,
                 v1::DeleteFenceResponse*, Access::kWrite)
  TRACKDB_ROUTED(FenceService, GetFence, const v1::GetFenceRequest*, v1::Fence*,
                 Access::kRead)
  TRACKDB_ROUTED(FenceService, ListFences, const v1::ListFencesRequest*,
                 v1::ListFencesResponse*, Access::kRead)
  TRACKDB_ROUTED(FenceService, GetFenceState, const v1::GetFenceStateRequest*,
                 v1::GetFenceStateResponse*, Access::kRead)
  grpc::Status Watch(grpc::ServerContext* context,
                     const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::FenceEvent>* writer) override {
    grpc::Status s = auth_->Check(*context, Access::kRead, "Watch");
    if (s.ok()) s = LocalOnly(*auth_, request->collection(), false);
    return s.ok() ? impl_->Watch(context, request, writer) : s;
  }

 private:
  FenceServiceImpl* impl_;
  const GrpcAuth* auth_;
};

#undef TRACKDB_AUTHORIZED
#undef TRACKDB_ROUTED

}  // namespace

std::unique_ptr<v1::TrackService::Service> AuthorizedTrackService(
    TrackServiceImpl* impl, const GrpcAuth* auth) {
  return std::make_unique<TrackServiceWrapper>(impl, auth);
}

std::unique_ptr<v1::AdminService::Service> AuthorizedAdminService(
    AdminServiceImpl* impl, const GrpcAuth* auth) {
  return std::make_unique<AdminServiceWrapper>(impl, auth);
}

std::unique_ptr<v1::FenceService::Service> AuthorizedFenceService(
    FenceServiceImpl* impl, const GrpcAuth* auth) {
  return std::make_unique<FenceServiceWrapper>(impl, auth);
}

}  // namespace trackdb::service
