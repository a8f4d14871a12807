#include "fence/detector.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fence/fence_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::fence {
namespace {

using testing::Compile;
using testing::Describe;
using ::testing::ElementsAre;
using testing::Fix;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A 500 m circle; fixes on a line north of its centre.
constexpr double kLat = 40.0, kLon = 116.0;
constexpr double kIn = 40.0;          // the centre
constexpr double kOut = 40.01;        // 1.1 km north
constexpr double kJustIn = 40.0044;   // ~489 m
constexpr double kJustOut = 40.0046;  // ~511 m

class DetectorTest : public ::testing::Test {
 protected:
  // Evaluates each fix in turn; returns each one's events.
  std::vector<std::vector<std::string>> Run(
      const Fence& fence, const std::vector<model::TrackPoint>& fixes) {
    std::vector<std::vector<std::string>> out;
    for (const model::TrackPoint& p : fixes) {
      out.push_back(Describe(Evaluate(fence, p, prior_, &state_)));
      if (OrderOf(p, prior_) == FixOrder::kNewer) {
        prior_ = PriorFix{p.loc_time_ms, p.lat, p.lon};
      }
    }
    return out;
  }
  // As a store keeps it: the entity's newest fix, whatever its accuracy.
  std::optional<PriorFix> prior_;
  EntityFenceState state_;
};

TEST_F(DetectorTest, EnterAndExitAtTheFixesThatCrossTheBoundary) {
  const Fence fence = Compile(testing::CircleFence(kLat, kLon, 500));
  EXPECT_THAT(Run(fence, {Fix(1000, kOut, kLon), Fix(2000, kIn, kLon),
                          Fix(3000, kIn, kLon), Fix(4000, kOut, kLon)}),
              ElementsAre(IsEmpty(), ElementsAre("ENTER"), IsEmpty(),
                          ElementsAre("EXIT")));
}

TEST_F(DetectorTest, AnEntityFirstSeenInsideEnters) {
  const Fence fence = Compile(testing::CircleFence(kLat, kLon, 500));
  EXPECT_THAT(Run(fence, {Fix(1000, kIn, kLon)}),
              ElementsAre(ElementsAre("ENTER")));
}

TEST_F(DetectorTest, DebounceSwallowsBoundaryJitter) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.set_debounce_fixes(3);
  const Fence fence = Compile(proto);
  std::vector<model::TrackPoint> fixes;
  int64_t t = 0;
  for (int i = 0; i < 10; ++i) {  // flapping across the edge: no event
    fixes.push_back(Fix(t += 1000, i % 2 ? kJustOut : kJustIn, kLon));
  }
  for (int i = 0; i < 3; ++i) fixes.push_back(Fix(t += 1000, kJustIn, kLon));
  const auto events = Run(fence, fixes);
  for (int i = 0; i < 12; ++i) EXPECT_THAT(events[i], IsEmpty()) << i;
  EXPECT_THAT(events[12], ElementsAre("ENTER"));
}

TEST_F(DetectorTest, DebounceByTimeWaitsForTheFixesToSpanIt) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.set_debounce_ms(30000);
  const Fence fence = Compile(proto);
  EXPECT_THAT(Run(fence, {Fix(0, kOut, kLon), Fix(10000, kIn, kLon),
                          Fix(20000, kIn, kLon), Fix(25000, kOut, kLon),
                          Fix(30000, kIn, kLon), Fix(60000, kIn, kLon)}),
              ElementsAre(IsEmpty(), IsEmpty(), IsEmpty(), IsEmpty(), IsEmpty(),
                          ElementsAre("ENTER")));
}

TEST_F(DetectorTest, DwellOncePerStayFromWhenTheStayBegan) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.add_detect(v1::FENCE_EVENT_DWELL);
  proto.set_dwell_ms(60000);
  proto.set_debounce_fixes(2);
  const Fence fence = Compile(proto);
  EXPECT_THAT(
      Run(fence, {Fix(0, kIn, kLon), Fix(20000, kIn, kLon),
                  Fix(59000, kIn, kLon), Fix(61000, kIn, kLon),
                  Fix(120000, kIn, kLon), Fix(130000, kOut, kLon),
                  Fix(140000, kOut, kLon), Fix(150000, kIn, kLon),
                  Fix(160000, kIn, kLon), Fix(215000, kIn, kLon)}),
      ElementsAre(IsEmpty(), IsEmpty(), IsEmpty(), ElementsAre("DWELL 61000"),
                  IsEmpty(), IsEmpty(), IsEmpty(), IsEmpty(), IsEmpty(),
                  ElementsAre("DWELL 65000")));
}

