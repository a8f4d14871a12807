#ifndef TRACKDB_STORAGE_FORMAT_POINT_CODEC_H_
#define TRACKDB_STORAGE_FORMAT_POINT_CODEC_H_

// The value stored for a point in the points and latest column families. The
// entity is in the key, not the value.
//
//   byte    format version (1)
//   int64   loc_time_ms, big-endian two's complement
//   double  latitude, IEEE-754 bits big-endian
//   double  longitude, likewise
//   byte    presence bits: 1 speed, 2 direction, 4 height, 8 accuracy
//   double  each present optional field, in that bit order
//   varint32 attribute count, then per attribute
//            varint32 len, key bytes, varint32 len, value bytes
//
// loc_time, latitude and longitude sit at fixed offsets so a scan that only
// needs positions (DecodePosition) never parses the rest.

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/track_point.h"

namespace trackdb::storage {

std::string EncodePointValue(const model::TrackPoint& point);

// Decodes into `point`, leaving point->entity untouched. DATA_LOSS on a
// value that is not in the format above.
absl::Status DecodePointValue(absl::string_view value,
                              model::TrackPoint* point);

struct PointPosition {
  int64_t loc_time_ms;
  double lat;
  double lon;
};
std::optional<PointPosition> DecodePosition(absl::string_view value);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_POINT_CODEC_H_
