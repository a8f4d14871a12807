#include "fence/fence_test_util.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "model/limits.h"

namespace trackdb::fence::testing {
namespace {

v1::Fence Named() {
  v1::Fence f;
  f.set_collection("fleet");
  f.set_name("depot");
  return f;
}

void Set(v1::LatLng* out, double lat, double lon) {
  out->set_latitude(lat);
  out->set_longitude(lon);
}

}  // namespace

v1::Fence CircleFence(double lat, double lon, double radius_m) {
  v1::Fence f = Named();
  Set(f.mutable_circle()->mutable_center(), lat, lon);
  f.mutable_circle()->set_radius_m(radius_m);
  return f;
}

v1::Fence RectFence(double south, double west, double north, double east) {
  v1::Fence f = Named();
  Set(f.mutable_rect()->mutable_south_west(), south, west);
  Set(f.mutable_rect()->mutable_north_east(), north, east);
  return f;
}

v1::Fence PolygonFence(const std::vector<std::vector<index::LatLng>>& rings) {
  v1::Fence f = Named();
  for (size_t r = 0; r < rings.size(); ++r) {
    auto* vertices = r == 0
                         ? f.mutable_polygon()->mutable_vertices()
                         : f.mutable_polygon()->add_holes()->mutable_vertices();
    for (const index::LatLng& v : rings[r]) Set(vertices->Add(), v.lat, v.lon);
  }
  return f;
}

void DetectEverything(v1::Fence* fence) {
  fence->clear_detect();
  for (int k = v1::FENCE_EVENT_ENTER; k <= v1::FENCE_EVENT_DWELL; ++k) {
    fence->add_detect(static_cast<v1::FenceEventKind>(k));
  }
  if (fence->dwell_ms() == 0) fence->set_dwell_ms(60000);
}

Fence Compile(const v1::Fence& proto) {
  auto fence = CompileFence(proto, model::Limits());
  EXPECT_TRUE(fence.ok()) << fence.status();
  return *std::move(fence);
}

model::TrackPoint Fix(int64_t t_ms, double lat, double lon,
                      std::optional<double> accuracy_m) {
  model::TrackPoint p;
  p.entity = "truck-7";
  p.loc_time_ms = t_ms;
  p.lat = lat;
  p.lon = lon;
  p.accuracy_m = accuracy_m;
  return p;
}

std::string Describe(const FenceHit& hit) {
  std::string name = v1::FenceEventKind_Name(hit.kind);
  name = name.substr(name.rfind('_') + 1);
  if (hit.late) name = "late " + name;
  if (hit.kind == v1::FENCE_EVENT_DWELL)
    absl::StrAppend(&name, " ", hit.dwell_ms);
  return name;
}

std::vector<std::string> Describe(const std::vector<FenceHit>& hits) {
  std::vector<std::string> out;
  for (const FenceHit& h : hits) out.push_back(Describe(h));
  return out;
}

}  // namespace trackdb::fence::testing
