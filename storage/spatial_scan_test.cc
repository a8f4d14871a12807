// Differential test: ScanRegion returns exactly what a brute-force pass over
// every entity's latest position returns, for random regions near edges,
// poles and the antimeridian.
#include <random>
#include <set>

#include "gtest/gtest.h"
#include "index/covering.h"
#include "index/region.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;

class SpatialScanTest : public ::testing::Test {
 protected:
  std::set<std::string> Scan(const index::Region& region) {
    std::set<std::string> hits;
    auto s =
        store_->ScanRegion("fleet", region, [&](const model::TrackPoint& p) {
          EXPECT_TRUE(hits.insert(p.entity).second) << "duplicate " << p.entity;
          EXPECT_EQ(p, latest_.at(p.entity));
          return true;
        });
    EXPECT_TRUE(s.ok()) << s;
    return hits;
  }
  std::set<std::string> BruteForce(const index::Region& region) {
    std::set<std::string> hits;
    for (const auto& [entity, p] : latest_) {
      if (region.Contains({p.lat, p.lon})) hits.insert(entity);
    }
    return hits;
  }

  std::unique_ptr<TrackStore> store_ = OpenStore(NewDataDir());
  std::map<std::string, model::TrackPoint> latest_;
  std::mt19937_64 rng_{7};
  double U(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
};

TEST_F(SpatialScanTest, MatchesBruteForce) {
  // 3000 entities clustered around a few hard places, each moved 3 times so
  // the index must have dropped stale entries.
  const index::LatLng hubs[] = {{38.1, 13.3}, {89.99, 0},   {-89.99, 0},
                                {0, 179.99},  {0, -179.99}, {10, 10}};
  for (int round = 0; round < 3; ++round) {
    std::vector<model::TrackPoint> batch;
    for (int e = 0; e < 3000; ++e) {
      const index::LatLng& h = hubs[e % std::size(hubs)];
      double lat = std::clamp(h.lat + U(-0.05, 0.05), -90.0, 90.0);
      double lon = h.lon + U(-0.05, 0.05);
      if (lon > 180) lon -= 360;
      if (lon < -180) lon += 360;
      if (e % 97 == 0) lat = (e % 2 ? 90 : -90);  // exactly at a pole
      model::TrackPoint p = Point(absl::StrCat("e", e), round, lat, lon);
      latest_[p.entity] = p;
      batch.push_back(p);
    }
    ASSERT_TRUE(store_->AddPoints("fleet", batch).ok());
  }
  // Another collection's points must never leak in.
  ASSERT_TRUE(
      store_->AddPoints("other", {Point("intruder", 1, 38.1, 13.3)}).ok());

  int nonempty = 0;
  for (int q = 0; q < 300; ++q) {
    const index::LatLng& h = hubs[q % std::size(hubs)];
    std::unique_ptr<index::Region> region;
    if (q % 2 == 0) {
      auto c = index::CircleRegion::Create(
          {std::clamp(h.lat + U(-0.05, 0.05), -90.0, 90.0), h.lon},
          std::pow(10, U(1, 4)));
      ASSERT_TRUE(c.ok());
      region = std::make_unique<index::CircleRegion>(*c);
    } else {
      const double w = U(0.001, 0.08), ht = U(0.001, 0.08);
      double west = h.lon - w, east = h.lon + w;
      if (west < -180) west += 360;
      if (east > 180) east -= 360;
      auto r = index::RectRegion::Create(std::max(-90.0, h.lat - ht), west,
                                         std::min(90.0, h.lat + ht), east);
      ASSERT_TRUE(r.ok());
      region = std::make_unique<index::RectRegion>(*r);
    }
    const auto expected = BruteForce(*region);
    EXPECT_EQ(Scan(*region), expected) << "query " << q;
    nonempty += !expected.empty();
  }
  EXPECT_GT(nonempty, 200);  // the queries really hit points
}

TEST_F(SpatialScanTest, StopsWhenVisitorSaysSo) {
  std::vector<model::TrackPoint> batch;
  for (int e = 0; e < 50; ++e) {
    batch.push_back(Point(absl::StrCat("e", e), 1, 10 + e * 1e-5, 10));
  }
  ASSERT_TRUE(store_->AddPoints("fleet", batch).ok());
  auto circle = index::CircleRegion::Create({10, 10}, 1000);
  int visits = 0;
  ASSERT_TRUE(
      store_
          ->ScanRegion("fleet", *circle,
                       [&](const model::TrackPoint&) { return ++visits < 5; })
          .ok());
  EXPECT_EQ(visits, 5);
}

// Each range is scanned with an upper bound; binary entity ids that sort
// after any printable byte must still be inside it.
TEST_F(SpatialScanTest, FindsEntitiesWhoseIdsStartWith0xff) {
  const std::string id("\xff\xff\x01", 3);
  ASSERT_TRUE(store_->AddPoints("fleet", {Point(id, 1, 10, 10)}).ok());
  auto circle = index::CircleRegion::Create({10, 10}, 1);
  std::vector<std::string> seen;
  ASSERT_TRUE(store_
                  ->ScanRegion("fleet", *circle,
                               [&](const model::TrackPoint& p) {
                                 seen.push_back(p.entity);
                                 return true;
                               })
                  .ok());
  EXPECT_EQ(seen, std::vector<std::string>{id});
}

// What a search costs: a scan reads exactly the collection's live entries
// inside the covering's ranges (hits plus the covering's extras), whatever
// else the collection or the store holds, so the cost follows the hits and
// not the store's size.
TEST_F(SpatialScanTest, ReadsOnlyTheEntriesInsideTheCovering) {
  // "fleet": 2000 entities in a 2 km square, then all moved once (leaving
  // tombstones behind). "big": 20000 entities over the same square and a
  // 10x larger area around it. Neither may add to the other's reads.
  std::map<std::string, index::LatLng> fleet;
  for (int round = 0; round < 2; ++round) {
    std::vector<model::TrackPoint> batch;
    for (int e = 0; e < 2000; ++e) {
      model::TrackPoint p =
          Point(absl::StrCat("e", e), round, 45 + U(0, 0.018), 7 + U(0, 0.025));
      fleet[p.entity] = {p.lat, p.lon};
      batch.push_back(p);
    }
    ASSERT_TRUE(store_->AddPoints("fleet", batch).ok());
  }
  std::vector<model::TrackPoint> big;
  for (int e = 0; e < 20000; ++e) {
    big.push_back(
        Point(absl::StrCat("b", e), 1, 44.95 + U(0, 0.11), 6.95 + U(0, 0.14)));
  }
  ASSERT_TRUE(store_->AddPoints("big", big).ok());

  int64_t total_hits = 0;
  for (int q = 0; q < 40; ++q) {
    auto circle = index::CircleRegion::Create(
        {45.002 + U(0, 0.014), 7.003 + U(0, 0.019)}, U(50, 400));
    ASSERT_TRUE(circle.ok());
    const std::vector<index::CellRange> ranges = index::Covering(*circle);
    int64_t in_covering = 0, in_circle = 0;
    for (const auto& [entity, pos] : fleet) {
      const uint64_t cell = index::CellIdOf(pos);
      for (const index::CellRange& r : ranges) {
        in_covering += cell >= r.first && cell <= r.last;
      }
      in_circle += circle->Contains(pos);
    }
    ScanStats stats;
    ScanOptions options;
    options.stats = &stats;
    int64_t visited = 0;
    ASSERT_TRUE(store_
                    ->ScanRegion(
                        "fleet", *circle,
                        [&](const model::TrackPoint&) { return ++visited > 0; },
                        options)
                    .ok());
    EXPECT_EQ(stats.ranges, ranges.size()) << "query " << q;
    EXPECT_EQ(stats.keys_read, in_covering) << "query " << q;
    EXPECT_EQ(stats.hits, in_circle) << "query " << q;
    EXPECT_EQ(visited, in_circle) << "query " << q;
    total_hits += in_circle;
  }
  EXPECT_GT(total_hits, 40 * 5);  // the circles really held points
}

TEST_F(SpatialScanTest, StatsAccumulateOverCalls) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("a", 1, 10, 10)}).ok());
  auto circle = index::CircleRegion::Create({10, 10}, 100);
  ScanStats stats;
  ScanOptions options;
  options.stats = &stats;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(store_
                    ->ScanRegion(
                        "fleet", *circle,
                        [](const model::TrackPoint&) { return true; }, options)
                    .ok());
  }
  EXPECT_EQ(stats.hits, 3u);
  EXPECT_EQ(stats.keys_read, 3u);
  EXPECT_EQ(stats.ranges, 3 * index::Covering(*circle).size());
}

