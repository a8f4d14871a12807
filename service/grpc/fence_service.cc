#include "service/grpc/fence_service.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "model/validate.h"
#include "service/events/fence_event_proto.h"
#include "service/grpc/grpc_status.h"
#include "service/grpc/point_convert.h"

namespace trackdb::service {
namespace {

// The collection and fence name of a request: both required.
grpc::Status CheckNames(absl::string_view collection, absl::string_view name) {
  if (absl::Status s = ValidateCollectionField(collection); !s.ok()) {
    return ToGrpc(s);
  }
  return ToGrpc(model::ValidateFenceName(name));
}

// Which events a Watch sends.
struct WatchFilter {
  absl::flat_hash_set<std::string> fences;
  absl::flat_hash_set<int> kinds;
  bool Passes(const storage::FenceEventRecord& e) const {
    return (fences.empty() || fences.contains(e.fence)) &&
           (kinds.empty() || kinds.contains(e.kind));
  }
};

absl::StatusOr<WatchFilter> MakeFilter(const v1::WatchRequest& request) {
  WatchFilter f;
  for (int i = 0; i < request.kinds_size(); ++i) {
    const int kind = request.kinds(i);
    if (kind == v1::FENCE_EVENT_KIND_UNSPECIFIED ||
        !v1::FenceEventKind_IsValid(kind)) {
      return absl::InvalidArgumentError(
          absl::StrCat("kinds[", i, "]: not an event kind"));
    }
    f.kinds.insert(kind);
  }
  f.fences.insert(request.fences().begin(), request.fences().end());
  return f;
}

// The named fence: INVALID_ARGUMENT for bad names, NOT_FOUND if absent.
grpc::Status FindFence(storage::TrackStore& store,
                       const std::string& collection, const std::string& name,
                       v1::Fence* out) {
  if (grpc::Status s = CheckNames(collection, name); !s.ok()) return s;
  auto fence = store.fences().Get(collection, name);
  if (!fence.ok()) return ToGrpc(fence.status());
  if (!fence->has_value()) {
    return grpc::Status(
        grpc::StatusCode::NOT_FOUND,
        absl::StrCat("no fence '", name, "' in collection '", collection, "'"));
  }
  *out = **std::move(fence);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status FenceServiceImpl::PutFence(grpc::ServerContext*,
                                        const v1::PutFenceRequest* request,
                                        v1::PutFenceResponse* response) {
  if (!request->has_fence()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "fence: required");
  }
  if (absl::Status s = ValidateCollectionField(request->fence().collection(),
                                               "fence.collection");
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<bool> created = store_->fences().Put(request->fence());
  if (!created.ok()) {
    absl::Status s = created.status();
    if (s.code() == absl::StatusCode::kInvalidArgument) {
      s = absl::InvalidArgumentError(absl::StrCat("fence.", s.message()));
    }
    return ToGrpc(s);
  }
  response->set_created(*created);
  return grpc::Status::OK;
}

grpc::Status FenceServiceImpl::GetFence(grpc::ServerContext*,
                                        const v1::GetFenceRequest* request,
                                        v1::Fence* response) {
  return FindFence(*store_, request->collection(), request->name(), response);
}

grpc::Status FenceServiceImpl::DeleteFence(
    grpc::ServerContext*, const v1::DeleteFenceRequest* request,
    v1::DeleteFenceResponse* response) {
  if (grpc::Status s = CheckNames(request->collection(), request->name());
      !s.ok()) {
    return s;
  }
  auto deleted = store_->fences().Delete(request->collection(), request->name());
  if (!deleted.ok()) return ToGrpc(deleted.status());
  response->set_deleted(*deleted);
  return grpc::Status::OK;
}

grpc::Status FenceServiceImpl::ListFences(grpc::ServerContext*,
                                          const v1::ListFencesRequest* request,
                                          v1::ListFencesResponse* response) {
  if (absl::Status s = ValidateCollectionField(request->collection());
      !s.ok()) {
    return ToGrpc(s);
  }
  auto fences = store_->fences().List(request->collection());
  if (!fences.ok()) return ToGrpc(fences.status());
  for (v1::Fence& f : *fences) *response->add_fences() = std::move(f);
  return grpc::Status::OK;
}

grpc::Status FenceServiceImpl::GetFenceState(
    grpc::ServerContext*, const v1::GetFenceStateRequest* request,
    v1::GetFenceStateResponse* response) {
  v1::Fence fence;
  if (grpc::Status s =
          FindFence(*store_, request->collection(), request->name(), &fence);
      !s.ok()) {
    return s;
  }
  auto inside = store_->fences().Members(request->collection(), request->name());
  if (!inside.ok()) return ToGrpc(inside.status());
  for (std::string& id : *inside) response->add_inside(std::move(id));
  return grpc::Status::OK;
}

grpc::Status FenceServiceImpl::Watch(
    grpc::ServerContext* context, const v1::WatchRequest* request,
    grpc::ServerWriter<v1::FenceEvent>* writer) {
  if (absl::Status s = ValidateCollectionField(request->collection());
      !s.ok()) {
    return ToGrpc(s);
  }
  absl::StatusOr<WatchFilter> filter = MakeFilter(*request);
  if (!filter.ok()) return ToGrpc(filter.status());
  const std::string& collection = request->collection();
  uint64_t next = request->from_offset() > 0 ? request->from_offset()
                                             : store_->fences().LogEnd(collection);
  v1::FenceEvent event;
  while (!context->IsCancelled()) {
    auto page = store_->fences().ReadEvents(collection, next, 256);
    if (!page.ok()) return ToGrpc(page.status());
    for (const storage::FenceEventRecord& e : page->events) {
      if (!filter->Passes(e)) continue;
      ToProtoEvent(collection, e, &event);
      if (!writer->Write(event)) return grpc::Status::OK;  // client gone
    }
    next = page->next_offset;
    if (page->events.empty()) {
      store_->fences().WaitForEvents(collection, next,
                                 absl::Now() + absl::Seconds(1));
    }
  }
  return grpc::Status(grpc::StatusCode::CANCELLED, "watch cancelled");
}

}  // namespace trackdb::service
