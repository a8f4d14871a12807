// GetPositionAt against a brute-force reference: random tracks written in
// random order, with gaps, queried at random times (on fixes, between them,
// outside the track), both methods, with and without a gap limit.

#include "storage/points/position_at.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/distance.h"
#include "storage/store_test_util.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;

TEST(PositionAtTest, InterpolatesNearestAndRefusesWithReasons) {
  auto store = testing::OpenStore(testing::NewDataDir());
  ASSERT_TRUE(store
                  ->AddPoints("fleet", {testing::Point("t1", 1000, 0, 10),
                                        testing::Point("t1", 3000, 0, 11),
                                        testing::Point("t1", 100000, 1, 11)})
                  .ok());
  PositionAtQuery q;
  q.collection = "fleet";
  q.entity = "t1";
  q.time_ms = 1500;
  absl::StatusOr<PositionAt> at = GetPositionAt(*store, q);
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_NEAR(at->position.lon, 10.25, 1e-9);
  EXPECT_NEAR(at->position.lat, 0, 1e-9);
  ASSERT_TRUE(at->before && at->after);
  EXPECT_EQ(at->before->loc_time_ms, 1000);
  EXPECT_EQ(at->after->loc_time_ms, 3000);

  q.time_ms = 3000;  // on a fix: that fix alone
  at = GetPositionAt(*store, q);
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->position.lon, 11);
  EXPECT_FALSE(at->after);

  q.time_ms = 50000;
  q.max_gap_ms = 60000;  // the fixes around it are 97 s apart
  EXPECT_THAT(GetPositionAt(*store, q).status().message(),
              HasSubstr("97000 ms apart, more than max_gap_ms (60000)"));
  q.method = PositionAtQuery::Method::kNearest;
  EXPECT_TRUE(GetPositionAt(*store, q).ok());  // 47 s to the nearest
  q.max_gap_ms = 30000;
  EXPECT_THAT(GetPositionAt(*store, q).status().message(),
              HasSubstr("the nearest fix is 47000 ms from time_ms"));
  q.max_gap_ms = 0;
  at = GetPositionAt(*store, q);
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->before->loc_time_ms, 3000);
  EXPECT_FALSE(at->after);

  q.method = PositionAtQuery::Method::kInterpolate;
  q.time_ms = 999;
  EXPECT_THAT(GetPositionAt(*store, q).status().message(),
              HasSubstr("before the first fix (1000)"));
  q.time_ms = 100001;
  EXPECT_THAT(GetPositionAt(*store, q).status().message(),
              HasSubstr("after the last fix (100000)"));
  q.entity = "nobody";
  EXPECT_EQ(GetPositionAt(*store, q).status().code(),
            absl::StatusCode::kNotFound);
}

// The reference: the whole track in memory, searched linearly.
PositionAtQuery::Method RandomMethod(std::mt19937_64& rng) {
  return rng() % 2 ? PositionAtQuery::Method::kNearest
                   : PositionAtQuery::Method::kInterpolate;
}

// Random fixes every second or so, with a gap now and then, written in
// random order in batches; returned in time order.
std::vector<model::TrackPoint> WriteRandomTrack(TrackStore& store,
                                                std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<model::TrackPoint> track;
  int64_t t = 1763700000000;
  double lat = 39.9, lon = 116.4;
  for (int i = 0; i < 400; ++i) {
    t += unit(rng) < 0.05 ? 600000 : 1000 + static_cast<int64_t>(rng() % 500);
    lat += (unit(rng) - 0.5) * 1e-3;
    lon += (unit(rng) - 0.5) * 1e-3;
    track.push_back(testing::Point("car", t, lat, lon));
  }
  std::vector<model::TrackPoint> shuffled = track;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  for (size_t i = 0; i < shuffled.size(); i += 37) {
    const size_t end = std::min(shuffled.size(), i + 37);
    const std::vector<model::TrackPoint> batch(shuffled.begin() + i,
                                               shuffled.begin() + end);
    EXPECT_TRUE(store.AddPoints("fleet", batch).ok());
  }
  return track;
}

