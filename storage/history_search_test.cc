// SearchHistory against brute force over generated tracks: random walks
// with jumps, gaps and stops, written in shuffled batches (so some fixes
// arrive older than the entity's latest), searched with random areas and
// time windows, every page and the one-row-per-entity form.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/distance.h"
#include "index/region.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/points/history_cells.h"
#include "storage/store_test_util.h"
#include "storage/strings/kv_expiry.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using testing::FlushAndCompact;
using testing::InvariantViolations;
using ::testing::IsEmpty;
using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;

constexpr double kLat = 48.85, kLon = 2.35;  // the generated city
constexpr int64_t kT0 = 1'700'000'000'000;   // the first fix

// Fixes by (entity, time): the last one written for a time wins.
using Truth = std::map<std::pair<std::string, int64_t>, model::TrackPoint>;

// Tracks whose shape the generator knows: a walk of ~10 m/s with a fix
// every 10-60 s, stops (several fixes in place), gaps (hours without a
// fix) and jumps (one fix kilometres off).
std::vector<model::TrackPoint> GenerateTracks(std::mt19937_64& rng,
                                              int entities, int fixes) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<model::TrackPoint> out;
  for (int e = 0; e < entities; ++e) {
    double lat = kLat + (u(rng) - 0.5) * 0.1, lon = kLon + (u(rng) - 0.5) * 0.1;
    int64_t t = kT0 + static_cast<int64_t>(u(rng) * 3'600'000);
    const std::string name = absl::StrCat("veh", e);
    for (int i = 0; i < fixes; ++i) {
      const double r = u(rng);
      if (r < 0.02) {
        t += 3'600'000 * (1 + static_cast<int64_t>(u(rng) * 5));  // a gap
      } else {
        t += 10'000 + static_cast<int64_t>(u(rng) * 50'000);
      }
      const bool stop = r > 0.85;
      const bool jump = r > 0.02 && r < 0.04;
      if (!stop) {
        lat += (u(rng) - 0.5) * 0.004;
        lon += (u(rng) - 0.5) * 0.006;
      }
      model::TrackPoint p = Point(name, t, lat, lon);
      if (jump) {
        p.lat = lat + (u(rng) - 0.5) * 0.3;
        p.lon = lon + (u(rng) - 0.5) * 0.3;
      }
      out.push_back(p);
    }
  }
  return out;
}

// Writes `points` in shuffled batches of 1-40 and records them in `truth`.
void WriteShuffled(TrackStore& store, const std::string& collection,
                   std::vector<model::TrackPoint> points, std::mt19937_64& rng,
                   Truth* truth) {
  std::shuffle(points.begin(), points.end(), rng);
  for (size_t i = 0; i < points.size();) {
    const size_t n = std::min(points.size() - i, 1 + rng() % 40);
    std::vector<model::TrackPoint> batch(points.begin() + i,
                                         points.begin() + i + n);
    ASSERT_TRUE(store.AddPoints(collection, batch).ok());
    for (const model::TrackPoint& p : batch) {
      (*truth)[{p.entity, p.loc_time_ms}] = p;
    }
    i += n;
  }
}

std::vector<model::TrackPoint> BruteForce(const Truth& truth,
                                          const index::Region& region,
                                          int64_t from, int64_t to) {
  std::vector<model::TrackPoint> out;
  for (const auto& [key, p] : truth) {
    if (key.second >= from && key.second <= to &&
        region.Contains({p.lat, p.lon})) {
      out.push_back(p);
    }
  }
  return out;
}

using Row = std::tuple<std::string, int64_t, double, double>;
std::vector<Row> Rows(const std::vector<model::TrackPoint>& points) {
  std::vector<Row> rows;
  for (const auto& p : points) {
    rows.emplace_back(p.entity, p.loc_time_ms, p.lat, p.lon);
  }
  return rows;
}

// Every page of a search, joined.
std::vector<model::TrackPoint> AllPages(TrackStore& store, HistoryQuery q,
                                        int* pages) {
  std::vector<model::TrackPoint> out;
  *pages = 0;
  while (true) {
    absl::StatusOr<HistoryPage> page = store.SearchHistory(q);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) return out;
    ++*pages;
    EXPECT_LE(static_cast<int>(page->points.size()), q.limit);
    out.insert(out.end(), page->points.begin(), page->points.end());
    if (page->next_page_token.empty()) return out;
    EXPECT_FALSE(page->points.empty());
    q.page_token = page->next_page_token;
  }
}

