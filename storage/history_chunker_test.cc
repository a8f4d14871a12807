// Folding raw fixes into chunks against a brute-force model: late and
// repeated fixes, before and after folds, read back by every order, page
// size and window; kept across a reopen and a schema 4 data dir.
#include "storage/history_chunker.h"

#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/engine/engine.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/keys.h"
#include "storage/points/position_at.h"
#include "storage/store_test_util.h"
#include "storage/strings/kv_expiry.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using testing::InvariantViolations;
using ::testing::IsEmpty;
using testing::NewDataDir;
using testing::OpenStore;

constexpr int64_t kT0 = 1'700'000'000'000;

// Each entity's fixes by time: the last written for a time wins.
using Model = std::map<std::string, std::map<int64_t, model::TrackPoint>>;

model::TrackPoint RandomFix(std::mt19937_64& rng, const std::string& entity,
                            int64_t t) {
  std::uniform_real_distribution<double> u(0, 1);
  model::TrackPoint p;
  p.entity = entity;
  p.loc_time_ms = t;
  // Mostly 6 decimals, as trackers send; sometimes any double.
  const bool exact = rng() % 5 != 0;
  p.lat = 48.8 + u(rng) * 0.1;
  p.lon = 2.3 + u(rng) * 0.1;
  if (exact) {
    p.lat = std::round(p.lat * 1e6) / 1e6;
    p.lon = std::round(p.lon * 1e6) / 1e6;
  }
  if (rng() % 2) p.speed_kmh = std::round(u(rng) * 900) / 10;
  if (rng() % 3) p.direction_deg = static_cast<double>(rng() % 360);
  if (rng() % 7 == 0) p.accuracy_m = 5;
  if (rng() % 4 == 0) p.attributes = {{"status", absl::StrCat(rng() % 3)}};
  return p;
}

// Writes a few fixes of one entity: mostly on from its newest, some late
// (anywhere in its past), some at a time it already has.
void WriteSome(TrackStore& store, std::mt19937_64& rng, Model* model,
               int64_t* clock) {
  const std::string entity = absl::StrCat("e", rng() % 4);
  auto& fixes = (*model)[entity];
  std::vector<model::TrackPoint> batch;
  const int n = 1 + static_cast<int>(rng() % 12);
  for (int i = 0; i < n; ++i) {
    int64_t t;
    const int kind = static_cast<int>(rng() % 10);
    if (kind < 6 || fixes.empty()) {
      *clock += 1'000 + static_cast<int64_t>(rng() % 10'000);
      t = *clock;
    } else if (kind < 8) {
      t = kT0 + static_cast<int64_t>(rng() % (*clock - kT0 + 1));
    } else {
      auto it = fixes.begin();
      std::advance(it, rng() % fixes.size());
      t = it->first;
    }
    batch.push_back(RandomFix(rng, entity, t));
  }
  ASSERT_TRUE(store.AddPoints("fleet", batch).ok());
  for (const model::TrackPoint& p : batch) fixes[p.loc_time_ms] = p;
}

std::vector<model::TrackPoint> ReadAll(TrackStore& store, TrackQuery q) {
  std::vector<model::TrackPoint> out;
  while (true) {
    absl::StatusOr<TrackPage> page = store.GetTrack(q);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) return out;
    out.insert(out.end(), page->points.begin(), page->points.end());
    if (page->next_page_token.empty()) return out;
    q.page_token = page->next_page_token;
  }
}

