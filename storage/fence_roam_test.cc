// Roaming fences through the store: entities that move near each other,
// against a brute-force reference. The reference keeps every entity's
// latest fix by the store's rule (fence::OrderOf), decides each fix's side
// by measuring its distance to every other entity's latest (no index), and
// runs each entity's whole sequence through the whole-sequence reference
// (fence::testing::ReferenceEvents), with debounce, dwell, accuracy gating
// and late fixes varied round by round.

#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fence/detector.h"
#include "fence/fence_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/distance.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::ElementsAre;
using testing::OpenStore;
using testing::Point;

constexpr double kLat = 40.0, kLon = 116.0;
constexpr int64_t kT0 = 1700000000000;

v1::Fence RoamFence(double radius_m) {
  v1::Fence f = fence::testing::CircleFence(kLat, kLon, 1);
  f.clear_circle();
  f.set_name("near");
  f.mutable_roam()->set_radius_m(radius_m);
  return f;
}

// "<entity> <t> <hit>[ near <nearby>]" per event, in log order.
std::vector<std::string> Logged(TrackStore& store,
                                absl::string_view collection) {
  auto page = store.fences().ReadEvents(collection, 1, 1 << 20);
  EXPECT_TRUE(page.ok()) << page.status();
  std::vector<std::string> out;
  for (const FenceEventRecord& e : page->events) {
    out.push_back(absl::StrCat(
        e.point.entity, " ", e.point.loc_time_ms, " ",
        fence::testing::Describe(fence::FenceHit{e.kind, e.late, e.dwell_ms}),
        e.nearby.empty() ? "" : " near ", e.nearby));
  }
  return out;
}

TEST(FenceRoamTest, EntitiesMeetAndPart) {
  auto store = OpenStore(testing::NewDataDir());
  v1::Fence f = RoamFence(300);
  f.add_detect(v1::FENCE_EVENT_ENTER);
  f.add_detect(v1::FENCE_EVENT_EXIT);
  ASSERT_TRUE(store->fences().Put(f).ok());
  auto add = [&](const char* e, int64_t t, double lat) {
    ASSERT_TRUE(store->AddPoints("fleet", {Point(e, t, lat, kLon)}).ok());
  };
  add("bus", 1000, kLat);
  add("car", 1000, kLat + 0.01);   // 1.1 km north: apart
  add("car", 2000, kLat + 0.002);  // 222 m: meets the bus
  add("car", 3000, kLat + 0.01);   // apart again
  add("bus", 4000, kLat + 0.009);  // the bus follows: 111 m from the car
  EXPECT_THAT(Logged(*store, "fleet"),
              ElementsAre(absl::StrCat("car 2000 ENTER near bus"),
                          "car 3000 EXIT", "bus 4000 ENTER near car"));
  auto inside = store->fences().Members("fleet", "near");
  ASSERT_TRUE(inside.ok());
  EXPECT_THAT(*inside, ElementsAre("bus"))
      << "the car left at 3000 and has sent no fix since the bus came";
}

TEST(FenceRoamTest, TargetsInAnotherCollection) {
  auto store = OpenStore(testing::NewDataDir());
  v1::Fence f = RoamFence(500);
  f.set_collection("cars");
  f.mutable_roam()->set_collection("depots");
  f.mutable_roam()->set_entity_glob("depot-*");
  ASSERT_TRUE(store->fences().Put(f).ok());
  ASSERT_TRUE(
      store->AddPoints("depots", {Point("depot-1", 1, kLat, kLon)}).ok());
  ASSERT_TRUE(store->AddPoints("depots", {Point("shop", 1, kLat, 117)}).ok());
  ASSERT_TRUE(store->AddPoints("cars", {Point("depot-1", 5, kLat, 117)}).ok())
      << "a car named like a depot, beside the shop (not a target)";
  ASSERT_TRUE(
      store->AddPoints("cars", {Point("depot-1", 9, kLat + 0.001, kLon)}).ok());
  EXPECT_THAT(Logged(*store, "cars"), ElementsAre("depot-1 9 ENTER near "
                                                  "depot-1"))
      << "the same id in another collection is another entity";
  EXPECT_THAT(Logged(*store, "depots"), ::testing::IsEmpty());
}

// --- Random walks against the reference ---

struct Round {
  v1::Fence fence;
  std::vector<model::TrackPoint> writes;  // one per AddPoints, in order
};

