#ifndef TRACKDB_MODEL_TRACK_POINT_H_
#define TRACKDB_MODEL_TRACK_POINT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trackdb::model {

// One observation of an entity: what trackers send and what storage keeps.
// model/validate.h says which points are valid; every door checks there.
struct TrackPoint {
  std::string entity;
  int64_t loc_time_ms = 0;  // when the position was measured, Unix ms
  double lat = 0;
  double lon = 0;
  std::optional<double> speed_kmh;
  std::optional<double> direction_deg;
  std::optional<double> height_m;
  std::optional<double> accuracy_m;
  // Small free-form attributes, kept in the order given.
  std::vector<std::pair<std::string, std::string>> attributes;

  bool operator==(const TrackPoint& o) const {
    return entity == o.entity && loc_time_ms == o.loc_time_ms && lat == o.lat &&
           lon == o.lon && speed_kmh == o.speed_kmh &&
           direction_deg == o.direction_deg && height_m == o.height_m &&
           accuracy_m == o.accuracy_m && attributes == o.attributes;
  }
};

}  // namespace trackdb::model

#endif  // TRACKDB_MODEL_TRACK_POINT_H_
