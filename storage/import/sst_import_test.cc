#include "storage/import/sst_import.h"

#include <filesystem>
#include <fstream>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/store_test_util.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;
using testing::InvariantViolations;
using ::testing::IsEmpty;
using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;

using Dump = testing::RawEntries;

// Every key and value of points and latest.
// Fixes and latest points. The history cells are left out: the import
// writes one per change of cell along each sorted history, AddPoints one
// per change from what each batch knew, and both keep I7, which
// InvariantViolations checks.
// Every raw fix is folded first (as the import's last step does), so that
// a store written by AddPoints and an imported one hold the same chunks.
std::vector<Dump> DumpAll(TrackStore& store) {
  FoldOptions fold;
  fold.min_fixes = 1;
  EXPECT_TRUE(store.chunker().FoldAll(fold, INT64_MAX).ok());
  Dump points;
  for (auto& entry : testing::ReadRaw(store, ColumnFamily::kPoints)) {
    const std::optional<LatestKeyParts> key = ParseLatestKey(entry.first);
    if (key && absl::StartsWith(key->entity, kHistoryCellsTag)) continue;
    points.push_back(std::move(entry));
  }
  return {points, testing::ReadRaw(store, ColumnFamily::kChunks),
          testing::ReadRaw(store, ColumnFamily::kLatest)};
}

// Raw fixes in `points` (history cells left out).
size_t RawFixes(TrackStore& store) {
  size_t n = 0;
  for (const auto& entry : testing::ReadRaw(store, ColumnFamily::kPoints)) {
    const std::optional<LatestKeyParts> key = ParseLatestKey(entry.first);
    n += !(key && absl::StartsWith(key->entity, kHistoryCellsTag));
  }
  return n;
}

uint64_t IntProperty(TrackStore& store, rocksdb::ColumnFamilyHandle* cf,
                     const std::string& name) {
  std::string text;
  uint64_t v = 0;
  EXPECT_TRUE(store.engine().db->GetProperty(cf, name, &text)) << name;
  EXPECT_TRUE(absl::SimpleAtoi(text, &v)) << name << ": " << text;
  return v;
}

// Points of a few moving entities, in random order, with repeated
// (entity, time) pairs whose later copy differs.
std::vector<model::TrackPoint> MovingPoints(int entities, int per_entity,
                                            int64_t t0, uint32_t seed) {
  std::vector<model::TrackPoint> points;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> step(-0.01, 0.01);
  for (int e = 0; e < entities; ++e) {
    double lat = 39.9 + e * 0.001, lon = 116.4;
    for (int i = 0; i < per_entity; ++i) {
      lat += step(rng);
      lon += step(rng);
      model::TrackPoint p =
          Point(absl::StrCat("car", e), t0 + i * 1000, lat, lon);
      if (i % 3 == 0) p.speed_kmh = i;
      if (i % 5 == 0) p.attributes = {{"driver", absl::StrCat("d", e)}};
      points.push_back(p);
    }
  }
  std::shuffle(points.begin(), points.end(), rng);
  // Repeats: the later copy (moved elsewhere) must win.
  for (int e = 0; e < entities; e += 2) {
    model::TrackPoint again = Point(absl::StrCat("car", e), t0 + 1000, 10, 10);
    points.push_back(again);
  }
  return points;
}

absl::StatusOr<SstImportStats> Import(
    TrackStore& store, const std::vector<model::TrackPoint>& points,
    SstImportOptions options = {}, const std::string& collection = "fleet") {
  auto import = SstImport::Start(&store, collection, options);
  if (!import.ok()) return import.status();
  for (const model::TrackPoint& p : points) {
    if (absl::Status s = (*import)->Add(p); !s.ok()) return s;
  }
  return (*import)->Finish();
}

class SstImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(NewDataDir());
    reference_ = OpenStore(NewDataDir());
  }

  // Writes `points` to the reference store through the one write path.
  void AddToReference(const std::vector<model::TrackPoint>& points,
                      const std::string& collection = "fleet") {
    ASSERT_TRUE(reference_->AddPoints(collection, points).ok());
  }

  // Writes to both stores through AddPoints: what the DB held before.
  void AddToBoth(const std::vector<model::TrackPoint>& points) {
    ASSERT_TRUE(store_->AddPoints("fleet", points).ok());
    AddToReference(points);
  }

  std::unique_ptr<TrackStore> store_;
  std::unique_ptr<TrackStore> reference_;
};

