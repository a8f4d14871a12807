#include "index/latlng.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace trackdb::index {

absl::Status ValidateLatLng(const LatLng& p, const char* field) {
  if (!std::isfinite(p.lat) || p.lat < -90 || p.lat > 90) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".latitude must be a number in [-90, 90], got ", p.lat));
  }
  if (!std::isfinite(p.lon) || p.lon < -180 || p.lon > 180) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ".longitude must be a number in [-180, 180], got ", p.lon));
  }
  return absl::OkStatus();
}

}  // namespace trackdb::index
