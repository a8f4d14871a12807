#ifndef TRACKDB_INDEX_LATLNG_H_
#define TRACKDB_INDEX_LATLNG_H_

#include "absl/status/status.h"

namespace trackdb::index {

// A WGS84 position in degrees. Valid when both are finite, |lat| <= 90 and
// |lon| <= 180; the index accepts the whole range, poles included.
struct LatLng {
  double lat = 0;
  double lon = 0;
};

// OK, or INVALID_ARGUMENT naming `field` ("latitude"/"longitude" prefixed by
// it) and the bad value. Rejects NaN and infinities.
absl::Status ValidateLatLng(const LatLng& p, const char* field = "point");

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_LATLNG_H_
