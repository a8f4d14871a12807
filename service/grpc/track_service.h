#ifndef TRACKDB_SERVICE_GRPC_TRACK_SERVICE_H_
#define TRACKDB_SERVICE_GRPC_TRACK_SERVICE_H_

// trackdb.v1.TrackService over a TrackStore: validation, conversion, paging
// and ordering; every read and write goes through storage's API.
//
// Search pages: all matching entities are gathered from the index (cost
// follows hits and covered cells, not the collection), ordered (radius:
// nearest first, ties by id; others: by id), and cut after the page token,
// which names the last hit of the previous page. Pages are therefore stable
// while entities do not move; an entity that moves between pages may be
// seen twice or not at all, as with any cursor over live data.

#include "grpcpp/grpcpp.h"
#include "model/limits.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb::service {

class TrackServiceImpl final : public v1::TrackService::Service {
 public:
  // `limits` with defaults filled in; `store` outlives the service.
  TrackServiceImpl(storage::TrackStore* store, const v1::LimitsConfig& limits);

  grpc::Status AddPoint(grpc::ServerContext*, const v1::AddPointRequest*,
                        v1::AddPointResponse*) override;
  grpc::Status AddPoints(grpc::ServerContext*, const v1::AddPointsRequest*,
                         v1::AddPointsResponse*) override;
  // StreamPoints, over the messages' bytes, each decoded here: a message no
  // protobuf decodes is INVALID_ARGUMENT naming it, where gRPC's typed
  // reader reports it as the end of the stream (and the call would succeed
  // with the points before it). grpc_auth.cc serves it as StreamPoints;
  // the typed StreamPoints stays the generated UNIMPLEMENTED.
  // `may_store` (if set) vets each collection the stream names before its
  // points are stored (a cluster's routing: service/grpc/cluster_router.h).
  grpc::Status StreamPointBytes(
      grpc::ServerContext*, grpc::ServerReader<grpc::ByteBuffer>*,
      v1::StreamPointsResponse*,
      const std::function<grpc::Status(absl::string_view)>& may_store =
          nullptr);
  grpc::Status GetLatest(grpc::ServerContext*, const v1::GetLatestRequest*,
                         v1::GetLatestResponse*) override;
  grpc::Status GetTrack(grpc::ServerContext*, const v1::GetTrackRequest*,
                        v1::GetTrackResponse*) override;
  grpc::Status GetPositionAt(grpc::ServerContext*,
                             const v1::GetPositionAtRequest*,
                             v1::GetPositionAtResponse*) override;
  grpc::Status AnalyzeTrack(grpc::ServerContext* context,
                            const v1::AnalyzeTrackRequest* request,
                            v1::AnalyzeTrackResponse* response) override;
  grpc::Status DeleteEntity(grpc::ServerContext*,
                            const v1::DeleteEntityRequest*,
                            v1::DeleteEntityResponse*) override;
  grpc::Status SearchBounds(grpc::ServerContext*,
                            const v1::SearchBoundsRequest*,
                            v1::SearchResponse*) override;
  grpc::Status SearchRadius(grpc::ServerContext*,
                            const v1::SearchRadiusRequest*,
                            v1::SearchResponse*) override;
  grpc::Status SearchPolygon(grpc::ServerContext*,
                             const v1::SearchPolygonRequest*,
                             v1::SearchResponse*) override;
  grpc::Status SetRetention(grpc::ServerContext*,
                            const v1::SetRetentionRequest*,
                            v1::SetRetentionResponse*) override;
  grpc::Status GetRetention(grpc::ServerContext*,
                            const v1::GetRetentionRequest*,
                            v1::Retention*) override;
  // search_history.cc
  grpc::Status SearchHistory(grpc::ServerContext*,
                             const v1::SearchHistoryRequest*,
                             v1::SearchHistoryResponse*) override;
  // export_geojson.cc
  grpc::Status ExportGeoJson(grpc::ServerContext* context,
                             const v1::ExportGeoJsonRequest* request,
                             v1::ExportGeoJsonResponse* response) override;

 private:
  absl::Status StoreBatch(
      const std::string& collection,
      const google::protobuf::RepeatedPtrField<v1::Point>& points,
      const std::string& field);
  grpc::Status Search(grpc::ServerContext* context,
                      const std::string& collection,
                      const index::Region& region,
                      const index::CircleRegion* circle,
                      const v1::SearchFilter& filter,
                      v1::SearchResponse* response);

  storage::TrackStore* store_;
  const model::Limits limits_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_TRACK_SERVICE_H_
