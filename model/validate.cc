#include "model/validate.h"

#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"

namespace trackdb::model {
namespace {

absl::Status Invalid(absl::string_view field, absl::string_view suffix,
                     absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, suffix, " ", why));
}

absl::Status ValidateName(absl::string_view name, absl::string_view field,
                          size_t max_bytes) {
  if (name.size() > max_bytes) {
    return Invalid(
        field, "",
        absl::StrCat("is ", name.size(), " bytes; at most ", max_bytes));
  }
  return absl::OkStatus();
}

bool InRange(double v, double lo, double hi) {
  return std::isfinite(v) && v >= lo && v <= hi;
}

absl::Status ValidateOptionalFields(const TrackPoint& p,
                                    absl::string_view field) {
  if (p.speed_kmh && !InRange(*p.speed_kmh, 0, HUGE_VAL)) {
    return Invalid(field, ".speed_kmh", "must be a finite number >= 0");
  }
  if (p.direction_deg &&
      !(InRange(*p.direction_deg, 0, 360) && *p.direction_deg < 360)) {
    return Invalid(field, ".direction", "must be in [0, 360) degrees");
  }
  if (p.height_m && !std::isfinite(*p.height_m)) {
    return Invalid(field, ".height_m", "must be a finite number");
  }
  if (p.accuracy_m && !InRange(*p.accuracy_m, 0, HUGE_VAL)) {
    return Invalid(field, ".accuracy_m", "must be a finite number >= 0");
  }
  return absl::OkStatus();
}

