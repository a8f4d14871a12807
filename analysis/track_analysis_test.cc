// AnalyzeTrack on generated tracks whose true answers the generator knows:
// moves along great circles at known speeds, stops with GPS drift, signal
// gaps, single-fix jumps and inaccurate fixes, in random order.

#include "analysis/track_analysis.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "index/distance.h"
#include "index/interpolate.h"

namespace trackdb::analysis {
namespace {

constexpr int64_t kFixMs = 5000;

struct Truth {
  double distance_m = 0;
  int64_t moving_ms = 0;
  std::vector<Stay> stays;  // start, end
  std::vector<Gap> gaps;
  size_t jumps = 0, inaccurate = 0;
};

class Generator {
 public:
  // The track starts with a fix where the entity stands.
  explicit Generator(uint64_t seed) : rng_(seed) { Emit(here_, 5); }

  // Moving at 30-90 km/h on one great circle, a fix every 5 s; now and
  // then a wild fix between two (a jump) or a fix of poor accuracy.
  void Move(int fixes) {
    const double kmh = 30 + 60 * unit_(rng_);
    const double bearing = 360 * unit_(rng_);
    const index::LatLng start = here_;
    for (int i = 1; i <= fixes; ++i) {
      if (unit_(rng_) < 0.03) Wild(/*inaccurate=*/unit_(rng_) < 0.5);
      t_ += kFixMs;
      here_ =
          index::Destination(start, kmh / 3.6 * (i * kFixMs / 1000.0), bearing);
      Emit(here_, 5);
      truth_.moving_ms += kFixMs;
    }
    truth_.distance_m += kmh / 3.6 * (fixes * kFixMs / 1000.0);
    last_bearing_ = bearing;
    last_kmh_ = kmh;
  }
  // Parked for 11-30 minutes: fixes drifting up to 8 m around the spot.
  void Stop() {
    const int fixes = 132 + static_cast<int>(unit_(rng_) * 228);
    Stay stay;
    stay.start_ms = t_;  // the fix that arrived here starts it
    for (int i = 0; i < fixes; ++i) {
      t_ += kFixMs;
      Emit(index::Destination(here_, 8 * unit_(rng_), 360 * unit_(rng_)), 5);
    }
    stay.end_ms = t_;
    truth_.stays.push_back(stay);
  }
  // No signal for 6-20 minutes while going on straight: one fix at the end.
  void Gap() {
    const int64_t ms = 360000 + static_cast<int64_t>(unit_(rng_) * 840000);
    const double meters = last_kmh_ / 3.6 * (ms / 1000.0);
    truth_.gaps.push_back({t_, t_ + ms, meters});
    truth_.distance_m += meters;
    t_ += ms;
    here_ = index::Destination(here_, meters, last_bearing_);
    Emit(here_, 5);
  }
  const std::vector<model::TrackPoint>& points() const { return points_; }
  const Truth& truth() const { return truth_; }