std::unique_ptr<index::Region> RandomArea(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  const index::LatLng c{kLat + (u(rng) - 0.5) * 0.1,
                        kLon + (u(rng) - 0.5) * 0.1};
  const double size = 200 + u(rng) * 3000;  // metres
  switch (rng() % 3) {
    case 0:
      return std::make_unique<index::CircleRegion>(
          *index::CircleRegion::Create(c, size));
    case 1: {
      const double dlat = size / 111'000, dlon = dlat / std::cos(kLat / 57.3);
      return std::make_unique<index::RectRegion>(*index::RectRegion::Create(
          c.lat - dlat, c.lon - dlon, c.lat + dlat, c.lon + dlon));
    }
    default: {
      const double d = size / 111'000;
      return std::make_unique<index::PolygonRegion>(
          *index::PolygonRegion::Create({{c.lat - d, c.lon - d},
                                         {c.lat - d, c.lon + d},
                                         {c.lat + d * 0.2, c.lon + d * 0.1},
                                         {c.lat + d, c.lon - d}}));
    }
  }
}

// Random searches: every page joined equals brute force; so does the
// per-entity form's first, last and count.
void CheckRandomSearches(TrackStore& store, const std::string& collection,
                         const Truth& truth, std::mt19937_64& rng,
                         int searches) {
  int nonempty = 0;
  for (int i = 0; i < searches; ++i) {
    std::unique_ptr<index::Region> area = RandomArea(rng);
    HistoryQuery q;
    q.collection = collection;
    q.region = area.get();
    q.start_ms = kT0 + static_cast<int64_t>(rng() % (30 * 3'600'000LL));
    q.end_ms = q.start_ms + static_cast<int64_t>(rng() % (12 * 3'600'000LL));
    q.limit = 1 + static_cast<int>(rng() % 50);
    const std::vector<model::TrackPoint> want =
        BruteForce(truth, *area, q.start_ms, q.end_ms);
    if (!want.empty()) ++nonempty;
    int pages = 0;
    EXPECT_EQ(Rows(AllPages(store, q, &pages)), Rows(want)) << "search " << i;

    q.per_entity = true;
    std::map<std::string, std::tuple<int64_t, int64_t, uint64_t>> visits;
    for (const model::TrackPoint& p : want) {
      auto [it, fresh] = visits.try_emplace(
          p.entity, std::make_tuple(p.loc_time_ms, p.loc_time_ms, 0));
      std::get<1>(it->second) = p.loc_time_ms;
      ++std::get<2>(it->second);
    }
    std::map<std::string, std::tuple<int64_t, int64_t, uint64_t>> got;
    for (std::string token;;) {
      q.page_token = token;
      absl::StatusOr<HistoryPage> page = store.SearchHistory(q);
      ASSERT_TRUE(page.ok()) << page.status();
      for (const HistoryVisit& v : page->visits) {
        EXPECT_EQ(v.first.entity, v.last.entity);
        EXPECT_TRUE(
            got.try_emplace(v.first.entity,
                            std::make_tuple(v.first.loc_time_ms,
                                            v.last.loc_time_ms, v.fixes))
                .second)
            << v.first.entity << " twice";
      }
      token = page->next_page_token;
      if (token.empty()) break;
    }
    EXPECT_EQ(got, visits) << "search " << i;
  }
  EXPECT_GT(nonempty, searches / 5);  // the searches found real fixes
}

TEST(HistorySearchTest, EqualsBruteForceOverGeneratedTracks) {
  std::mt19937_64 rng(20261126);
  auto store = OpenStore(NewDataDir());
  Truth truth;
  WriteShuffled(*store, "fleet", GenerateTracks(rng, 40, 400), rng, &truth);
  // Another collection in the same place is never seen.
  Truth other;
  WriteShuffled(*store, "other", GenerateTracks(rng, 5, 100), rng, &other);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  CheckRandomSearches(*store, "fleet", truth, rng, 60);
}

