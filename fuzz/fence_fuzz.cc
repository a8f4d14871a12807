// Fences from arbitrary client input, then arbitrary fixes through them:
// fence/'s compiler (trackdb.v1.Fence as any bytes, or built field by field
// from the input's numbers, NaN and out-of-range values included), its
// shapes, its index and its detector (a roaming fence's side at each fix
// from the input; `where` filters on speed and an attribute).
//
// Input: a byte choosing how the fence is made (even: the next bytes,
// length-prefixed, decoded as a trackdb.v1.Fence; odd: a shape and
// settings from the input's numbers), then fixes: a time step (which may
// go back, making a late fix), a position (skipped unless valid, as every
// door validates it) and an accuracy.
//
// Checked:
//   - CompileFence never crashes; a refusal says why;
//   - every event is of a kind the fence detects; ENTER/EXIT only when the
//     confirmed side changes that way; DWELL at most once per stay;
//   - a fix that does not count (inaccurate, filtered out, late, a repeat)
//     changes no state and reports at most a late INSIDE/OUTSIDE; the last
//     counted time never goes back;
//   - a path meets the shape when an end is in it; the fence index offers
//     the fence for every fix it contains and every path it meets.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fence/detector.h"
#include "fence/fence.h"
#include "fence/fence_index.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "model/limits.h"
#include "model/track_point.h"
#include "model/validate.h"
#include "trackdb/v1/fence.pb.h"

