#include "service/grpc/point_convert.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "model/validate.h"

namespace trackdb::service {
namespace {

absl::Status Required(absl::string_view value, absl::string_view field) {
  if (!value.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      field, " must not be empty (gRPC cannot send an empty name)"));
}

}  // namespace

absl::Status ValidateCollectionField(absl::string_view name,
                                     absl::string_view field) {
  if (absl::Status s = Required(name, field); !s.ok()) return s;
  return model::ValidateCollection(name, field);
}

absl::Status ValidateEntityIdField(absl::string_view id,
                                   absl::string_view field) {
  if (absl::Status s = Required(id, field); !s.ok()) return s;
  return model::ValidateEntityId(id, field);
}

absl::Status ValidateEntityFields(absl::string_view collection,
                                  absl::string_view entity_id) {
  if (absl::Status s = ValidateCollectionField(collection); !s.ok()) return s;
  return ValidateEntityIdField(entity_id, "entity_id");
}

absl::Status TimeRangeFields(int64_t start_time_ms, int64_t end_time_ms,
                             int64_t* start_ms, int64_t* end_ms) {
  *start_ms = start_time_ms;
  *end_ms = end_time_ms == 0 ? INT64_MAX : end_time_ms;
  if (*start_ms > *end_ms) {
    return absl::InvalidArgumentError(absl::StrCat("start_time_ms (", *start_ms,
                                                   ") is after end_time_ms (",
                                                   *end_ms, ")"));
  }
  return absl::OkStatus();
}

absl::Status ValidateTrackPoint(const model::TrackPoint& p,
                                absl::string_view field,
                                const model::Limits& limits, int64_t now_ms) {
  if (absl::Status s =
          ValidateEntityIdField(p.entity, absl::StrCat(field, ".entity_id"));
      !s.ok()) {
    return s;
  }
  return model::ValidateIncomingPoint(p, field, limits, now_ms);
}

model::TrackPoint FromProtoPoint(const v1::Point& in) {
  model::TrackPoint p;
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
  // Map order is unspecified; attributes sorted so that equal points
  // encode equally.
  std::sort(p.attributes.begin(), p.attributes.end());
  return p;
}

absl::StatusOr<model::TrackPoint> ToTrackPoint(const v1::Point& in,
                                               const std::string& field,
                                               const model::Limits& limits,
                                               int64_t now_ms) {
  model::TrackPoint p = FromProtoPoint(in);
  if (absl::Status s = ValidateTrackPoint(p, field, limits, now_ms); !s.ok()) {
    return s;
  }
  return p;
}

void ToProtoPoint(const model::TrackPoint& in, bool ids_and_positions_only,
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
