#ifndef TRACKDB_SERVICE_GRPC_ANALYZE_TRACK_H_
#define TRACKDB_SERVICE_GRPC_ANALYZE_TRACK_H_

// TrackService.AnalyzeTrack: the range's fixes read page by page (at most
// model::kMaxAnalyzedFixes), then analysis::AnalyzeTrack.

#include "grpcpp/grpcpp.h"
#include "storage/track_store.h"
#include "trackdb/v1/track_service.pb.h"

namespace trackdb::service {

grpc::Status AnalyzeTrack(grpc::ServerContext* context,
                          storage::TrackStore& store,
                          const v1::AnalyzeTrackRequest& request,
                          v1::AnalyzeTrackResponse* response);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_ANALYZE_TRACK_H_