namespace trackdb::fuzz {
namespace {

constexpr int kMaxFixes = 64;

void SetLatLng(FuzzInput& in, double lat, double lon, double spread,
               v1::LatLng* out) {
  out->set_latitude(in.DoubleIn(lat - spread, lat + spread));
  out->set_longitude(in.DoubleIn(lon - spread, lon + spread));
}

// A fence near (lat, lon) from the input's numbers.
v1::Fence BuiltFence(FuzzInput& in) {
  v1::Fence f;
  f.set_collection("fleet");
  f.set_name("f" + in.String(8));
  const double lat = in.DoubleIn(-85, 85), lon = in.DoubleIn(-180, 180);
  const double spread = in.DoubleIn(0, 2);
  switch (in.Byte() % 4) {
    case 3:  // roaming: near another entity
      f.mutable_roam()->set_radius_m(in.DoubleIn(-1, 200000));
      if (in.Byte() & 1) f.mutable_roam()->set_entity_glob(in.String(8));
      if (in.Byte() & 1) f.mutable_roam()->set_collection(in.String(8));
      break;
    case 0:
      SetLatLng(in, lat, lon, 0, f.mutable_circle()->mutable_center());
      f.mutable_circle()->set_radius_m(in.DoubleIn(0, 200000));
      break;
    case 1:
      SetLatLng(in, lat, lon, spread, f.mutable_rect()->mutable_south_west());
      SetLatLng(in, lat, lon, spread, f.mutable_rect()->mutable_north_east());
      break;
    default: {
      const int rings = 1 + in.Byte() % 3;
      for (int r = 0; r < rings; ++r) {
        auto* vertices =
            r == 0 ? f.mutable_polygon()->mutable_vertices()
                   : f.mutable_polygon()->add_holes()->mutable_vertices();
        const int n = in.Byte() % 12;
        for (int i = 0; i < n; ++i)
          SetLatLng(in, lat, lon, spread, vertices->Add());
      }
    }
  }
  const uint8_t kinds = in.Byte();
  for (int k = 1; k <= 6; ++k) {
    if (kinds & (1 << k)) f.add_detect(static_cast<v1::FenceEventKind>(k));
  }
  f.set_debounce_fixes(in.Byte() % 5);
  f.set_debounce_ms(static_cast<int64_t>(in.Byte()) * 1000 - 2000);
  f.set_dwell_ms(static_cast<int64_t>(in.Byte()) * 1000);
  if (in.Byte() & 1) f.set_max_accuracy_m(in.DoubleIn(0, 100));
  f.set_late_points(static_cast<v1::LatePoints>(in.Byte() % 3));
  if (in.Byte() & 1) f.set_entity_glob(in.String(8));
  if (in.Byte() & 1) {
    v1::FenceWhere* w = f.add_where();
    w->set_field(in.Byte() & 1 ? "speed_kmh" : "load");
    if (in.Byte() & 1) w->set_min(in.DoubleIn(-10, 100));
    if (in.Byte() & 1) w->set_max(in.DoubleIn(-10, 100));
    if (in.Byte() & 1) w->add_in(in.Byte() & 1 ? "full" : in.String(4));
  }
  return f;
}

v1::Fence FenceFrom(FuzzInput& in) {
  if (in.Byte() % 2 == 1) return BuiltFence(in);
  const size_t n = (in.U32() % 4096);
  std::string bytes;
  for (size_t i = 0; i < n && in.remaining() > 0; ++i) bytes += in.Byte();
  v1::Fence f;
  f.ParseFromString(bytes);
  return f;
}

void CheckEvents(const fence::Fence& fence,
                 const fence::EntityFenceState& before,
                 const fence::EntityFenceState& after, bool counted,
                 const std::vector<fence::FenceHit>& hits) {
  for (const fence::FenceHit& h : hits) {
    FUZZ_CHECK(fence.Detects(h.kind)) << "kind " << h.kind << " not detected";
    FUZZ_CHECK(h.late == !counted) << "late flag on kind " << h.kind;
    if (h.kind == v1::FENCE_EVENT_ENTER) {
      FUZZ_CHECK(!before.inside && after.inside);
    }
    if (h.kind == v1::FENCE_EVENT_EXIT) {
      FUZZ_CHECK(before.inside && !after.inside);
    }
    if (h.kind == v1::FENCE_EVENT_DWELL) {
      FUZZ_CHECK(after.inside && after.dwell_reported &&
                 h.dwell_ms >= fence.dwell_ms);
    }
  }
  if (!counted) {
    FUZZ_CHECK(before == after) << "a fix that does not count changed state";
    for (const fence::FenceHit& h : hits) {
      FUZZ_CHECK(h.kind == v1::FENCE_EVENT_INSIDE ||
                 h.kind == v1::FENCE_EVENT_OUTSIDE);
    }
  }
}

// Where the fence is, roughly, and how far around it fixes should fall to
// meet its edges.
void Home(const v1::Fence& f, double* lat, double* lon, double* spread) {
  *lat = 0, *lon = 0, *spread = 1;
  if (f.has_circle()) {
    *lat = f.circle().center().latitude();
    *lon = f.circle().center().longitude();
    *spread = 2 * f.circle().radius_m() / 111000;
  } else if (f.has_rect()) {
    *lat = f.rect().south_west().latitude();
    *lon = f.rect().south_west().longitude();
    *spread = 2 * std::abs(f.rect().north_east().latitude() - *lat) + 0.01;
  } else if (f.polygon().vertices_size() > 0) {
    *lat = f.polygon().vertices(0).latitude();
    *lon = f.polygon().vertices(0).longitude();
  }
}

// The index offers the fence for a fix it contains and a path it meets.
void CheckIndex(const v1::Fence& proto, const fence::Fence& fence,
                const fence::FenceIndex& index,
                const std::optional<fence::PriorFix>& prior,
                const model::TrackPoint& fix) {
  const index::LatLng here{fix.lat, fix.lon};
  std::vector<uint64_t> ids;
  index.Candidates(here, &ids);
  FUZZ_CHECK(!fence.shape->Contains(here) || ids == std::vector<uint64_t>{7})
      << "index misses a fence that holds " << here.lat << "," << here.lon;
  if (!prior) return;
  const index::LatLng last{prior->lat, prior->lon};
  const bool meets = fence.shape->PathMeets(last, here);
  FUZZ_CHECK(meets ||
             !(fence.shape->Contains(last) || fence.shape->Contains(here)));
  ids.clear();
  index.PathCandidates(last, here, &ids);
  FUZZ_CHECK(!meets || ids == std::vector<uint64_t>{7})
      << "index misses a fence on the path from " << last.lat << "," << last.lon
      << " to " << here.lat << "," << here.lon << ": "
      << proto.ShortDebugString();
}

void RunFixes(FuzzInput& in, const v1::Fence& proto,
              const fence::Fence& fence) {
  double home_lat, home_lon, spread;
  Home(proto, &home_lat, &home_lon, &spread);
  // A roaming fence has no area: the input says where each fix lies.
  const bool roaming = fence.roam.has_value();
  fence::FenceIndex index;
  if (!roaming) index.Add(7, *fence.shape);
  fence::EntityFenceState state;
  std::optional<fence::PriorFix> prior;
  model::TrackPoint fix;
  fix.entity = "e";
  fix.loc_time_ms = 1700000000000;
  for (int i = 0; i < kMaxFixes && in.remaining() > 0; ++i) {
    fix.loc_time_ms += static_cast<int8_t>(in.Byte()) * 1000;
    if (in.Byte() % 8 == 0) {  // anywhere
      fix.lat = in.DoubleIn(-86, 86);
      fix.lon = in.DoubleIn(-181, 181);
    } else {  // around the fence
      fix.lat = in.DoubleIn(home_lat - spread, home_lat + spread);
      fix.lon = in.DoubleIn(home_lon - spread, home_lon + spread);
      if (fix.lon > 180) fix.lon -= 360;
      if (fix.lon < -180) fix.lon += 360;
    }
    fix.accuracy_m.reset();
    if (in.Byte() & 1) fix.accuracy_m = in.DoubleIn(0, 200);
    fix.speed_kmh.reset();
    if (in.Byte() & 1) fix.speed_kmh = in.DoubleIn(0, 120);
    fix.attributes.clear();
    if (in.Byte() & 1) fix.attributes.push_back({"load", in.String(4)});
    if (!model::ValidateStoredPoint(fix, "fix").ok() ||
        !model::ValidatePosition(fix.lat, fix.lon, "fix").ok()) {
      continue;
    }
    if (!roaming) CheckIndex(proto, fence, index, prior, fix);
    const fence::EntityFenceState before = state;
    const bool accurate = (!fence.max_accuracy_m || !fix.accuracy_m ||
                           *fix.accuracy_m <= *fence.max_accuracy_m) &&
                          fence.Matches(fix);
    const bool newer = fence::OrderOf(fix, prior) == fence::FixOrder::kNewer;
    const auto hits =
        roaming ? fence::Evaluate(fence, fix, prior, in.Byte() & 1, &state)
                : fence::Evaluate(fence, fix, prior, &state);
    CheckEvents(fence, before, state, accurate && newer, hits);
    if (newer) prior = fence::PriorFix{fix.loc_time_ms, fix.lat, fix.lon};
  }
}

}  // namespace
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trackdb;
  fuzz::FuzzInput in(data, size);
  const v1::Fence proto = fuzz::FenceFrom(in);
  auto compiled = fence::CompileFence(proto, model::Limits());
  if (!compiled.ok()) {
    FUZZ_CHECK(!compiled.status().message().empty());
    return 0;
  }
  fuzz::RunFixes(in, proto, *compiled);
  return 0;
}