// Two fixes at one time: the store keeps the later written as the latest
// point, so the fence follows it too; an exact repeat (a retried write) is
// not a second fix.
TEST_F(DetectorTest, AFixAsOldAsTheLastIsARepeatOrAMove) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.add_detect(v1::FENCE_EVENT_ENTER);
  proto.add_detect(v1::FENCE_EVENT_EXIT);
  proto.add_detect(v1::FENCE_EVENT_INSIDE);
  proto.set_debounce_fixes(2);
  const Fence fence = Compile(proto);
  EXPECT_THAT(Run(fence, {Fix(1000, kIn, kLon), Fix(1000, kIn, kLon),
                          Fix(2000, kIn, kLon), Fix(2000, kIn, kLon),
                          Fix(3000, kOut, kLon), Fix(3000, kOut, kLon),
                          Fix(3000, kJustOut, kLon)}),
              ElementsAre(IsEmpty(), IsEmpty(), ElementsAre("ENTER", "INSIDE"),
                          IsEmpty(), ElementsAre("INSIDE"), IsEmpty(),
                          ElementsAre("EXIT")));
  EXPECT_FALSE(state_.inside);
  EXPECT_EQ(OrderOf(Fix(5, 1, 2), PriorFix{5, 1, 2}), FixOrder::kRepeat);
  EXPECT_EQ(OrderOf(Fix(5, 1, 2.5), PriorFix{5, 1, 2}), FixOrder::kNewer);
  EXPECT_EQ(OrderOf(Fix(4, 1, 2), PriorFix{5, 1, 2}), FixOrder::kLate);
  EXPECT_EQ(OrderOf(Fix(4, 1, 2), std::nullopt), FixOrder::kNewer);
}

TEST_F(DetectorTest, ALateFixNeverExitsOrEnters) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  const Fence dropping = Compile(proto);
  EXPECT_THAT(Run(dropping, {Fix(1000, kIn, kLon), Fix(3000, kIn, kLon),
                             Fix(2000, kOut, kLon), Fix(2999, kOut, kLon),
                             Fix(4000, kIn, kLon)}),
              ElementsAre(ElementsAre("ENTER"), IsEmpty(), IsEmpty(), IsEmpty(),
                          IsEmpty()));
  EXPECT_TRUE(state_.inside);

  proto.add_detect(v1::FENCE_EVENT_ENTER);
  proto.add_detect(v1::FENCE_EVENT_EXIT);
  proto.add_detect(v1::FENCE_EVENT_OUTSIDE);
  proto.set_late_points(v1::LATE_POINTS_REPORT);
  const Fence reporting = Compile(proto);
  state_ = {};
  prior_.reset();
  EXPECT_THAT(Run(reporting, {Fix(1000, kIn, kLon), Fix(3000, kIn, kLon),
                              Fix(2000, kOut, kLon)}),
              ElementsAre(ElementsAre("ENTER"), IsEmpty(),
                          ElementsAre("late OUTSIDE")));
  EXPECT_TRUE(state_.inside);
}

TEST_F(DetectorTest, InaccurateFixesDoNotCount) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.set_max_accuracy_m(50);
  const Fence fence = Compile(proto);
  EXPECT_THAT(Run(fence, {Fix(1000, kIn, kLon, 10), Fix(2000, kOut, kLon, 200),
                          Fix(3000, kIn, kLon, 50), Fix(4000, kOut, kLon)}),
              ElementsAre(ElementsAre("ENTER"), IsEmpty(), IsEmpty(),
                          ElementsAre("EXIT")));
}