// Random windows, orders and page sizes of every entity against the model.
void CheckReads(TrackStore& store, const Model& model, std::mt19937_64& rng,
                int64_t clock) {
  for (const auto& [entity, fixes] : model) {
    for (int round = 0; round < 4; ++round) {
      TrackQuery q;
      q.collection = "fleet";
      q.entity = entity;
      if (round > 0) {
        q.start_ms = kT0 + static_cast<int64_t>(rng() % (clock - kT0 + 1));
        q.end_ms = q.start_ms + static_cast<int64_t>(rng() % 200'000);
      }
      q.descending = rng() % 2;
      q.limit = 1 + static_cast<int>(rng() % 20);
      std::vector<model::TrackPoint> want;
      for (auto it = fixes.lower_bound(q.start_ms);
           it != fixes.end() && it->first <= q.end_ms; ++it) {
        want.push_back(it->second);
      }
      if (q.descending) std::reverse(want.begin(), want.end());
      ASSERT_EQ(ReadAll(store, q), want)
          << entity << " [" << q.start_ms << ", " << q.end_ms << "] limit "
          << q.limit << (q.descending ? " descending" : "");
    }
  }
}

FoldOptions SmallChunks(std::mt19937_64& rng) {
  FoldOptions o;
  o.min_fixes = 1 + rng() % 20;
  o.idle_ms = 0;
  o.idle_min_fixes = 1 + rng() % 3;
  o.chunk_fixes = 2 + rng() % 30;
  o.batch_fixes = 1 + rng() % 50;
  return o;
}

TEST(HistoryChunkerTest, LateAndRepeatedFixesAgainstAModel) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    const std::string dir = NewDataDir();
    auto store = OpenStore(dir);
    Model model;
    int64_t clock = kT0;
    uint64_t folded = 0;
    for (int step = 0; step < 300; ++step) {
      const int op = static_cast<int>(rng() % 10);
      if (op < 7) {
        WriteSome(*store, rng, &model, &clock);
      } else if (op == 7) {
        auto c = store->chunker().FoldEntity(
            "fleet", absl::StrCat("e", rng() % 4), SmallChunks(rng));
        ASSERT_TRUE(c.ok()) << c.status();
        folded += c->fixes;
      } else if (op == 8) {
        // min_fixes is a floor: folds nothing below it unless idle.
        auto c = store->chunker().FoldAll(SmallChunks(rng), kT0);
        ASSERT_TRUE(c.ok()) << c.status();
        folded += c->fixes;
      } else {
        CheckReads(*store, model, rng, clock);
      }
    }
    EXPECT_GT(folded, 200u);
    EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
    CheckReads(*store, model, rng, clock);
    store.reset();
    store = OpenStore(dir);
    CheckReads(*store, model, rng, clock);
    EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
  }
}

TEST(HistoryChunkerTest, FoldAllWaitsForEnoughFixesOrIdleness) {
  auto store = OpenStore(NewDataDir());
  std::vector<model::TrackPoint> a, b;
  for (int i = 0; i < 10; ++i) a.push_back(testing::Point("a", kT0 + i, 1, 2));
  for (int i = 0; i < 3; ++i) b.push_back(testing::Point("b", kT0 + i, 1, 2));
  ASSERT_TRUE(store->AddPoints("fleet", a).ok());
  ASSERT_TRUE(store->AddPoints("fleet", b).ok());
  // `c` has a single fix: idle or not, it stays a raw key.
  ASSERT_TRUE(store->AddPoints("fleet", {testing::Point("c", kT0, 1, 2)}).ok());
  FoldOptions o;
  o.min_fixes = 5;
  o.idle_ms = 60'000;
  o.idle_min_fixes = 2;
  // Now is just after the fixes: only `a` has enough.
  auto c = store->chunker().FoldAll(o, kT0 + 1'000);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->entities, 1u);
  EXPECT_EQ(c->fixes, 10u);
  EXPECT_THAT(testing::ReadRaw(*store, ColumnFamily::kPoints,
                               EntityPointsPrefix("fleet", "a")),
              IsEmpty());
  // An hour on, `b` is idle.
  c = store->chunker().FoldAll(o, kT0 + 3'600'000);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->fixes, 3u);
  EXPECT_EQ(
      testing::ReadRaw(*store, ColumnFamily::kChunks, CollectionPrefix("fleet"))
          .size(),
      2u);
  EXPECT_EQ(testing::ReadRaw(*store, ColumnFamily::kPoints,
                             EntityPointsPrefix("fleet", "c"))
                .size(),
            1u);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
}

