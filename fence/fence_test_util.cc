#include "fence/fence_test_util.h"

#include <cstdlib>

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

namespace {

// Fence::Matches, written out again for the reference: the field's value
// (a named number, or the last attribute of that name) in the list, or
// as a number in the range.
bool MeetsEveryWhere(const Fence& fence, const model::TrackPoint& p) {
  for (const Where& w : fence.where) {
    std::optional<double> number;
    std::optional<std::string> text;
    if (w.attribute == "speed_kmh") number = p.speed_kmh;
    if (w.attribute == "direction_deg") number = p.direction_deg;
    if (w.attribute == "height_m") number = p.height_m;
    if (w.attribute == "accuracy_m") number = p.accuracy_m;
    if (w.field == Where::Field::kAttribute) {
      for (const auto& [name, value] : p.attributes) {
        if (name == w.attribute) text = value;
      }
      if (!text) return false;
      if (!w.in.empty()) {
        bool listed = false;
        for (const std::string& v : w.in) listed = listed || v == *text;
        if (!listed) return false;
        continue;
      }
      char* end = nullptr;
      const double d = std::strtod(text->c_str(), &end);
      if (text->empty() || *end != '\0') return false;
      number = d;
    }
    if (!number || (w.min && *number < *w.min) || (w.max && *number > *w.max)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<std::vector<std::string>> ReferenceEvents(
    const Fence& fence, const std::vector<model::TrackPoint>& fixes,
    const std::function<bool(size_t)>& inside,
    const std::function<bool(size_t, size_t)>& path_meets) {
  std::vector<std::vector<std::string>> out(fixes.size());
  auto emit = [&](size_t i, v1::FenceEventKind kind, std::string text) {
    if (fence.Detects(kind)) out[i].push_back(std::move(text));
  };
  // Counted fixes, in order, each one's observed side and its prior fix
  // (the newest before it, whatever its accuracy).
  std::vector<size_t> counted;
  std::vector<int> prior_of;
  std::vector<bool> side;
  int newest = -1;
  for (size_t i = 0; i < fixes.size(); ++i) {
    const model::TrackPoint& p = fixes[i];
    const model::TrackPoint* last = newest >= 0 ? &fixes[newest] : nullptr;
    const bool late = last && p.loc_time_ms < last->loc_time_ms;
    const bool repeat = last && p.loc_time_ms == last->loc_time_ms &&
                        p.lat == last->lat && p.lon == last->lon;
    const int prior = newest;
    if (!late && !repeat) newest = static_cast<int>(i);
    if (repeat ||
        (fence.max_accuracy_m && p.accuracy_m &&
         *p.accuracy_m > *fence.max_accuracy_m) ||
        !MeetsEveryWhere(fence, p)) {
      continue;
    }
    const bool in = inside(i);
    if (late) {
      if (fence.late_points == v1::LATE_POINTS_REPORT) {
        emit(i, in ? v1::FENCE_EVENT_INSIDE : v1::FENCE_EVENT_OUTSIDE,
             in ? "late INSIDE" : "late OUTSIDE");
      }
      continue;
    }
    counted.push_back(i);
    prior_of.push_back(prior);
    side.push_back(in);
  }
  bool confirmed = false;  // outside before the first fix
  int64_t stay_start = 0;
  bool dwelled = false;
  for (size_t k = 0; k < counted.size(); ++k) {
    const size_t i = counted[k];
    const int64_t t = fixes[i].loc_time_ms;
    const bool before = confirmed;
    if (side[k] != confirmed) {
      size_t j = k;  // the run of fixes on this side that ends here
      while (j > 0 && side[j - 1] == side[k]) --j;
      const int64_t run_start = fixes[counted[j]].loc_time_ms;
      if (k - j + 1 >= fence.debounce_fixes &&
          t - run_start >= fence.debounce_ms) {
        confirmed = side[k];
        if (confirmed) stay_start = run_start, dwelled = false;
      }
    }
    if (prior_of[k] >= 0 && !before && !confirmed && (k == 0 || !side[k - 1]) &&
        !side[k]) {
      if (fence.Detects(v1::FENCE_EVENT_CROSS) &&
          path_meets(static_cast<size_t>(prior_of[k]), i)) {
        emit(i, v1::FENCE_EVENT_CROSS, "CROSS");
      }
    }
    if (confirmed != before) {
      emit(i, confirmed ? v1::FENCE_EVENT_ENTER : v1::FENCE_EVENT_EXIT,
           confirmed ? "ENTER" : "EXIT");
    }
    if (confirmed && !dwelled && t - stay_start >= fence.dwell_ms) {
      dwelled = true;
      emit(i, v1::FENCE_EVENT_DWELL, absl::StrCat("DWELL ", t - stay_start));
    }
    emit(i, confirmed ? v1::FENCE_EVENT_INSIDE : v1::FENCE_EVENT_OUTSIDE,
         confirmed ? "INSIDE" : "OUTSIDE");
  }
  return out;
}

}  // namespace trackdb::fence::testing