// Three entities wandering around one spot, so that they keep meeting and
// parting; some fixes inaccurate, some late, some at the time of the one
// before. Every (entity, time) once.
Round RandomRound(int round, std::mt19937* rng) {
  Round r;
  r.fence = RoamFence(250);
  fence::testing::DetectEverything(&r.fence);
  r.fence.clear_detect();
  for (auto k :
       {v1::FENCE_EVENT_ENTER, v1::FENCE_EVENT_EXIT, v1::FENCE_EVENT_INSIDE,
        v1::FENCE_EVENT_OUTSIDE, v1::FENCE_EVENT_DWELL}) {
    r.fence.add_detect(k);
  }
  r.fence.set_dwell_ms(40000);
  r.fence.set_debounce_fixes(round % 3);
  r.fence.set_debounce_ms(round % 2 ? 15000 : 0);
  r.fence.set_late_points(round % 2 ? v1::LATE_POINTS_DROP
                                    : v1::LATE_POINTS_REPORT);
  if (round % 4 != 3) r.fence.set_max_accuracy_m(60);
  if (round % 4 == 1) r.fence.set_entity_glob("[ab]");
  std::uniform_real_distribution<double> step(-0.0015, 0.0015);
  std::uniform_int_distribution<int> pct(0, 99), gap(1, 20);
  std::map<std::string, model::TrackPoint> at;
  std::map<std::string, std::set<int64_t>> used;
  for (const char* e : {"a", "b", "c"}) at[e] = Point(e, kT0, kLat, kLon);
  for (int i = 0; i < 600; ++i) {
    const std::string e(1, static_cast<char>('a' + pct(*rng) % 3));
    model::TrackPoint& p = at[e];
    p.lat += step(*rng) + (kLat - p.lat) * 0.1;
    p.lon += step(*rng) + (kLon - p.lon) * 0.1;
    int64_t when = (p.loc_time_ms += gap(*rng) * 1000);
    if (pct(*rng) < 8) when -= gap(*rng) * 3000 + 7;  // late
    const bool replace =
        pct(*rng) < 4 && !r.writes.empty() && r.writes.back().entity == e;
    if (replace) {
      when = r.writes.back().loc_time_ms;  // moves the fix before
    } else if (!used[e].insert(when).second) {
      continue;
    }
    model::TrackPoint fix = Point(e, when, p.lat, p.lon);
    if (pct(*rng) < 50) fix.accuracy_m = 5 + pct(*rng);
    r.writes.push_back(fix);
  }
  return r;
}

// Each write's events, "<entity> <t> <hit>[ near <nearby>]", in write
// order.
std::vector<std::string> ReferenceEvents(const Round& r) {
  const fence::Fence fence = fence::testing::Compile(r.fence);
  const double radius = r.fence.roam().radius_m();
  std::map<std::string, std::optional<fence::PriorFix>> latest;
  // Per entity: its fixes, each one's side and nearest target, and which
  // write each is.
  std::map<std::string, std::vector<model::TrackPoint>> fixes;
  std::map<std::string, std::vector<bool>> inside;
  std::map<std::string, std::vector<std::string>> nearest;
  std::vector<std::pair<std::string, size_t>> write_of;
  for (const model::TrackPoint& p : r.writes) {
    std::string best;
    double best_d = 0;
    for (const auto& [other, at] : latest) {
      if (other == p.entity || !at) continue;
      const double d =
          index::HaversineMeters({p.lat, p.lon}, {at->lat, at->lon});
      if (d <= radius && (best.empty() || d < best_d)) best = other, best_d = d;
    }
    write_of.push_back({p.entity, fixes[p.entity].size()});
    fixes[p.entity].push_back(p);
    inside[p.entity].push_back(!best.empty());
    nearest[p.entity].push_back(best);
    std::optional<fence::PriorFix>& mine = latest[p.entity];
    if (fence::OrderOf(p, mine) == fence::FixOrder::kNewer) {
      mine = fence::PriorFix{p.loc_time_ms, p.lat, p.lon};
    }
  }
  std::map<std::string, std::vector<std::vector<std::string>>> events;
  for (const auto& [e, seq] : fixes) {
    if (!fence.Applies(e)) continue;
    const std::vector<bool>& side = inside[e];
    events[e] = fence::testing::ReferenceEvents(
        fence, seq, [&](size_t i) { return side[i]; },
        [](size_t, size_t) { return false; });
  }
  std::vector<std::string> out;
  for (const auto& [e, i] : write_of) {
    if (!events.count(e)) continue;
    for (const std::string& hit : events[e][i]) {
      const std::string& near = nearest[e][i];
      out.push_back(absl::StrCat(e, " ", fixes[e][i].loc_time_ms, " ", hit,
                                 near.empty() ? "" : " near ", near));
    }
  }
  return out;
}

TEST(FenceRoamTest, AgreesWithABruteForceReference) {
  std::mt19937 rng(7);
  std::map<std::string, int> kinds;
  for (int round = 0; round < 12; ++round) {
    const Round r = RandomRound(round, &rng);
    auto store = OpenStore(testing::NewDataDir());
    ASSERT_TRUE(store->fences().Put(r.fence).ok());
    for (const model::TrackPoint& p : r.writes) {
      ASSERT_TRUE(store->AddPoints("fleet", {p}).ok());
    }
    const std::vector<std::string> got = Logged(*store, "fleet");
    ASSERT_EQ(got, ReferenceEvents(r)) << "round " << round;
    for (const std::string& e : got) {
      const std::string hit = e.substr(e.find(' ', e.find(' ') + 1) + 1);
      ++kinds[hit.substr(0, hit.find(' '))];
    }
  }
  // The walks must reach every rule, or agreeing proves little.
  for (const char* kind : {"ENTER", "EXIT", "DWELL", "late", "INSIDE"}) {
    EXPECT_GT(kinds[kind], 20) << kind;
  }
}

}  // namespace
}  // namespace trackdb::storage
