#ifndef TRACKDB_SERVICE_POINT_CONVERT_H_
#define TRACKDB_SERVICE_POINT_CONVERT_H_

// Between the API's trackdb.v1.Point and storage's TrackPoint, validating on
// the way in: errors are INVALID_ARGUMENT naming the field as the client
// wrote it ("points[3].latitude").

#include <string>

#include "absl/status/statusor.h"
#include "storage/track_point.h"
#include "trackdb/v1/config.pb.h"
#include "trackdb/v1/track_service.pb.h"

namespace trackdb::service {

inline constexpr size_t kMaxEntityIdBytes = 128;
inline constexpr size_t kMaxCollectionBytes = 1024;

absl::Status ValidateCollection(const std::string& collection);
absl::Status ValidateEntityId(const std::string& id, const std::string& field);

// `limits` must have defaults filled in (conf::WithDefaults).
absl::StatusOr<storage::TrackPoint> ToTrackPoint(const v1::Point& point,
                                                 const std::string& field,
                                                 const v1::LimitsConfig& limits,
                                                 int64_t now_ms);

// The same checks on a point that is already a TrackPoint (bulk import
// validates rows with the rules trackd applies). `field` prefixes the names.
absl::Status ValidateTrackPoint(const storage::TrackPoint& point,
                                const std::string& field,
                                const v1::LimitsConfig& limits, int64_t now_ms);

void ToProtoPoint(const storage::TrackPoint& in, bool ids_and_positions_only,
                  v1::Point* out);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_POINT_CONVERT_H_