TEST_F(SstImportTest, ImportIntoEmptyStoreEqualsAddPoints) {
  const auto points = MovingPoints(20, 50, 1700000000000, 1);
  auto stats = Import(*store_, points);
  ASSERT_TRUE(stats.ok()) << stats.status();
  AddToReference(points);

  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
  // No entity had history: all of it went straight into chunks.
  EXPECT_EQ(RawFixes(*store_), 0u);
  EXPECT_EQ(stats->chunked_entities, 20u);
  EXPECT_EQ(stats->raw_entities, 0u);
  EXPECT_EQ(stats->chunks, 20u);
  EXPECT_EQ(stats->chunk_seconds, 0);  // nothing to fold
  EXPECT_EQ(DumpAll(*store_), DumpAll(*reference_));
  EXPECT_EQ(stats->points_added, points.size());
  EXPECT_EQ(stats->points_written, 20u * 50u);
  EXPECT_EQ(stats->entities, 20u);
  EXPECT_EQ(stats->latest_updated, 20u);
  EXPECT_EQ(stats->latest_kept, 0u);
  EXPECT_EQ(stats->spilled_runs, 0);
  EXPECT_EQ(stats->sst_files, 4);  // cells, chunks, latest, registry count
  // The later copy of a repeated (entity, time) won.
  TrackQuery q{"fleet", "car0", 1700000001000, 1700000001000};
  auto page = store_->GetTrack(q);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->points.size(), 1u);
  EXPECT_EQ(page->points[0].lat, 10);
}

// The DB already holds points of the same entities: some newer than
// anything imported, some older, one at the same time as the imported
// newest; and an entity the import does not touch.
TEST_F(SstImportTest, MergesWithNewerAndOlderStoredPoints) {
  const int64_t t0 = 1700000000000;
  AddToBoth({Point("newer", t0 + 900000, 1, 1),  // newer than all imported
             Point("older", t0 - 5000, 2, 2),    // older: moves
             Point("same", t0 + 2000, 3, 3),     // = imported newest time
             Point("still", t0 - 1000, 4, 4),    // older, same cell after
             Point("untouched", t0, 5, 5)});
  const std::vector<model::TrackPoint> imported = {
      Point("newer", t0, 10, 10),        Point("newer", t0 + 1000, 11, 11),
      Point("older", t0 + 1000, 12, 12), Point("older", t0, 13, 13),
      Point("same", t0 + 2000, 14, 14),  Point("still", t0, 4, 4),
      Point("new", t0, 15, 15)};
  auto stats = Import(*store_, imported);
  ASSERT_TRUE(stats.ok()) << stats.status();
  AddToReference(imported);

  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
  EXPECT_EQ(DumpAll(*store_), DumpAll(*reference_));
  EXPECT_EQ(stats->entities, 5u);
  EXPECT_EQ(stats->raw_entities, 4u);      // had history: folded after
  EXPECT_EQ(stats->chunked_entities, 1u);  // new
  EXPECT_EQ(RawFixes(*store_), 0u);
  EXPECT_EQ(stats->latest_kept, 1u);     // newer
  EXPECT_EQ(stats->latest_updated, 4u);  // older, same, still, new
  auto newer = store_->GetLatest("fleet", "newer");
  ASSERT_TRUE(newer.ok() && newer->has_value());
  EXPECT_EQ((*newer)->lat, 1);
  auto same = store_->GetLatest("fleet", "same");
  ASSERT_TRUE(same.ok() && same->has_value());
  EXPECT_EQ((*same)->lat, 14);  // equal time: the import, written last, wins
}

// Histories longer than a chunk go straight into the chunks the folder
// would have made of them, byte for byte.
TEST_F(SstImportTest, LongHistoriesGoStraightIntoTheFoldersChunks) {
  const auto points = MovingPoints(3, 700, 1700000000000, 4);
  auto stats = Import(*store_, points);
  ASSERT_TRUE(stats.ok()) << stats.status();
  AddToReference(points);
  EXPECT_EQ(RawFixes(*store_), 0u);
  EXPECT_EQ(stats->chunks, 9u);  // 700 fixes: 233 + 233 + 234
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
  EXPECT_EQ(DumpAll(*store_), DumpAll(*reference_));
}

