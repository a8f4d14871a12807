#ifndef TRACKDB_SERVICE_GRPC_POINT_CONVERT_H_
#define TRACKDB_SERVICE_GRPC_POINT_CONVERT_H_

// Between the API's trackdb.v1.Point and model::TrackPoint, validating on
// the way in: errors are INVALID_ARGUMENT naming the field as the client
// wrote it ("points[3].latitude").

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/limits.h"
#include "model/track_point.h"
#include "trackdb/v1/track_service.pb.h"

namespace trackdb::service {

// A collection or entity id sent over gRPC: model/validate.h's verdict, and
// not empty. proto3 cannot tell an empty string from an unset field, so the
// gRPC door requires names (RESP takes the empty key and member, as Redis
// does). INVALID_ARGUMENT naming `field`.
absl::Status ValidateCollectionField(absl::string_view name,
                                     absl::string_view field = "collection");
absl::Status ValidateEntityIdField(absl::string_view id,
                                   absl::string_view field);
// Both, for a call about one entity: fields "collection" and "entity_id".
absl::Status ValidateEntityFields(absl::string_view collection,
                                  absl::string_view entity_id);

// A request's start_time_ms and end_time_ms (0: no upper bound) as an
// inclusive range; INVALID_ARGUMENT when the start is after the end.
absl::Status TimeRangeFields(int64_t start_time_ms, int64_t end_time_ms,
                             int64_t* start_ms, int64_t* end_ms);

// A point as the gRPC door and the import tool take it: its entity id
// through ValidateEntityIdField, the rest model::ValidateIncomingPoint.
absl::Status ValidateTrackPoint(const model::TrackPoint& p,
                                absl::string_view field,
                                const model::Limits& limits, int64_t now_ms);

// Converts without checking (what a server answered); attributes sorted.
model::TrackPoint FromProtoPoint(const v1::Point& point);

// Converts and validates with ValidateTrackPoint, naming fields under
// `field`.
absl::StatusOr<model::TrackPoint> ToTrackPoint(const v1::Point& point,
                                               const std::string& field,
                                               const model::Limits& limits,
                                               int64_t now_ms);

void ToProtoPoint(const model::TrackPoint& in, bool ids_and_positions_only,
                  v1::Point* out);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_POINT_CONVERT_H_