absl::Status ValidateAttributes(const TrackPoint& p, absl::string_view field,
                                const Limits& limits) {
  if (p.attributes.size() > limits.max_attributes) {
    return Invalid(field, ".attributes",
                   absl::StrCat("has ", p.attributes.size(),
                                " entries; at most ", limits.max_attributes));
  }
  for (const auto& [key, value] : p.attributes) {
    if (key.size() > limits.max_attribute_bytes ||
        value.size() > limits.max_attribute_bytes) {
      return Invalid(field,
                     absl::StrCat(".attributes[\"", key.substr(0, 32), "\"]"),
                     absl::StrCat("key or value over ",
                                  limits.max_attribute_bytes, " bytes"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateCollection(absl::string_view name,
                                absl::string_view field) {
  return ValidateName(name, field, kMaxCollectionBytes);
}

absl::Status ValidateEntityId(absl::string_view id, absl::string_view field) {
  return ValidateName(id, field, kMaxEntityIdBytes);
}

bool IsUtf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = s[i];
    int extra = 0;
    uint32_t code = 0, min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      extra = 1, code = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2, code = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3, code = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;  // cut short
    for (int k = 1; k <= extra; ++k) {
      const unsigned char t = s[i + k];
      if ((t & 0xc0) != 0x80) return false;
      code = (code << 6) | (t & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

absl::Status ValidateFenceName(absl::string_view name,
                               absl::string_view field) {
  if (name.empty() || name.size() > kMaxFenceNameBytes) {
    return Invalid(field, "",
                   absl::StrCat("must be 1 to ", kMaxFenceNameBytes,
                                " bytes, got ", name.size()));
  }
  if (!IsUtf8(name)) return Invalid(field, "", "must be UTF-8");
  return absl::OkStatus();
}

absl::Status ValidatePosition(double lat, double lon, absl::string_view field) {
  if (!InRange(lat, kMinLatitude, kMaxLatitude)) {
    return Invalid(field, ".latitude",
                   absl::StrCat("must be a number in [", kMinLatitude, ", ",
                                kMaxLatitude, "], got ", lat));
  }
  if (!InRange(lon, kMinLongitude, kMaxLongitude)) {
    return Invalid(field, ".longitude",
                   absl::StrCat("must be a number in [", kMinLongitude, ", ",
                                kMaxLongitude, "], got ", lon));
  }
  return absl::OkStatus();
}

absl::Status ValidateStoredPoint(const TrackPoint& p, absl::string_view field) {
  if (absl::Status s =
          ValidateEntityId(p.entity, absl::StrCat(field, ".entity_id"));
      !s.ok()) {
    return s;
  }
  if (!InRange(p.lat, -90, 90)) {
    return Invalid(field, ".latitude",
                   absl::StrCat("must be a number in [-90, 90], got ", p.lat));
  }
  if (!InRange(p.lon, -180, 180)) {
    return Invalid(
        field, ".longitude",
        absl::StrCat("must be a number in [-180, 180], got ", p.lon));
  }
  return ValidateOptionalFields(p, field);
}

absl::Status ValidateIncomingPoint(const TrackPoint& p, absl::string_view field,
                                   const Limits& limits, int64_t now_ms) {
  if (absl::Status s = ValidateStoredPoint(p, field); !s.ok()) return s;
  if (absl::Status s = ValidatePosition(p.lat, p.lon, field); !s.ok()) {
    return s;
  }
  if (p.loc_time_ms == 0) {
    return Invalid(field, ".loc_time_ms", "is required (Unix milliseconds)");
  }
  const int64_t latest_ok = now_ms + limits.max_future_ms;
  if (p.loc_time_ms < limits.min_loc_time_ms || p.loc_time_ms > latest_ok) {
    return Invalid(field, ".loc_time_ms",
                   absl::StrCat(p.loc_time_ms, " is outside [",
                                limits.min_loc_time_ms, ", ", latest_ok,
                                "] (Unix milliseconds; seconds by mistake?)"));
  }
  return ValidateAttributes(p, field, limits);
}

absl::Status ValidateBatchSize(size_t n, absl::string_view field,
                               const Limits& limits) {
  if (n == 0) return Invalid(field, "", "must not be empty");
  if (n > limits.max_batch_points) {
    return Invalid(field, "",
                   absl::StrCat("has ", n, " items; at most ",
                                limits.max_batch_points, " per request"));
  }
  return absl::OkStatus();
}

absl::Status ValidateRadius(double radius_m, absl::string_view field,
                            const Limits& limits) {
  if (!(radius_m >= 0 && radius_m <= limits.max_radius_m)) {  // NaN too
    return Invalid(field, "",
                   absl::StrCat("must be in [0, ", limits.max_radius_m,
                                "] metres, got ", radius_m));
  }
  return absl::OkStatus();
}

absl::Status ValidateStayBounds(double radius_m, int64_t min_ms,
                                absl::string_view radius_field,
                                absl::string_view min_field) {
  if (!(radius_m >= 0 && radius_m <= kMaxStayRadiusM)) {
    return Invalid(radius_field, "",
                   absl::StrCat("must be in [0, ", kMaxStayRadiusM,
                                "] metres, got ", radius_m));
  }
  if (min_ms < 0 || min_ms > kMaxStayMinMs) {
    return Invalid(
        min_field, "",
        absl::StrCat("must be in [0, ", kMaxStayMinMs, "] ms, got ", min_ms));
  }
  return absl::OkStatus();
}

absl::Status ValidateRetention(int64_t max_age_ms, bool expire_latest,
                               absl::string_view age_field,
                               absl::string_view expire_field) {
  if (max_age_ms < 0 || max_age_ms > kMaxRetentionAgeMs) {
    return Invalid(age_field, "",
                   absl::StrCat("must be in [0, ", kMaxRetentionAgeMs,
                                "] ms (0: kept forever), got ", max_age_ms));
  }
  if (expire_latest && max_age_ms == 0) {
    return Invalid(expire_field, "",
                   absl::StrCat("needs ", age_field,
                                " > 0: latest points expire at that age"));
  }
  return absl::OkStatus();
}

absl::Status ValidateRetentionPoints(int64_t max_points,
                                     absl::string_view field) {
  if (max_points < 0 || max_points > kMaxRetentionPoints) {
    return Invalid(field, "",
                   absl::StrCat("must be in [0, ", kMaxRetentionPoints,
                                "] (0: no limit), got ", max_points));
  }
  return absl::OkStatus();
}

absl::Status ValidatePolygonSize(size_t vertices, absl::string_view field,
                                 const Limits& limits) {
  if (vertices < 3 || vertices > limits.max_polygon_vertices) {
    return Invalid(field, "",
                   absl::StrCat("has ", vertices,
                                " vertices; a polygon has 3 "
                                "to ",
                                limits.max_polygon_vertices));
  }
  return absl::OkStatus();
}

absl::Status ValidatePageSize(uint32_t requested, absl::string_view field,
                              uint32_t* out) {
  if (requested > kMaxPageSize) {
    return Invalid(
        field, "",
        absl::StrCat("must be at most ", kMaxPageSize, ", got ", requested));
  }
  *out = requested == 0 ? kDefaultPageSize : requested;
  return absl::OkStatus();
}

absl::Status ValidateReadWindow(int limit, int64_t start_ms, int64_t end_ms) {
  if (limit < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("limit must be at least 1, got ", limit));
  }
  if (start_ms > end_ms) {
    return absl::InvalidArgumentError(
        absl::StrCat("start time ", start_ms, " is after end time ", end_ms));
  }
  return absl::OkStatus();
}

}  // namespace trackdb::model