// 2000 random queries against the track searched linearly.
void ExpectAgreesWithReference(TrackStore& store,
                               const std::vector<model::TrackPoint>& track,
                               std::mt19937_64& rng) {
  const int64_t first = track.front().loc_time_ms;
  const int64_t last = track.back().loc_time_ms;
  int answered = 0, refused = 0;
  for (int i = 0; i < 2000; ++i) {
    PositionAtQuery q;
    q.collection = "fleet";
    q.entity = "car";
    q.method = RandomMethod(rng);
    q.max_gap_ms = rng() % 2 ? 0 : 60000;
    q.time_ms = rng() % 10 == 0
                    ? track[rng() % track.size()].loc_time_ms
                    : first - 5000 +
                          static_cast<int64_t>(rng() % (last - first + 10000));
    std::optional<model::TrackPoint> before, after;
    for (const model::TrackPoint& p : track) {
      if (p.loc_time_ms <= q.time_ms) before = p;
      if (p.loc_time_ms > q.time_ms && !after) after = p;
    }
    const absl::StatusOr<PositionAt> want = PositionBetween(before, after, q);
    const absl::StatusOr<PositionAt> got = GetPositionAt(store, q);
    ASSERT_EQ(got.status().code(), want.status().code()) << q.time_ms;
    if (!got.ok()) {
      ++refused;
      continue;
    }
    ++answered;
    EXPECT_EQ(got->before, want->before);
    EXPECT_EQ(got->after, want->after);
    EXPECT_EQ(got->position.lat, want->position.lat);
    EXPECT_EQ(got->position.lon, want->position.lon);
    // And the answer lies between its fixes, in proportion to the time.
    if (got->before && got->after) {
      const index::LatLng a{got->before->lat, got->before->lon};
      const index::LatLng b{got->after->lat, got->after->lon};
      const double whole = index::HaversineMeters(a, b);
      const double f =
          static_cast<double>(q.time_ms - got->before->loc_time_ms) /
          (got->after->loc_time_ms - got->before->loc_time_ms);
      EXPECT_NEAR(index::HaversineMeters(a, got->position), f * whole,
                  1e-6 + 1e-6 * whole);
    }
  }
  EXPECT_GT(answered, 1000);
  EXPECT_GT(refused, 50);
}

TEST(PositionAtTest, AgreesWithAWholeTrackReference) {
  auto store = testing::OpenStore(testing::NewDataDir());
  std::mt19937_64 rng(11);
  const std::vector<model::TrackPoint> track = WriteRandomTrack(*store, rng);
  ExpectAgreesWithReference(*store, track, rng);
}

// The same over chunks of a few fixes each (so that the fixes around a
// time are often in two chunks), with late and repeated fixes written raw
// after the fold: a repeat replaces the chunk's fix of its time.
TEST(PositionAtTest, AgreesWithTheReferenceOverChunksAndLateFixes) {
  auto store = testing::OpenStore(testing::NewDataDir());
  std::mt19937_64 rng(12);
  std::vector<model::TrackPoint> track = WriteRandomTrack(*store, rng);
  FoldOptions fold;
  fold.chunk_fixes = 7;
  absl::StatusOr<FoldCounts> folded =
      store->chunker().FoldEntity("fleet", "car", fold);
  ASSERT_TRUE(folded.ok()) << folded.status();
  ASSERT_EQ(folded->fixes, track.size());
  for (size_t i = 3; i < track.size(); i += 11) {
    track[i].lat += 1e-4;  // a repeat of a folded time
    ASSERT_TRUE(store->AddPoints("fleet", {track[i]}).ok());
  }
  ExpectAgreesWithReference(*store, track, rng);
}

// Retention hides the fixes before its cutoff from the answer.
TEST(PositionAtTest, AFixPastRetentionIsNotTheFixBefore) {
  auto store = testing::OpenStore(testing::NewDataDir());
  const int64_t now = absl::ToUnixMillis(absl::Now());
  ASSERT_TRUE(store
                  ->AddPoints("fleet", {testing::Point("t1", now - 7'200'000, 0, 10),
                                        testing::Point("t1", now - 600'000, 0, 11)})
                  .ok());
  PositionAtQuery q;
  q.collection = "fleet";
  q.entity = "t1";
  q.time_ms = now - 1'800'000;
  ASSERT_TRUE(GetPositionAt(*store, q).ok());  // between the two
  RetentionPolicy keep_an_hour;
  keep_an_hour.max_age_ms = 3'600'000;
  ASSERT_TRUE(store->retention().Set("fleet", keep_an_hour).ok());
  EXPECT_THAT(GetPositionAt(*store, q).status().message(),
              HasSubstr("before the first fix"));
  q.method = PositionAtQuery::Method::kNearest;
  absl::StatusOr<PositionAt> at = GetPositionAt(*store, q);
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(at->after->loc_time_ms, now - 600'000);
  EXPECT_FALSE(at->before);
}

}  // namespace
}  // namespace trackdb::storage
