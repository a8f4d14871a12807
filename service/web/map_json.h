#ifndef TRACKDB_SERVICE_WEB_MAP_JSON_H_
#define TRACKDB_SERVICE_WEB_MAP_JSON_H_

// The JSON the map page's API writes: compact rows for many positions
// (["id", lon, lat, time_ms]: 100k entities in a few MB) and GeoJSON
// (RFC 7946: [lon, lat]) where one thing is shown.

#include <string>

#include "absl/strings/string_view.h"
#include "model/track_point.h"

namespace trackdb::web {

// ["id",lon,lat,time_ms] appended to `out`.
void AppendRow(absl::string_view entity, double lat, double lon,
               int64_t time_ms, std::string* out);
// A GeoJSON Point feature of `p`: its fields as properties.
void AppendPointFeature(const model::TrackPoint& p, std::string* out);
// {"error":"..."}
std::string ErrorJson(absl::string_view message);

}  // namespace trackdb::web

#endif  // TRACKDB_SERVICE_WEB_MAP_JSON_H_