 private:
  void Emit(const index::LatLng& p, double accuracy) {
    model::TrackPoint fix;
    fix.entity = "car";
    fix.loc_time_ms = t_;
    fix.lat = p.lat;
    fix.lon = p.lon;
    fix.accuracy_m = accuracy;
    points_.push_back(fix);
  }
  // 2.5 s after the last fix, 3-8 km away.
  void Wild(bool inaccurate) {
    t_ += kFixMs / 2;
    Emit(
        index::Destination(here_, 3000 + 5000 * unit_(rng_), 360 * unit_(rng_)),
        inaccurate ? 500 : 5);
    ++(inaccurate ? truth_.inaccurate : truth_.jumps);
    t_ -= kFixMs / 2;
  }

  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> unit_{0, 1};
  index::LatLng here_{39.9, 116.4};
  int64_t t_ = 1763700000000;
  double last_bearing_ = 0, last_kmh_ = 50;
  std::vector<model::TrackPoint> points_;
  Truth truth_;
};

TEST(TrackAnalysisTest, FindsWhatTheGeneratorPutIn) {
  AnalysisOptions options;
  options.max_speed_kmh = 200;
  options.max_accuracy_m = 50;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(seed);
    Generator g(seed);
    std::mt19937_64 rng(seed);
    g.Move(20);
    for (int phase = 0; phase < 12; ++phase) {
      switch (rng() % 3) {
        case 0:
          g.Stop();
          break;
        case 1:
          g.Gap();
          break;
        default:
          break;
      }
      g.Move(10 + static_cast<int>(rng() % 100));
    }
    const Truth& truth = g.truth();
    const TrackAnalysis a = AnalyzeTrack(g.points(), options);
    EXPECT_EQ(a.fixes, g.points().size());
    EXPECT_EQ(a.jumps, truth.jumps);
    EXPECT_EQ(a.inaccurate, truth.inaccurate);
    // Each stop's drift is left out; leaving a stop starts up to 8 m off
    // the spot the truth measures from.
    EXPECT_NEAR(a.distance_m, truth.distance_m,
                1 + 8.0 * truth.stays.size() + 1e-6 * truth.distance_m);
    EXPECT_EQ(a.moving_ms, truth.moving_ms);
    ASSERT_EQ(a.stays.size(), truth.stays.size());
    for (size_t i = 0; i < a.stays.size(); ++i) {
      EXPECT_EQ(a.stays[i].start_ms, truth.stays[i].start_ms);
      EXPECT_EQ(a.stays[i].end_ms, truth.stays[i].end_ms);
    }
    ASSERT_EQ(a.gaps.size(), truth.gaps.size());
    for (size_t i = 0; i < a.gaps.size(); ++i) {
      EXPECT_EQ(a.gaps[i].start_ms, truth.gaps[i].start_ms);
      EXPECT_EQ(a.gaps[i].end_ms, truth.gaps[i].end_ms);
      EXPECT_NEAR(a.gaps[i].straight_m, truth.gaps[i].straight_m,
                  1e-6 * truth.gaps[i].straight_m + 1e-6);
    }
    // Trips run between stays: one more than the stays (the track starts
    // and ends moving), and their lengths add up to the distance.
    ASSERT_EQ(a.trips.size(), truth.stays.size() + 1);
    double trips_m = 0;
    for (const Trip& trip : a.trips) trips_m += trip.distance_m;
    EXPECT_NEAR(trips_m, a.distance_m, 1e-6 * a.distance_m);
    EXPECT_GE(a.max_speed_kmh, 30);
    EXPECT_LE(a.max_speed_kmh, 90 + 10);  // leaving a stop: up to 8 m more
    EXPECT_GT(a.mean_speed_kmh, 30);
    EXPECT_LT(a.mean_speed_kmh, 90);
  }
}

model::TrackPoint Fix(int64_t t, double lat, double lon) {
  model::TrackPoint p;
  p.loc_time_ms = t;
  p.lat = lat;
  p.lon = lon;
  return p;
}

// Along the equator, 0.001 degrees (111 m) each 10 s: 40 km/h.
std::vector<model::TrackPoint> Drive(int fixes) {
  std::vector<model::TrackPoint> track;
  for (int i = 0; i < fixes; ++i) track.push_back(Fix(10000 * i, 0, 0.001 * i));
  return track;
}

TEST(TrackAnalysisTest, AWildFirstFixIsAJumpNotTheTrack) {
  std::vector<model::TrackPoint> track = Drive(20);
  track[0].lat = 0.5;  // 55 km off
  AnalysisOptions options;
  options.max_speed_kmh = 200;
  const TrackAnalysis a = AnalyzeTrack(track, options);
  EXPECT_EQ(a.jumps, 1u);
  EXPECT_EQ(a.kept.size(), 19u);
  EXPECT_NEAR(a.distance_m, 18 * index::HaversineMeters({0, 0}, {0, 0.001}),
              1e-6);
  // Without the filter the wild fix counts.
  EXPECT_GT(AnalyzeTrack(track, {}).distance_m, 50000);
}

TEST(TrackAnalysisTest, GapsCanBeLeftOutAndAStayHoldsItsSilence) {
  std::vector<model::TrackPoint> track = Drive(10);
  track.push_back(Fix(90000 + 3600000, 0, 0.019));  // an hour later
  AnalysisOptions options;
  options.count_gaps = false;
  const double step = index::HaversineMeters({0, 0}, {0, 0.001});
  TrackAnalysis a = AnalyzeTrack(track, options);
  ASSERT_EQ(a.gaps.size(), 1u);
  EXPECT_NEAR(a.gaps[0].straight_m, 10 * step, 1e-6);
  EXPECT_NEAR(a.distance_m, 9 * step, 1e-6);
  options.count_gaps = true;
  EXPECT_NEAR(AnalyzeTrack(track, options).distance_m, 19 * step, 1e-6);
  // Parked, the tracker silent for an hour: a stay, not a gap.
  track.back().lon = 0.009;
  a = AnalyzeTrack(track, options);
  EXPECT_TRUE(a.gaps.empty());
  ASSERT_EQ(a.stays.size(), 1u);
  EXPECT_EQ(a.stays[0].fixes, 2u);
}

TEST(TrackAnalysisTest, AStayAcrossTheAntimeridianCentresOnIt) {
  std::vector<model::TrackPoint> track;
  for (int i = 0; i < 20; ++i) {
    track.push_back(Fix(60000 * i, 10, i % 2 ? 179.99999 : -179.99999));
  }
  const TrackAnalysis a = AnalyzeTrack(track, {});
  ASSERT_EQ(a.stays.size(), 1u);
  EXPECT_NEAR(std::fabs(a.stays[0].centre.lon), 180, 1e-6);
}

TEST(TrackAnalysisTest, AHugeStayRadiusStopsAtTheEnd) {
  // Every fix within the radius of the first, too short to stay: the
  // search stops after one run instead of one per fix.
  AnalysisOptions options;
  options.stay_radius_m = 1e7;
  options.stay_min_ms = int64_t{1} << 60;
  int asked = 0;
  options.cancelled = [&] {
    ++asked;
    return false;
  };
  EXPECT_TRUE(AnalyzeTrack(Drive(20000), options).stays.empty());
  EXPECT_EQ(asked, 0);
}

TEST(TrackAnalysisTest, CancellingStopsTheStaySearch) {
  // Runs of thousands of fixes that never stay long enough (an expensive
  // search): the cancellation ends it at its first question.
  AnalysisOptions options;
  options.stay_radius_m = 1e6;
  options.stay_min_ms = int64_t{1} << 60;
  int asked = 0;
  options.cancelled = [&] {
    ++asked;
    return true;
  };
  EXPECT_TRUE(AnalyzeTrack(Drive(200000), options).stays.empty());
  EXPECT_EQ(asked, 1);
}

TEST(TrackAnalysisTest, EmptyAndSingleFix) {
  EXPECT_EQ(AnalyzeTrack({}, {}).distance_m, 0);
  model::TrackPoint p;
  p.loc_time_ms = 5;
  const TrackAnalysis one = AnalyzeTrack({p}, {});
  EXPECT_EQ(one.start_ms, 5);
  EXPECT_EQ(one.end_ms, 5);
  EXPECT_TRUE(one.trips.empty());
  EXPECT_TRUE(one.stays.empty());
}

}  // namespace
}  // namespace trackdb::analysis
