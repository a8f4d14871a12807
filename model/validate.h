#ifndef TRACKDB_MODEL_VALIDATE_H_
#define TRACKDB_MODEL_VALIDATE_H_

// The verdict on every name, point and request size trackdb is sent, for
// every door (gRPC, RESP, the import tool) and for storage itself. Errors
// are INVALID_ARGUMENT and name the field as the caller spells it (`field`,
// e.g. "points[3]" or "member"), then say what was wrong and what is
// allowed: "points[3].latitude must be a number in [-85.05112878,
// 85.05112878], got 86". A door may reword the message for its protocol
// (RESP's "-ERR ..."), never the verdict.

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "model/limits.h"
#include "model/track_point.h"

namespace trackdb::model {

// At most kMaxCollectionBytes bytes, any bytes, empty included (Redis
// allows the empty key; gRPC cannot send one, see
// service/grpc/point_convert.h).
absl::Status ValidateCollection(absl::string_view name,
                                absl::string_view field = "collection");
// At most kMaxEntityIdBytes bytes, any bytes, empty included.
absl::Status ValidateEntityId(absl::string_view id, absl::string_view field);
// A fence's name: 1 to kMaxFenceNameBytes bytes of UTF-8 (it is a proto3
// string in the API, in events and in their JSON). Every door and the
// fence compiler use it.
absl::Status ValidateFenceName(absl::string_view name,
                               absl::string_view field = "name");
// Structurally valid UTF-8, as protobuf requires of a proto3 string: no
// overlong forms, no surrogates, nothing above U+10FFFF.
bool IsUtf8(absl::string_view s);

// Finite, latitude and longitude within the position range (limits.h).
// Names "<field>.latitude" / "<field>.longitude".
absl::Status ValidatePosition(double lat, double lon, absl::string_view field);

// What every stored point is, whoever writes it: a valid entity id, a
// position the index can hold (any WGS84 position, poles included: a store
// may hold such points from before every door took Redis's range), speed
// and accuracy finite and >= 0, direction in [0, 360), height finite.
// Fields are named as trackdb.v1.Point names them.
absl::Status ValidateStoredPoint(const TrackPoint& p, absl::string_view field);

// What a door accepts from a client: a stored point whose position is
// within the position range (ValidatePosition), whose loc_time lies in
// [limits.min_loc_time_ms, now_ms + limits.max_future_ms] and whose
// attributes are within limits.
absl::Status ValidateIncomingPoint(const TrackPoint& p, absl::string_view field,
                                   const Limits& limits, int64_t now_ms);

// 1..limits.max_batch_points items in one request.
absl::Status ValidateBatchSize(size_t n, absl::string_view field,
                               const Limits& limits);
// A radius in [0, limits.max_radius_m] metres.
absl::Status ValidateRadius(double radius_m, absl::string_view field,
                            const Limits& limits);
// 3..limits.max_polygon_vertices vertices.
// A stay search's radius and least duration: within kMaxStayRadiusM and
// kMaxStayMinMs (0 means the default).
absl::Status ValidateStayBounds(double radius_m, int64_t min_ms,
                                absl::string_view radius_field,
                                absl::string_view min_field);

// A history retention: max_age_ms in [0, kMaxRetentionAgeMs] (0: kept
// forever); expiring latest points needs an age to expire them at.
absl::Status ValidateRetention(int64_t max_age_ms, bool expire_latest,
                               absl::string_view age_field,
                               absl::string_view expire_field);

// A history retention's fixes per entity: [0, kMaxRetentionPoints] (0: no
// limit).
absl::Status ValidateRetentionPoints(int64_t max_points,
                                     absl::string_view field);

absl::Status ValidatePolygonSize(size_t vertices, absl::string_view field,
                                 const Limits& limits);
// A page of at most kMaxPageSize; 0 asks for kDefaultPageSize. Returns the
// page size to use through `out`.
absl::Status ValidatePageSize(uint32_t requested, absl::string_view field,
                              uint32_t* out);
// A store read's page: at least one row, over a time window that does not
// end before it starts (GetTrack, SearchHistory).
absl::Status ValidateReadWindow(int limit, int64_t start_ms, int64_t end_ms);

}  // namespace trackdb::model

#endif  // TRACKDB_MODEL_VALIDATE_H_