// The same over history folded into chunks part way (small chunks, so that
// a window starts and ends inside them), then written over with late and
// repeated fixes that stay raw beside the chunks.
TEST(HistorySearchTest, EqualsBruteForceOverChunkedAndRawHistory) {
  std::mt19937_64 rng(20261202);
  auto store = OpenStore(NewDataDir());
  Truth truth;
  std::vector<model::TrackPoint> tracks = GenerateTracks(rng, 30, 300);
  WriteShuffled(*store, "fleet", tracks, rng, &truth);
  FoldOptions fold;
  fold.min_fixes = 1;
  fold.chunk_fixes = 7;
  absl::StatusOr<FoldCounts> folded = store->chunker().FoldAll(fold, 0);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(folded->fixes, truth.size());
  // Every third fix again, moved: raw ones that replace chunked ones.
  std::vector<model::TrackPoint> again;
  for (size_t i = 0; i < tracks.size(); i += 3) {
    model::TrackPoint p = tracks[i];
    p.lat += 0.01;
    again.push_back(p);
  }
  WriteShuffled(*store, "fleet", again, rng, &truth);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  CheckRandomSearches(*store, "fleet", truth, rng, 40);
  // Folded again, the late fixes go into the chunks they fall in.
  fold.chunk_fixes = 64;
  ASSERT_TRUE(store->chunker().FoldAll(fold, 0).ok());
  EXPECT_THAT(testing::ReadRaw(*store, ColumnFamily::kPoints,
                               EntityPointsPrefix("fleet", "veh0")),
              IsEmpty());
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  CheckRandomSearches(*store, "fleet", truth, rng, 40);
}

TEST(HistorySearchTest, CostFollowsTheBoxNotTheCollection) {
  std::mt19937_64 rng(7);
  auto store = OpenStore(NewDataDir());
  Truth truth;
  WriteShuffled(*store, "fleet", GenerateTracks(rng, 30, 300), rng, &truth);
  auto circle = index::CircleRegion::Create({kLat, kLon}, 500);
  HistoryQuery q{"fleet", &*circle, kT0, kT0 + 3'600'000, false, 1000};
  auto before = store->SearchHistory(q);
  ASSERT_TRUE(before.ok());
  // Ten times the history, all of it days later: the same search reads
  // the same cells and fixes.
  for (int day = 1; day <= 10; ++day) {
    std::vector<model::TrackPoint> later = GenerateTracks(rng, 30, 300);
    for (model::TrackPoint& p : later) p.loc_time_ms += day * 86'400'000LL;
    WriteShuffled(*store, "fleet", later, rng, &truth);
  }
  auto after = store->SearchHistory(q);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(Rows(after->points), Rows(before->points));
  EXPECT_EQ(after->cells_read, before->cells_read);
  EXPECT_EQ(after->fixes_read, before->fixes_read);
  EXPECT_LT(before->fixes_read, truth.size() / 50);
}

TEST(HistorySearchTest, SurvivesReopenCopyAndDelete) {
  std::mt19937_64 rng(11);
  const std::string dir = NewDataDir();
  Truth truth;
  {
    auto store = OpenStore(dir);
    WriteShuffled(*store, "fleet", GenerateTracks(rng, 30, 200), rng, &truth);
  }
  auto store = OpenStore(dir);
  CheckRandomSearches(*store, "fleet", truth, rng, 15);
  TrackStore::CopyNameOptions copy;
  ASSERT_TRUE(store->CopyName("fleet", "copy", 0, copy).ok());
  CheckRandomSearches(*store, "copy", truth, rng, 15);
  // A deleted entity's stale cells find nothing; when it comes back, only
  // its new fixes are found.
  ASSERT_TRUE(*store->DeleteEntity("fleet", "veh3"));
  for (auto it = truth.begin(); it != truth.end();) {
    it = it->first.first == "veh3" ? truth.erase(it) : std::next(it);
  }
  model::TrackPoint back = Point("veh3", kT0 + 7'200'000, kLat, kLon);
  ASSERT_TRUE(store->AddPoints("fleet", {back}).ok());
  truth[{"veh3", back.loc_time_ms}] = back;
  CheckRandomSearches(*store, "fleet", truth, rng, 15);
  auto circle = index::CircleRegion::Create({kLat, kLon}, 10);
  HistoryQuery q{"fleet", &*circle, INT64_MIN, INT64_MAX};
  auto page = store->SearchHistory(q);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(Rows(page->points),
            Rows(BruteForce(truth, *circle, INT64_MIN, INT64_MAX)));
  ASSERT_TRUE(store->DeleteCollection("copy").ok());
  EXPECT_TRUE(
      testing::ReadRaw(*store, ColumnFamily::kPoints, CollectionPrefix("copy"))
          .empty());
}

