// Every unary trackdb.v1.TrackService request, decoded from arbitrary bytes
// and run through the service's own handler (service/grpc/track_service.cc:
// conversion and validation by service/grpc/point_convert.h and
// model/validate.h, then storage) against a scratch TrackStore, as gRPC
// would call it once the bytes decode.
//
// Input: a byte choosing the RPC and the encoding (binary protobuf as it
// comes off the wire, or text format, which mutates into meaningful
// requests more easily), then the request.
//
// Checked:
//   - nothing crashes;
//   - bad input is never INTERNAL or UNKNOWN, and every error says why;
//   - a write that fails changes nothing (each named entity's latest point
//     is the same before and after);
//   - an acknowledged AddPoint is there: the entity's latest point is at
//     least as new;
//   - every SearchRadius hit lies within the radius.
// StreamPoints is left out: its handler needs a live stream, and it stores
// each message through the same StoreBatch as AddPoints.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "conf/config.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/scratch_store.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "service/grpc/track_service.h"
#include "trackdb/v1/config.pb.h"
#include "trackdb/v1/track_service.pb.h"

namespace trackdb::fuzz {
namespace {

using service::TrackServiceImpl;

bool Decode(absl::string_view bytes, bool text,
            google::protobuf::Message* request) {
  if (text) {
    return google::protobuf::TextFormat::ParseFromString(std::string(bytes),
                                                         request);
  }
  return request->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

void CheckStatus(const grpc::Status& s, absl::string_view rpc) {
  FUZZ_CHECK(s.error_code() != grpc::StatusCode::INTERNAL &&
             s.error_code() != grpc::StatusCode::UNKNOWN)
      << rpc << ": " << s.error_code() << " " << s.error_message();
  FUZZ_CHECK(s.ok() || !s.error_message().empty())
      << rpc << ": error " << s.error_code() << " without a message";
}

// The latest point of each named entity (nullopt also where the store
// refuses the name), to compare before and after a failed write.
using Latest = std::vector<std::optional<model::TrackPoint>>;

Latest LatestOf(storage::TrackStore& store, const std::string& collection,
                const std::vector<std::string>& entities) {
  Latest out;
  for (const std::string& entity : entities) {
    auto latest = store.GetLatest(collection, entity);
    out.push_back(latest.ok() ? *latest : std::nullopt);
  }
  return out;
}

std::vector<std::string> EntitiesOf(
    const google::protobuf::RepeatedPtrField<v1::Point>& points) {
  std::vector<std::string> entities;
  // A few suffice to see a partial write; all would cost O(batch) reads.
  for (int i = 0; i < points.size() && i < 8; ++i) {
    entities.push_back(points[i].entity_id());
  }
  return entities;
}

void RunAddPoints(TrackServiceImpl& service, storage::TrackStore& store,
                  const v1::AddPointsRequest& request) {
  const std::vector<std::string> entities = EntitiesOf(request.points());
  const Latest before = LatestOf(store, request.collection(), entities);
  grpc::ServerContext context;
  v1::AddPointsResponse response;
  const grpc::Status s = service.AddPoints(&context, &request, &response);
  CheckStatus(s, "AddPoints");
  if (!s.ok()) {
    FUZZ_CHECK(LatestOf(store, request.collection(), entities) == before)
        << "AddPoints failed (" << s.error_message() << ") but wrote";
  } else {
    FUZZ_CHECK(response.stored() ==
               static_cast<uint32_t>(request.points_size()));
  }
}

void RunAddPoint(TrackServiceImpl& service, storage::TrackStore& store,
                 const v1::AddPointRequest& request) {
  const std::vector<std::string> entity = {request.point().entity_id()};
  const Latest before = LatestOf(store, request.collection(), entity);
  grpc::ServerContext context;
  v1::AddPointResponse response;
  const grpc::Status s = service.AddPoint(&context, &request, &response);
  CheckStatus(s, "AddPoint");
  const Latest after = LatestOf(store, request.collection(), entity);
  if (!s.ok()) {
    FUZZ_CHECK(after == before) << "AddPoint failed but wrote";
    return;
  }
  FUZZ_CHECK(after[0].has_value() &&
             after[0]->loc_time_ms >= request.point().loc_time_ms())
      << "an acknowledged AddPoint is not there";
}

void RunSearchRadius(TrackServiceImpl& service,
                     const v1::SearchRadiusRequest& request) {
  grpc::ServerContext context;
  v1::SearchResponse response;
  const grpc::Status s = service.SearchRadius(&context, &request, &response);
  CheckStatus(s, "SearchRadius");
  for (const v1::SearchHit& hit : response.hits()) {
    FUZZ_CHECK(hit.distance_m() <= request.radius_m())
        << hit.point().entity_id() << " at " << hit.distance_m()
        << " m is outside the radius " << request.radius_m();
  }
}

// Runs a request type whose only check is its status.
template <typename Request, typename Response, typename Handler>
void RunPlain(absl::string_view bytes, bool text, absl::string_view rpc,
              Handler handler) {
  Request request;
  if (!Decode(bytes, text, &request)) return;
  grpc::ServerContext context;
  Response response;
  CheckStatus(handler(&context, &request, &response), rpc);
}

template <typename Request, typename Run>
void RunChecked(absl::string_view bytes, bool text, Run run) {
  Request request;
  if (Decode(bytes, text, &request)) run(request);
}

void RunOne(uint8_t rpc, absl::string_view bytes, bool text,
            TrackServiceImpl& service, storage::TrackStore& store) {
  using namespace v1;
  auto& svc = service;
  switch (rpc % 14) {
    case 0:
      return RunChecked<AddPointRequest>(
          bytes, text, [&](const auto& r) { RunAddPoint(svc, store, r); });
    case 1:
      return RunChecked<AddPointsRequest>(
          bytes, text, [&](const auto& r) { RunAddPoints(svc, store, r); });
    case 2:
      return RunPlain<GetLatestRequest, GetLatestResponse>(
          bytes, text, "GetLatest",
          [&](auto* c, auto* q, auto* a) { return svc.GetLatest(c, q, a); });
    case 3:
      return RunPlain<GetTrackRequest, GetTrackResponse>(
          bytes, text, "GetTrack",
          [&](auto* c, auto* q, auto* a) { return svc.GetTrack(c, q, a); });
    case 4:
      return RunPlain<DeleteEntityRequest, DeleteEntityResponse>(
          bytes, text, "DeleteEntity",
          [&](auto* c, auto* q, auto* a) { return svc.DeleteEntity(c, q, a); });
    case 5:
      return RunPlain<SearchBoundsRequest, SearchResponse>(
          bytes, text, "SearchBounds",
          [&](auto* c, auto* q, auto* a) { return svc.SearchBounds(c, q, a); });
    case 6:
      return RunChecked<SearchRadiusRequest>(
          bytes, text, [&](const auto& r) { RunSearchRadius(svc, r); });
    case 8:
      return RunPlain<GetPositionAtRequest, GetPositionAtResponse>(
          bytes, text, "GetPositionAt", [&](auto* c, auto* q, auto* a) {
            return svc.GetPositionAt(c, q, a);
          });
    case 9:
      return RunPlain<AnalyzeTrackRequest, AnalyzeTrackResponse>(
          bytes, text, "AnalyzeTrack",
          [&](auto* c, auto* q, auto* a) { return svc.AnalyzeTrack(c, q, a); });
    case 10:
      return RunPlain<SetRetentionRequest, SetRetentionResponse>(
          bytes, text, "SetRetention",
          [&](auto* c, auto* q, auto* a) { return svc.SetRetention(c, q, a); });
    case 11:
      return RunPlain<GetRetentionRequest, Retention>(
          bytes, text, "GetRetention",
          [&](auto* c, auto* q, auto* a) { return svc.GetRetention(c, q, a); });
    case 12:
      return RunPlain<ExportGeoJsonRequest, ExportGeoJsonResponse>(
          bytes, text, "ExportGeoJson", [&](auto* c, auto* q, auto* a) {
            return svc.ExportGeoJson(c, q, a);
          });
    case 13:
      return RunPlain<SearchHistoryRequest, SearchHistoryResponse>(
          bytes, text, "SearchHistory", [&](auto* c, auto* q, auto* a) {
            return svc.SearchHistory(c, q, a);
          });
    default:
      return RunPlain<SearchPolygonRequest, SearchResponse>(
          bytes, text, "SearchPolygon", [&](auto* c, auto* q, auto* a) {
            return svc.SearchPolygon(c, q, a);
          });
  }
}

}  // namespace
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trackdb::fuzz;
  static ScratchStore* store = new ScratchStore(/*inputs_per_store=*/2000);
  static trackdb::service::TrackServiceImpl* service = nullptr;
  if (size == 0) return 0;
  bool fresh = false;
  trackdb::storage::TrackStore* s = store->Next(&fresh);
  if (fresh) {
    delete service;  // it points into the store just replaced
    service = new trackdb::service::TrackServiceImpl(
        s, trackdb::conf::WithDefaults(trackdb::v1::TrackdbConfig()).limits());
  }
  const absl::string_view bytes(reinterpret_cast<const char*>(data) + 1,
                                size - 1);
  RunOne(data[0] & 0x7f, bytes, (data[0] & 0x80) != 0, *service, *s);
  return 0;
}
