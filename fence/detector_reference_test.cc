// The detector (incremental, one fix at a time, a few bytes of state)
// against a reference written from the rules in detector.h over a whole
// sequence of fixes at once: which fixes count, each one's observed side,
// the confirmed side from runs of fixes, stays, and CROSS by sampling the
// path densely. Random walks around a circle, a rectangle across the
// antimeridian and a concave polygon with a hole, with boundary jitter,
// inaccurate fixes, late fixes and every debounce setting.

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fence/detector.h"
#include "fence/fence_test_util.h"
#include "gtest/gtest.h"

namespace trackdb::fence {
namespace {

using testing::Compile;
using testing::Describe;

// Whether some point of the path a-b (straight in lon/lat, the short way)
// is in the shape, by looking at `samples` evenly spaced points.
bool SampledPathMeets(const FenceShape& shape, index::LatLng a, index::LatLng b,
                      int samples) {
  if (b.lon - a.lon > 180) b.lon -= 360;
  if (a.lon - b.lon > 180) b.lon += 360;
  for (int i = 0; i <= samples; ++i) {
    const double t = static_cast<double>(i) / samples;
    index::LatLng p{a.lat + (b.lat - a.lat) * t, a.lon + (b.lon - a.lon) * t};
    if (p.lon > 180) p.lon -= 360;
    if (p.lon < -180) p.lon += 360;
    if (shape.Contains(p)) return true;
  }
  return false;
}

struct Walk {
  index::LatLng centre;  // where the walk keeps returning to
  double step_deg;       // the largest step
};

// Fixes wandering around `walk.centre`: steps up to step_deg, 1-30 s apart,
// some inaccurate, some late (an earlier time than the last), some at the
// time of the one before (a repeat of it, or a move).
std::vector<model::TrackPoint> RandomFixes(const Walk& walk, int n,
                                           std::mt19937* rng) {
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> gap_s(1, 30), pct(0, 99);
  std::vector<model::TrackPoint> fixes;
  index::LatLng p = walk.centre;
  int64_t t = 1700000000000;
  for (int i = 0; i < n; ++i) {
    // A pull back towards the centre keeps the walk near the boundary.
    p.lat += unit(*rng) * walk.step_deg + (walk.centre.lat - p.lat) * 0.1;
    p.lon += unit(*rng) * walk.step_deg + (walk.centre.lon - p.lon) * 0.1;
    double lon = p.lon > 180 ? p.lon - 360 : p.lon < -180 ? p.lon + 360 : p.lon;
    const int kind = pct(*rng);
    if (kind < 3 && !fixes.empty()) {  // a repeat
      fixes.push_back(fixes.back());
      continue;
    }
    int64_t when = (t += gap_s(*rng) * 1000);
    if (kind < 6 && !fixes.empty()) when = fixes.back().loc_time_ms;
    if (kind >= 6 && kind < 14) when -= gap_s(*rng) * 4000;  // late
    std::optional<double> accuracy;
    if (pct(*rng) < 70) accuracy = 5 + pct(*rng);
    fixes.push_back(testing::Fix(when, p.lat, lon, accuracy));
    // For the `where` filters: mostly moving, mostly loaded.
    if (pct(*rng) < 90) fixes.back().speed_kmh = pct(*rng);
    if (pct(*rng) < 90) {
      fixes.back().attributes.push_back(
          {"load", pct(*rng) < 80 ? "full" : "empty"});
    }
  }
  return fixes;
}

void CheckAgainstReference(v1::Fence proto, const Walk& walk, uint32_t seed) {
  testing::DetectEverything(&proto);
  std::mt19937 rng(seed);
  int crosses = 0, enters = 0, dwells = 0;
  for (int round = 0; round < 40; ++round) {
    proto.set_debounce_fixes(round % 4);
    proto.set_debounce_ms(round % 3 == 0 ? 0 : 20000 * (round % 3));
    proto.set_late_points(round % 2 ? v1::LATE_POINTS_REPORT
                                    : v1::LATE_POINTS_DROP);
    if (round % 5 == 4) {
      proto.clear_max_accuracy_m();
    } else {
      proto.set_max_accuracy_m(60);
    }
    proto.clear_where();
    if (round % 3 == 1) {
      v1::FenceWhere* moving = proto.add_where();
      moving->set_field("speed_kmh");
      moving->set_min(5);
      v1::FenceWhere* loaded = proto.add_where();
      loaded->set_field("load");
      loaded->add_in("full");
    }
    const Fence fence = Compile(proto);
    const auto fixes = RandomFixes(walk, 400, &rng);
    const auto expected = testing::ReferenceEvents(
        fence, fixes,
        [&](size_t i) {
          return fence.shape->Contains({fixes[i].lat, fixes[i].lon});
        },
        [&](size_t from, size_t to) {
          const index::LatLng a{fixes[from].lat, fixes[from].lon};
          const index::LatLng b{fixes[to].lat, fixes[to].lon};
          // Dense sampling; a disagreement is looked at a thousand times
          // closer.
          return SampledPathMeets(*fence.shape, a, b, 4096) ||
                 (fence.shape->PathMeets(a, b) &&
                  SampledPathMeets(*fence.shape, a, b, 4096 * 1000));
        });
    EntityFenceState state;
    std::optional<PriorFix> prior;
    for (size_t i = 0; i < fixes.size(); ++i) {
      const model::TrackPoint& p = fixes[i];
      const auto got = Describe(Evaluate(fence, p, prior, &state));
      if (OrderOf(p, prior) == FixOrder::kNewer) {
        prior = PriorFix{p.loc_time_ms, p.lat, p.lon};
      }
      ASSERT_EQ(got, expected[i]) << "round " << round << ", fix " << i;
      for (const std::string& e : got) {
        crosses += e == "CROSS";
        enters += e == "ENTER";
        dwells += e.rfind("DWELL", 0) == 0;
      }
    }
  }
  // The walks must reach every rule, or agreeing proves little.
  EXPECT_GT(crosses, 10);
  EXPECT_GT(enters, 100);
  EXPECT_GT(dwells, 50);
}

TEST(DetectorReferenceTest, Circle) {
  CheckAgainstReference(testing::CircleFence(40, 116, 500),
                        {{40.0045, 116}, 0.004}, 1);
}

TEST(DetectorReferenceTest, RectAcrossTheAntimeridian) {
  CheckAgainstReference(testing::RectFence(-0.004, 179.996, 0.004, -179.996),
                        {{0.004, 180}, 0.004}, 2);
}

TEST(DetectorReferenceTest, ConcavePolygonWithAHole) {
  // A "C" open to the east, 0.02 degrees across, with a square hole.
  CheckAgainstReference(
      testing::PolygonFence(
          {{{0, 0},
            {0, 0.03},
            {0.01, 0.03},
            {0.01, 0.01},
            {0.02, 0.01},
            {0.02, 0.03},
            {0.03, 0.03},
            {0.03, 0}},
           {{0.002, 0.002}, {0.002, 0.006}, {0.006, 0.006}, {0.006, 0.002}}}),
      {{0.015, 0.012}, 0.006}, 3);
}

}  // namespace
}  // namespace trackdb::fence
