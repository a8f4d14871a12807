#include "model/limits.h"

namespace trackdb::model {

Limits LimitsFrom(const v1::LimitsConfig& config) {
  Limits l;
  if (config.has_max_batch_points()) {
    l.max_batch_points = config.max_batch_points();
  }
  if (config.has_max_radius_m()) l.max_radius_m = config.max_radius_m();
  if (config.has_max_polygon_vertices()) {
    l.max_polygon_vertices = config.max_polygon_vertices();
  }
  if (config.has_min_loc_time_ms()) {
    l.min_loc_time_ms = config.min_loc_time_ms();
  }
  if (config.has_max_future_ms()) l.max_future_ms = config.max_future_ms();
  if (config.has_max_attributes()) l.max_attributes = config.max_attributes();
  if (config.has_max_attribute_bytes()) {
    l.max_attribute_bytes = config.max_attribute_bytes();
  }
  return l;
}

v1::LimitsConfig WithLimitDefaults(const v1::LimitsConfig& config) {
  const Limits l = LimitsFrom(config);
  v1::LimitsConfig out;
  out.set_max_batch_points(l.max_batch_points);
  out.set_max_radius_m(l.max_radius_m);
  out.set_max_polygon_vertices(l.max_polygon_vertices);
  out.set_min_loc_time_ms(l.min_loc_time_ms);
  out.set_max_future_ms(l.max_future_ms);
  out.set_max_attributes(l.max_attributes);
  out.set_max_attribute_bytes(l.max_attribute_bytes);
  return out;
}

}  // namespace trackdb::model