TEST(HistorySearchTest, OpenBuildsTheCellsOfAnOlderDataDir) {
  std::mt19937_64 rng(13);
  const std::string dir = NewDataDir();
  Truth truth;
  {
    auto store = OpenStore(dir);
    WriteShuffled(*store, "fleet", GenerateTracks(rng, 30, 200), rng, &truth);
    // What a schema 3 data dir holds: no history cells.
    const std::string cells = HistoryCellsPrefix("fleet");
    rocksdb::WriteBatch batch;
    ASSERT_TRUE(
        batch.DeleteRange(store->engine().points(), cells, PrefixEnd(cells))
            .ok());
    ASSERT_TRUE(batch.Put(kSchemaVersionKey, "3").ok());
    ASSERT_TRUE(
        store->engine().db->Write(rocksdb::WriteOptions(), &batch).ok());
    ASSERT_THAT(InvariantViolations(*store, "fleet"),
                ::testing::Not(IsEmpty()));
  }
  auto store = OpenStore(dir);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  std::string version;
  ASSERT_TRUE(store->engine()
                  .db->Get(rocksdb::ReadOptions(), kSchemaVersionKey, &version)
                  .ok());
  EXPECT_EQ(version, kSchemaVersion);
  CheckRandomSearches(*store, "fleet", truth, rng, 15);
}

TEST(HistorySearchTest, HonoursRetentionAndCompactionKeepsLiveCells) {
  const int64_t now = SystemNowMs();
  const int64_t day = 86'400'000;
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(store
                  ->AddPoints("fleet", {Point("a", now - 3 * day, kLat, kLon),
                                        Point("a", now - 2 * day, kLat, kLon),
                                        Point("a", now - 1000, kLat, kLon)})
                  .ok());
  ASSERT_TRUE(store->retention().Set("fleet", {2 * day + 60'000, false}).ok());
  ASSERT_TRUE(FlushAndCompact(*store, ColumnFamily::kPoints).ok());
  auto circle = index::CircleRegion::Create({kLat, kLon}, 100);
  HistoryQuery q{"fleet", &*circle, INT64_MIN, INT64_MAX};
  auto page = store->SearchHistory(q);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->points.size(), 2u);
  EXPECT_EQ(page->points[0].loc_time_ms, now - 2 * day);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  // The expired fix's cell went with its bucket.
  size_t cells = 0;
  for (const auto& entry : testing::ReadRaw(*store, ColumnFamily::kPoints,
                                            HistoryCellsPrefix("fleet"))) {
    ++cells;
    EXPECT_GE(
        HistoryBucketLastMs(ParseHistoryCellSuffix(
                                absl::string_view(entry.first)
                                    .substr(HistoryCellsPrefix("fleet").size()))
                                ->bucket),
        now - 2 * day - 60'000);
  }
  EXPECT_GE(cells, 1u);
}

TEST(HistorySearchTest, RefusesBadQueries) {
  auto store = OpenStore(NewDataDir());
  auto circle = index::CircleRegion::Create({kLat, kLon}, 100);
  HistoryQuery q{"fleet", &*circle, 10, 5};
  EXPECT_EQ(store->SearchHistory(q).status().code(),
            absl::StatusCode::kInvalidArgument);
  q = {"fleet", &*circle, 0, 5, false, 0};
  EXPECT_EQ(store->SearchHistory(q).status().code(),
            absl::StatusCode::kInvalidArgument);
  q = {"fleet", nullptr, 0, 5};
  EXPECT_EQ(store->SearchHistory(q).status().code(),
            absl::StatusCode::kInvalidArgument);
  for (const char* token : {"x", "12", "12:0", "12:zz", "a:00"}) {
    q = {"fleet", &*circle, 0, 5, false, 10, token};
    EXPECT_EQ(store->SearchHistory(q).status().code(),
              absl::StatusCode::kInvalidArgument)
        << token;
  }
  q = {"fleet", &*circle, 0, 5, false, 10, "12:00ff"};
  EXPECT_TRUE(store->SearchHistory(q).ok());
}

}  // namespace
}  // namespace trackdb::storage