TEST(HistoryChunkerTest, DeletesAndCollectionsTakeChunksAlong) {
  auto store = OpenStore(NewDataDir());
  std::vector<model::TrackPoint> fixes;
  for (int i = 0; i < 50; ++i) {
    fixes.push_back(testing::Point(i % 2 ? "a" : "b", kT0 + i * 1000, 1, 2));
  }
  ASSERT_TRUE(store->AddPoints("fleet", fixes).ok());
  FoldOptions o;
  o.min_fixes = 1;
  o.chunk_fixes = 10;
  ASSERT_TRUE(store->chunker().FoldAll(o, kT0).ok());
  ASSERT_TRUE(store->DeleteEntity("fleet", "a").ok());
  EXPECT_THAT(testing::ReadRaw(*store, ColumnFamily::kChunks,
                               EntityPointsPrefix("fleet", "a")),
              IsEmpty());
  EXPECT_FALSE(testing::ReadRaw(*store, ColumnFamily::kChunks,
                                EntityPointsPrefix("fleet", "b"))
                   .empty());
  ASSERT_TRUE(store->DeleteCollection("fleet").ok());
  EXPECT_THAT(testing::ReadRaw(*store, ColumnFamily::kChunks), IsEmpty());
}

TEST(HistoryChunkerTest, PositionAtReadsInsideAChunk) {
  auto store = OpenStore(NewDataDir());
  std::vector<model::TrackPoint> fixes;
  for (int i = 0; i < 30; ++i) {
    fixes.push_back(testing::Point("a", kT0 + i * 10'000, 10 + i * 0.001, 20));
  }
  ASSERT_TRUE(store->AddPoints("fleet", fixes).ok());
  FoldOptions o;
  o.min_fixes = 1;
  o.chunk_fixes = 8;
  ASSERT_TRUE(store->chunker().FoldAll(o, kT0).ok());
  PositionAtQuery q{"fleet", "a", kT0 + 95'000};
  absl::StatusOr<PositionAt> at = GetPositionAt(*store, q);
  ASSERT_TRUE(at.ok()) << at.status();
  ASSERT_TRUE(at->before && at->after);
  EXPECT_EQ(at->before->loc_time_ms, kT0 + 90'000);
  EXPECT_EQ(at->after->loc_time_ms, kT0 + 100'000);
  EXPECT_NEAR(at->position.lat, 10.0095, 1e-9);
}

// A collection keeping max_points per entity is folded too: its trim cuts
// across chunks (storage/history_trim.h), dropping the chunks before the
// oldest fix kept and rewriting the one across it, and raw fixes alike.
TEST(HistoryChunkerTest, AMaxPointsCollectionIsFoldedAndTrimmedAcrossChunks) {
  auto store = OpenStore(NewDataDir());
  std::vector<model::TrackPoint> fixes;
  for (int i = 0; i < 20; ++i) {
    fixes.push_back(testing::Point("a", kT0 + i, 1, 2));
  }
  ASSERT_TRUE(store->AddPoints("fleet", fixes).ok());
  FoldOptions o;
  o.min_fixes = 1;
  o.chunk_fixes = 8;
  auto c = store->chunker().FoldEntity("fleet", "a", o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->fixes, 20u);
  EXPECT_EQ(c->chunks, 3u);  // 6, 7, 7 fixes: kT0+5, kT0+12, kT0+19
  ASSERT_TRUE(store->AddPoints("fleet", {testing::Point("a", kT0 + 20, 1, 2)})
                  .ok());  // raw, newest
  ASSERT_TRUE(store->retention().Set("fleet", {0, false, 10}).ok());
  absl::StatusOr<int64_t> trimmed = store->retention().TrimHistories();
  ASSERT_TRUE(trimmed.ok()) << trimmed.status();
  EXPECT_EQ(*trimmed, 11);  // kT0 .. kT0+10
  const auto chunks = testing::ReadRaw(*store, ColumnFamily::kChunks);
  ASSERT_EQ(chunks.size(), 2u);  // the first gone, the second cut
  std::vector<model::TrackPoint> second;
  ASSERT_TRUE(DecodeChunk(chunks[0].second, &second).ok());
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second.front().loc_time_ms, kT0 + 11);
  EXPECT_EQ(PointKeyTime(chunks[0].first), kT0 + 12);  // its key stays
  TrackQuery q;
  q.collection = "fleet";
  q.entity = "a";
  auto page = store->GetTrack(q);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->points.size(), 10u);
  EXPECT_EQ(page->points.front().loc_time_ms, kT0 + 11);
  EXPECT_EQ(page->points.back().loc_time_ms, kT0 + 20);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
}

// Compaction drops a chunk wholly past the cutoff and rewrites the one
// across it without its expired fixes.
TEST(HistoryChunkerTest, RetentionCutsAChunkAcrossItsCutoff) {
  auto store = OpenStore(NewDataDir());
  const int64_t now = SystemNowMs();
  const int64_t hour = 3'600'000;
  std::vector<model::TrackPoint> fixes;
  for (int i = 0; i < 30; ++i) {
    fixes.push_back(testing::Point("a", now - 30 * hour + i * hour, 1, 2));
  }
  ASSERT_TRUE(store->AddPoints("fleet", fixes).ok());
  FoldOptions o;
  o.min_fixes = 1;
  o.chunk_fixes = 10;
  ASSERT_TRUE(store->chunker().FoldEntity("fleet", "a", o).ok());
  // Keep the last 15.5 hours: chunk 1 goes, chunk 2 is cut to 5 fixes.
  ASSERT_TRUE(
      store->retention().Set("fleet", {15 * hour + hour / 2, false}).ok());
  ASSERT_TRUE(testing::FlushAndCompact(*store, ColumnFamily::kChunks).ok());
  const testing::RawEntries chunks =
      testing::ReadRaw(*store, ColumnFamily::kChunks);
  ASSERT_EQ(chunks.size(), 2u);
  std::vector<model::TrackPoint> kept;
  for (const auto& [key, value] : chunks) {
    ASSERT_TRUE(DecodeChunk(value, &kept).ok());
  }
  ASSERT_EQ(kept.size(), 15u);
  EXPECT_EQ(kept.front().loc_time_ms, fixes[15].loc_time_ms);
  EXPECT_EQ(store->retention().counters().points_expired, 15u);
}

// A data dir written before chunks: version 4, every fix raw. It opens,
// says 5, reads as before, and folds.
TEST(HistoryChunkerTest, ASchemaFourDirOpensAndFolds) {
  const std::string dir = NewDataDir();
  std::vector<model::TrackPoint> fixes;
  for (int i = 0; i < 40; ++i) {
    fixes.push_back(testing::Point("a", kT0 + i * 1000, 1 + i * 1e-4, 2));
  }
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store->AddPoints("fleet", fixes).ok());
    ASSERT_TRUE(store->engine()
                    .db
                    ->Put(rocksdb::WriteOptions(), kSchemaVersionKey,
                          kSchemaVersionWithoutChunks)
                    .ok());
  }
  auto store = OpenStore(dir);
  std::string version;
  ASSERT_TRUE(store->engine()
                  .db->Get(rocksdb::ReadOptions(), kSchemaVersionKey, &version)
                  .ok());
  EXPECT_EQ(version, kSchemaVersion);
  TrackQuery q;
  q.collection = "fleet";
  q.entity = "a";
  q.limit = 100;
  EXPECT_EQ(ReadAll(*store, q), fixes);
  FoldOptions o;
  o.min_fixes = 1;
  o.batch_fixes = 16;  // resumable: several batches
  auto c = store->chunker().FoldEntity("fleet", "a", o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->fixes, 40u);
  EXPECT_EQ(ReadAll(*store, q), fixes);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), IsEmpty());
}

// A newer data dir is refused, with the version in the message.
TEST(HistoryChunkerTest, ANewerSchemaIsRefused) {
  const std::string dir = NewDataDir();
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store->engine()
                    .db->Put(rocksdb::WriteOptions(), kSchemaVersionKey, "6")
                    .ok());
  }
  v1::StorageConfig config;
  auto store = TrackStore::Open(dir, config);
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(std::string(store.status().message()),
              ::testing::HasSubstr("schema version 6"));
}

}  // namespace
}  // namespace trackdb::storage
