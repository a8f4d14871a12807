#include "service/point_convert.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "index/latlng.h"

namespace trackdb::service {
namespace {

absl::Status Invalid(const std::string& field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", why));
}

}  // namespace

absl::Status ValidateCollection(const std::string& collection) {
  if (collection.empty()) return Invalid("collection", "must not be empty");
  if (collection.size() > kMaxCollectionBytes) {
    return Invalid("collection",
                   absl::StrCat("is ", collection.size(), " bytes; at most ",
                                kMaxCollectionBytes));
  }
  return absl::OkStatus();
}

absl::Status ValidateEntityId(const std::string& id, const std::string& field) {
  if (id.empty()) return Invalid(field, "must not be empty");
  if (id.size() > kMaxEntityIdBytes) {
    return Invalid(field, absl::StrCat("is ", id.size(), " bytes; at most ",
                                       kMaxEntityIdBytes));
  }
  return absl::OkStatus();
}

absl::Status ValidateTrackPoint(const storage::TrackPoint& p,
                                const std::string& field,
                                const v1::LimitsConfig& limits,
                                int64_t now_ms) {
  if (absl::Status s = ValidateEntityId(p.entity, field + ".entity_id");
      !s.ok()) {
    return s;
  }
  if (p.loc_time_ms == 0) {
    return Invalid(field + ".loc_time_ms", "is required (Unix milliseconds)");
  }
  const int64_t latest_ok = now_ms + limits.max_future_ms();
  if (p.loc_time_ms < limits.min_loc_time_ms() || p.loc_time_ms > latest_ok) {
    return Invalid(field + ".loc_time_ms",
                   absl::StrCat(p.loc_time_ms, " is outside [",
                                limits.min_loc_time_ms(), ", ", latest_ok,
                                "] (Unix milliseconds; seconds by mistake?)"));
  }
  if (absl::Status s = index::ValidateLatLng({p.lat, p.lon}, field.c_str());
      !s.ok()) {
    return s;
  }
  if (p.speed_kmh && !(std::isfinite(*p.speed_kmh) && *p.speed_kmh >= 0)) {
    return Invalid(field + ".speed_kmh", "must be a finite number >= 0");
  }
  if (p.direction_deg && !(std::isfinite(*p.direction_deg) &&
                           *p.direction_deg >= 0 && *p.direction_deg < 360)) {
    return Invalid(field + ".direction", "must be in [0, 360) degrees");
  }
  if (p.height_m && !std::isfinite(*p.height_m)) {
    return Invalid(field + ".height_m", "must be a finite number");
  }
  if (p.accuracy_m && !(std::isfinite(*p.accuracy_m) && *p.accuracy_m >= 0)) {
    return Invalid(field + ".accuracy_m", "must be a finite number >= 0");
  }
  if (p.attributes.size() > limits.max_attributes()) {
    return Invalid(field + ".attributes",
                   absl::StrCat("has ", p.attributes.size(),
                                " entries; at most ", limits.max_attributes()));
  }
  for (const auto& [key, value] : p.attributes) {
    if (key.size() > limits.max_attribute_bytes() ||
        value.size() > limits.max_attribute_bytes()) {
      return Invalid(
          absl::StrCat(field, ".attributes[\"", key.substr(0, 32), "\"]"),
          absl::StrCat("key or value over ", limits.max_attribute_bytes(),
                       " bytes"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<storage::TrackPoint> ToTrackPoint(const v1::Point& in,
                                                 const std::string& field,
                                                 const v1::LimitsConfig& limits,
                                                 int64_t now_ms) {
  storage::TrackPoint p;
  p.entity = in.entity_id();
  p.loc_time_ms = in.loc_time_ms();
  p.lat = in.latitude();
  p.lon = in.longitude();
  if (in.has_speed_kmh()) p.speed_kmh = in.speed_kmh();
  if (in.has_direction()) p.direction_deg = in.direction();
  if (in.has_height_m()) p.height_m = in.height_m();
  if (in.has_accuracy_m()) p.accuracy_m = in.accuracy_m();
  p.attributes.reserve(in.attributes_size());
  for (const auto& [key, value] : in.attributes()) {
    p.attributes.emplace_back(key, value);
  }
  if (absl::Status s = ValidateTrackPoint(p, field, limits, now_ms); !s.ok()) {
    return s;
  }
  // Map order is unspecified; store attributes sorted so equal points
  // encode equally.
  std::sort(p.attributes.begin(), p.attributes.end());
  return p;
}

void ToProtoPoint(const storage::TrackPoint& in, bool ids_and_positions_only,
                  v1::Point* out) {
  out->set_entity_id(in.entity);
  out->set_latitude(in.lat);
  out->set_longitude(in.lon);
  if (ids_and_positions_only) return;
  out->set_loc_time_ms(in.loc_time_ms);
  if (in.speed_kmh) out->set_speed_kmh(*in.speed_kmh);
  if (in.direction_deg) out->set_direction(*in.direction_deg);
  if (in.height_m) out->set_height_m(*in.height_m);
  if (in.accuracy_m) out->set_accuracy_m(*in.accuracy_m);
  for (const auto& [key, value] : in.attributes) {
    (*out->mutable_attributes())[key] = value;
  }
}

}  // namespace trackdb::service