TEST_F(DetectorTest, CrossWhenThePathBetweenTwoOutsideFixesGoesThrough) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.add_detect(v1::FENCE_EVENT_CROSS);
  const Fence fence = Compile(proto);
  // South to north through the centre, then east to west well north of it.
  EXPECT_THAT(
      Run(fence, {Fix(1000, 39.99, kLon), Fix(2000, 40.01, kLon),
                  Fix(3000, 40.01, 116.01), Fix(4000, 40.01, 115.99)}),
      ElementsAre(IsEmpty(), ElementsAre("CROSS"), IsEmpty(), IsEmpty()));
}

TEST_F(DetectorTest, LatenessIsByTheEntitysNewestFixWhateverItsAccuracy) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.set_max_accuracy_m(50);
  const Fence fence = Compile(proto);
  // The inaccurate fix at 3000 does not count, but a fix at 2500 is late.
  EXPECT_THAT(
      Run(fence, {Fix(1000, kOut, kLon, 10), Fix(3000, kIn, kLon, 90),
                  Fix(2500, kIn, kLon, 10), Fix(4000, kIn, kLon, 10)}),
      ElementsAre(IsEmpty(), IsEmpty(), IsEmpty(), ElementsAre("ENTER")));
}

TEST_F(DetectorTest, OutsideWithNothingPendingIsResting) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.set_debounce_fixes(2);
  const Fence fence = Compile(proto);
  EXPECT_TRUE(state_.Resting());
  Run(fence, {Fix(1000, kOut, kLon)});
  EXPECT_TRUE(state_.Resting());
  Run(fence, {Fix(2000, kIn, kLon)});  // pending
  EXPECT_FALSE(state_.Resting());
  Run(fence, {Fix(3000, kIn, kLon)});  // ENTER
  EXPECT_FALSE(state_.Resting());
  Run(fence, {Fix(4000, kOut, kLon), Fix(5000, kOut, kLon)});  // EXIT
  EXPECT_FALSE(state_.inside);
  EXPECT_TRUE(state_.Resting());
}

TEST_F(DetectorTest, InsideAndOutsideFollowTheConfirmedSide) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.add_detect(v1::FENCE_EVENT_INSIDE);
  proto.add_detect(v1::FENCE_EVENT_OUTSIDE);
  proto.set_debounce_fixes(2);
  const Fence fence = Compile(proto);
  EXPECT_THAT(Run(fence, {Fix(1000, kOut, kLon), Fix(2000, kIn, kLon),
                          Fix(3000, kIn, kLon)}),
              ElementsAre(ElementsAre("OUTSIDE"), ElementsAre("OUTSIDE"),
                          ElementsAre("INSIDE")));
}

TEST_F(DetectorTest, EntityGlobChoosesWhoTheFenceWatches) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.set_entity_glob("truck-*");
  const Fence fence = Compile(proto);
  EXPECT_TRUE(fence.Applies("truck-7"));
  EXPECT_FALSE(fence.Applies("bus-3"));
  EXPECT_TRUE(Compile(testing::CircleFence(kLat, kLon, 500)).Applies("bus-3"));
}

TEST(CompileFenceTest, BadSettingsNameTheirField) {
  auto error = [](v1::Fence f) {
    auto c = CompileFence(f, model::Limits());
    return c.ok() ? std::string("OK") : std::string(c.status().message());
  };
  v1::Fence f = testing::CircleFence(kLat, kLon, 500);
  f.set_name("");
  EXPECT_THAT(error(f), HasSubstr("name must be 1 to 1024 bytes"));
  f = testing::CircleFence(kLat, kLon, 0);
  EXPECT_THAT(error(f), HasSubstr("circle.radius_m must be a number > 0"));
  f = testing::CircleFence(95, kLon, 10);
  EXPECT_THAT(error(f), HasSubstr("circle.center.latitude"));
  f = testing::CircleFence(kLat, kLon, 500);
  f.clear_circle();
  EXPECT_THAT(error(f),
              HasSubstr("shape: one of circle, rect, polygon or roam"));
  f = testing::CircleFence(kLat, kLon, 500);
  f.add_detect(static_cast<v1::FenceEventKind>(42));
  EXPECT_THAT(error(f), HasSubstr("detect[0]: not an event kind"));
  f = testing::CircleFence(kLat, kLon, 500);
  f.add_detect(v1::FENCE_EVENT_DWELL);
  EXPECT_THAT(error(f), HasSubstr("dwell_ms: required"));
  f = testing::CircleFence(kLat, kLon, 500);
  f.set_debounce_ms(-1);
  EXPECT_THAT(error(f), HasSubstr("debounce_ms must be >= 0"));
  f.set_debounce_ms(0);
  f.set_max_accuracy_m(-1);
  EXPECT_THAT(error(f), HasSubstr("max_accuracy_m must be a finite number"));
  f = testing::PolygonFence({{{0, 0}, {1, 1}, {0, 1}, {1, 0}}});
  EXPECT_THAT(error(f), HasSubstr("polygon: polygon is self-intersecting"));
  f = testing::PolygonFence(
      {{{0, 0}, {0, 3}, {3, 3}, {3, 0}}, {{1, 1}, {1, 2}, {1, 1.5}}});
  EXPECT_THAT(error(f), HasSubstr("polygon.holes[0]"));
  f = testing::RectFence(2, 0, 1, 1);
  EXPECT_THAT(error(f), HasSubstr("rect: south_west.latitude (2) must not"));
}