TEST_F(SstImportTest, ReimportChangesNothing) {
  const auto points = MovingPoints(10, 30, 1700000000000, 2);
  ASSERT_TRUE(Import(*store_, points).ok());
  const std::vector<Dump> once = DumpAll(*store_);
  auto again = Import(*store_, points);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(DumpAll(*store_), once);
  EXPECT_EQ(again->latest_updated, 10u);  // equal times: rewritten in place
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(SstImportTest, SpillsAndCutsFilesWithTheSameResult) {
  AddToBoth({Point("car3", 1700000500000, 1, 1), Point("car4", 1, 2, 2)});
  const auto points = MovingPoints(40, 100, 1700000000000, 3);
  SstImportOptions small;
  small.sort_memory_bytes = 32 << 10;
  small.sst_file_bytes = 16 << 10;
  auto stats = Import(*store_, points, small);
  ASSERT_TRUE(stats.ok()) << stats.status();
  AddToReference(points);
  EXPECT_GT(stats->spilled_runs, 2);
  EXPECT_GT(stats->sst_files, 4);
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
  EXPECT_EQ(DumpAll(*store_), DumpAll(*reference_));
}

TEST_F(SstImportTest, FinishesCompactedWithNothingInLevel0) {
  // Flushed data in the DB, so that the ingested files overlap it and land
  // in level 0 before the compaction.
  AddToBoth(MovingPoints(30, 20, 1700000000000, 4));
  ASSERT_TRUE(store_->engine()
                  .db->Flush(rocksdb::FlushOptions(), store_->engine().points())
                  .ok());
  auto stats = Import(*store_, MovingPoints(30, 20, 1700000010000, 5));
  ASSERT_TRUE(stats.ok()) << stats.status();
  for (auto* cf : {store_->engine().points(), store_->engine().latest()}) {
    EXPECT_EQ(IntProperty(*store_, cf, "rocksdb.num-files-at-level0"), 0u);
    EXPECT_EQ(IntProperty(*store_, cf, "rocksdb.num-immutable-mem-table"), 0u);
  }
  // The replaced latest versions were compacted away: one key per entity.
  EXPECT_EQ(IntProperty(*store_, store_->engine().latest(),
                        "rocksdb.estimate-num-keys"),
            30u);
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(SstImportTest, OtherCollectionsAreUntouched) {
  ASSERT_TRUE(
      store_->AddPoints("fleet2", {Point("car0", 1700000000000, 1, 1)}).ok());
  const std::vector<Dump> before = DumpAll(*store_);
  ASSERT_TRUE(
      Import(*store_, MovingPoints(5, 5, 1700000000000, 6), {}, "fleet").ok());
  auto other = store_->GetLatest("fleet2", "car0");
  ASSERT_TRUE(other.ok() && other->has_value());
  EXPECT_EQ((*other)->lat, 1);
  EXPECT_THAT(InvariantViolations(*store_, "fleet2"), IsEmpty());
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
  EXPECT_NE(DumpAll(*store_), before);
}

TEST_F(SstImportTest, InvalidPointIsRefusedAndNothingIsWritten) {
  auto import = SstImport::Start(store_.get(), "fleet");
  ASSERT_TRUE(import.ok());
  ASSERT_TRUE((*import)->Add(Point("car", 1700000000000, 1, 1)).ok());
  absl::Status s = (*import)->Add(Point("car", 1700000001000, 91, 1));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("latitude"));
  model::TrackPoint nan_speed = Point("car", 1700000002000, 1, 1);
  nan_speed.speed_kmh = std::nan("");
  EXPECT_EQ((*import)->Add(nan_speed).code(),
            absl::StatusCode::kInvalidArgument);
  // Abandoned without Finish: the store is as it was.
  import->reset();
  EXPECT_TRUE(testing::ReadRaw(*store_, ColumnFamily::kPoints).empty());
}

TEST_F(SstImportTest, TempDirIsRemoved) {
  const std::string temp = NewDataDir();
  SstImportOptions options;
  options.temp_dir = temp;
  options.sort_memory_bytes = 8 << 10;  // spill files too
  ASSERT_TRUE(
      Import(*store_, MovingPoints(5, 50, 1700000000000, 7), options).ok());
  EXPECT_TRUE(std::filesystem::is_empty(temp));
}

TEST_F(SstImportTest, TempDirOfAnImportThatDiedIsRemoved) {
  const std::string dir = store_->engine().db->GetName();
  // What a killed trackdb_import (another pid) leaves in the data dir.
  std::filesystem::create_directories(dir + "/import-tmp-999999999-0");
  std::ofstream(dir + "/import-tmp-999999999-0/points-0.run") << "x";
  ASSERT_TRUE(Import(*store_, MovingPoints(2, 2, 1700000000000, 8)).ok());
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_THAT(entry.path().filename().string(),
                ::testing::Not(::testing::StartsWith("import-tmp-")));
  }
}

TEST_F(SstImportTest, EmptyImportWritesNothing) {
  auto stats = Import(*store_, {});
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->sst_files, 0);
  EXPECT_TRUE(testing::ReadRaw(*store_, ColumnFamily::kPoints).empty());
}

}  // namespace
}  // namespace trackdb::storage