TEST_F(SpatialScanTest, PositionsOnlyLeavesTheRestEmpty) {
  model::TrackPoint full = Point("car", 1763700000123, 10, 10);
  full.speed_kmh = 50;
  full.direction_deg = 90;
  full.height_m = 3;
  full.accuracy_m = 4;
  full.attributes = {{"driver", "ann"}};
  ASSERT_TRUE(store_->AddPoints("fleet", {full}).ok());
  auto circle = index::CircleRegion::Create({10, 10}, 10);
  ScanOptions options;
  options.positions_only = true;
  std::vector<model::TrackPoint> seen;
  ASSERT_TRUE(store_
                  ->ScanRegion(
                      "fleet", *circle,
                      [&](const model::TrackPoint& p) {
                        seen.push_back(p);
                        return true;
                      },
                      options)
                  .ok());
  model::TrackPoint expected;
  expected.entity = "car";
  expected.loc_time_ms = full.loc_time_ms;
  expected.lat = 10;
  expected.lon = 10;
  EXPECT_EQ(seen, std::vector<model::TrackPoint>{expected});
}

TEST_F(SpatialScanTest, UnknownCollectionIsEmpty) {
  auto circle = index::CircleRegion::Create({10, 10}, 1000);
  int visits = 0;
  ASSERT_TRUE(
      store_
          ->ScanRegion("nope", *circle,
                       [&](const model::TrackPoint&) { return ++visits > 0; })
          .ok());
  EXPECT_EQ(visits, 0);
}

}  // namespace
}  // namespace trackdb::storage