v1::Fence RoamFence(double radius_m) {
  v1::Fence f = testing::CircleFence(kLat, kLon, 1);
  f.clear_circle();
  f.mutable_roam()->set_radius_m(radius_m);
  return f;
}

TEST(CompileFenceTest, ARoamingFenceTargetsItsOwnCollectionUnlessTold) {
  v1::Fence proto = RoamFence(500);
  proto.mutable_roam()->set_entity_glob("bus-*");
  const Fence own = Compile(proto);
  ASSERT_TRUE(own.roam.has_value());
  EXPECT_FALSE(own.shape.has_value());
  EXPECT_EQ(own.roam->collection, "fleet");
  EXPECT_EQ(own.roam->radius_m, 500);
  EXPECT_TRUE(own.roam->Targets("fleet", "bus-1", "bus-3"));
  EXPECT_FALSE(own.roam->Targets("fleet", "bus-3", "bus-3"))
      << "never its own target";
  EXPECT_FALSE(own.roam->Targets("fleet", "bus-1", "car-3"));
  proto.mutable_roam()->set_collection("buses");
  const Fence other = Compile(proto);
  EXPECT_EQ(other.roam->collection, "buses");
  EXPECT_TRUE(other.roam->Targets("fleet", "bus-3", "bus-3"))
      << "the same id in another collection is another entity";
}

TEST(CompileFenceTest, BadRoamingSettingsNameTheirField) {
  auto error = [](v1::Fence f) {
    auto c = CompileFence(f, model::Limits());
    return c.ok() ? std::string("OK") : std::string(c.status().message());
  };
  EXPECT_THAT(error(RoamFence(0)), HasSubstr("roam.radius_m must be a number"));
  EXPECT_THAT(error(RoamFence(NAN)), HasSubstr("roam.radius_m"));
  model::Limits limits;
  limits.max_radius_m = 1000;
  auto too_far = CompileFence(RoamFence(2000), limits);
  EXPECT_THAT(too_far.status().message(), HasSubstr("roam.radius_m"));
  v1::Fence f = RoamFence(100);
  f.add_detect(v1::FENCE_EVENT_ENTER);
  f.add_detect(v1::FENCE_EVENT_CROSS);
  EXPECT_THAT(error(f), HasSubstr("detect[1]: CROSS is not defined for a "
                                  "roaming fence"));
  f = RoamFence(100);
  f.mutable_roam()->set_entity_glob("bus-\xff");
  EXPECT_THAT(error(f), HasSubstr("roam.entity_glob must be UTF-8"));
  f = RoamFence(100);
  f.mutable_roam()->set_collection(std::string(1, '\xff') + "x");
  EXPECT_THAT(error(f), HasSubstr("roam.collection must be UTF-8"));
  f = RoamFence(100);
  f.mutable_roam()->set_collection(std::string(100000, 'c'));
  EXPECT_THAT(error(f), HasSubstr("roam.collection"));
}

TEST_F(DetectorTest, ARoamingFencesSideIsTheCallersObservation) {
  v1::Fence proto = RoamFence(300);
  proto.set_debounce_fixes(2);
  testing::DetectEverything(&proto);
  proto.clear_detect();
  for (auto k : {v1::FENCE_EVENT_ENTER, v1::FENCE_EVENT_EXIT}) {
    proto.add_detect(k);
  }
  const Fence fence = Compile(proto);
  EntityFenceState state;
  std::optional<PriorFix> prior;
  std::vector<std::string> got;
  int64_t t = 1000;
  for (bool near : {true, true, false, true, false, false}) {
    const model::TrackPoint p = Fix(t += 1000, kIn, kLon);
    for (const std::string& e :
         Describe(Evaluate(fence, p, prior, near, &state))) {
      got.push_back(absl::StrCat(t, " ", e));
    }
    prior = PriorFix{p.loc_time_ms, p.lat, p.lon};
  }
  // The same position throughout: only the observation moves it.
  EXPECT_THAT(got, ElementsAre("3000 ENTER", "7000 EXIT"));
}

TEST_F(DetectorTest, AFixThatFailsAWhereIsIgnoredLikeAnInaccurateOne) {
  v1::Fence proto = testing::CircleFence(kLat, kLon, 500);
  proto.clear_detect();
  proto.add_detect(v1::FENCE_EVENT_ENTER);
  proto.add_detect(v1::FENCE_EVENT_EXIT);
  v1::FenceWhere* loaded = proto.add_where();
  loaded->set_field("load");
  loaded->add_in("full");
  v1::FenceWhere* moving = proto.add_where();
  moving->set_field("speed_kmh");
  moving->set_min(5);
  moving->set_max(120);
  const Fence fence = Compile(proto);
  auto fix = [](int64_t t, double lat, std::optional<double> speed,
                const char* load) {
    model::TrackPoint p = Fix(t, lat, kLon);
    p.speed_kmh = speed;
    if (load != nullptr) p.attributes.push_back({"load", load});
    return p;
  };
  EntityFenceState state;
  std::optional<PriorFix> prior;
  std::vector<std::string> got;
  for (const model::TrackPoint& p :
       {fix(1000, kIn, 30, "empty"), fix(2000, kIn, 30, nullptr),
        fix(3000, kIn, std::nullopt, "full"), fix(4000, kIn, 2, "full"),
        fix(5000, kIn, 30, "full"), fix(6000, kOut, 130, "full"),
        fix(7000, kOut, 60, "full")}) {
    for (const std::string& e : Describe(Evaluate(fence, p, prior, &state))) {
      got.push_back(absl::StrCat(p.loc_time_ms, " ", e));
    }
    prior = PriorFix{p.loc_time_ms, p.lat, p.lon};
  }
  EXPECT_THAT(got, ElementsAre("5000 ENTER", "7000 EXIT"));
}

TEST(CompileFenceTest, BadWheresNameTheirField) {
  auto error = [](const v1::FenceWhere& w) {
    v1::Fence f = testing::CircleFence(kLat, kLon, 500);
    *f.add_where() = w;
    auto c = CompileFence(f, model::Limits());
    return c.ok() ? std::string("OK") : std::string(c.status().message());
  };
  v1::FenceWhere w;
  EXPECT_THAT(error(w), HasSubstr("where[0].field must be 1 to 256 bytes"));
  w.set_field("speed_kmh");
  EXPECT_THAT(error(w), HasSubstr("where[0]: set either min/max or in"));
  w.set_min(10);
  w.add_in("x");
  EXPECT_THAT(error(w), HasSubstr("where[0]: set either min/max or in"));
  w.clear_min();
  EXPECT_THAT(error(w), HasSubstr("where[0].in: speed_kmh is a number"));
  w.clear_in();
  w.set_min(10);
  w.set_max(5);
  EXPECT_THAT(error(w), HasSubstr("min <= max"));
  w.set_max(NAN);
  EXPECT_THAT(error(w), HasSubstr("must be numbers"));
  w.set_max(20);
  EXPECT_EQ(error(w), "OK");
  v1::Fence many = testing::CircleFence(kLat, kLon, 500);
  for (int i = 0; i <= kMaxWheres; ++i) *many.add_where() = w;
  EXPECT_THAT(CompileFence(many, model::Limits()).status().message(),
              HasSubstr("where: at most 16 filters"));
}

}  // namespace
}  // namespace trackdb::fence
