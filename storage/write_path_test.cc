#include <random>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InvariantViolations;
using ::testing::IsEmpty;
using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;
using ::testing::UnorderedElementsAre;

class WritePathTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = OpenStore(NewDataDir()); }

  std::vector<int64_t> Times(const std::string& entity) {
    TrackQuery q{"fleet", entity};
    q.limit = 1000;
    auto page = store_->GetTrack(q);
    EXPECT_TRUE(page.ok()) << page.status();
    std::vector<int64_t> times;
    for (const model::TrackPoint& p : page->points)
      times.push_back(p.loc_time_ms);
    return times;
  }

  // Keys in `latest`, checked against the latest index's count.
  int LatestEntries() {
    int n = 0;
    std::unique_ptr<rocksdb::Iterator> it(store_->engine().db->NewIterator(
        rocksdb::ReadOptions(), store_->engine().latest()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    return n;
  }

  std::unique_ptr<TrackStore> store_;
};

TEST_F(WritePathTest, NewestPointBecomesLatest) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 1000, 10, 20)}).ok());
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 2000, 11, 21)}).ok());
  auto latest = store_->GetLatest("fleet", "car");
  ASSERT_TRUE(latest.ok());
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->loc_time_ms, 2000);
  EXPECT_EQ((*latest)->lat, 11);
  EXPECT_EQ(LatestEntries(), 1);
  EXPECT_THAT(Times("car"), ElementsAre(1000, 2000));
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(WritePathTest, OutOfOrderPointIsHistoryOnly) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 5000, 10, 20)}).ok());
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 3000, 50, 60)}).ok());
  auto latest = store_->GetLatest("fleet", "car");
  EXPECT_EQ((*latest)->loc_time_ms, 5000);
  EXPECT_EQ((*latest)->lat, 10);
  EXPECT_THAT(Times("car"), ElementsAre(3000, 5000));
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(WritePathTest, RepeatedTimeOverwritesHistoryAndLatest) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 5000, 10, 20)}).ok());
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 5000, 12, 22)}).ok());
  EXPECT_THAT(Times("car"), ElementsAre(5000));
  EXPECT_EQ((*store_->GetLatest("fleet", "car"))->lat, 12);
  EXPECT_EQ(LatestEntries(), 1);
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(WritePathTest, OneBatchWithManyEntitiesAndRepeats) {
  ASSERT_TRUE(
      store_
          ->AddPoints("fleet", {Point("a", 3, 1, 1), Point("b", 1, 2, 2),
                                Point("a", 1, 3, 3), Point("a", 7, 4, 4),
                                Point("b", 1, 5, 5)})
          .ok());
  EXPECT_EQ((*store_->GetLatest("fleet", "a"))->lat, 4);
  EXPECT_EQ((*store_->GetLatest("fleet", "b"))->lat, 5);  // later write wins
  EXPECT_THAT(Times("a"), ElementsAre(1, 3, 7));
  EXPECT_EQ(LatestEntries(), 2);
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(WritePathTest, MoveInPlaceKeepsOneLatestEntry) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 1, 10, 20)}).ok());
  model::TrackPoint again = Point("car", 2, 10, 20);
  again.speed_kmh = 33;
  ASSERT_TRUE(store_->AddPoints("fleet", {again}).ok());
  EXPECT_EQ(LatestEntries(), 1);
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(WritePathTest, ABadPointRejectsTheWholeBatch) {
  auto s = store_->AddPoints("fleet",
                             {Point("a", 1, 10, 20), Point("b", 1, 91, 20)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("points[1].latitude"));
  s = store_->AddPoints("fleet",
                        {Point("a", 1, 10, 20), Point("b", 1, 0, NAN)});
  EXPECT_THAT(s.message(), HasSubstr("points[1].longitude"));
  model::TrackPoint bad_speed = Point("c", 1, 0, 0);
  bad_speed.speed_kmh = INFINITY;
  s = store_->AddPoints("fleet", {bad_speed});
  EXPECT_THAT(s.message(), HasSubstr("points[0].speed"));
  EXPECT_FALSE(store_->GetLatest("fleet", "a")->has_value());
  EXPECT_THAT(Times("a"), IsEmpty());
  EXPECT_EQ(LatestEntries(), 0);
}

TEST_F(WritePathTest, CollectionsAreSeparate) {
  ASSERT_TRUE(store_->AddPoints("a", {Point("car", 1, 10, 20)}).ok());
  ASSERT_TRUE(store_->AddPoints("ab", {Point("car", 2, 30, 40)}).ok());
  EXPECT_EQ((*store_->GetLatest("a", "car"))->lat, 10);
  EXPECT_EQ((*store_->GetLatest("ab", "car"))->lat, 30);
  EXPECT_THAT(InvariantViolations(*store_, "a"), IsEmpty());
  EXPECT_THAT(InvariantViolations(*store_, "ab"), IsEmpty());
}

TEST_F(WritePathTest, DeleteEntityRemovesHistoryAndLatest) {
  ASSERT_TRUE(store_
                  ->AddPoints("fleet",
                              {Point("car", 1, 10, 20), Point("car", 2, 11, 21),
                               Point("bus", 1, 10, 20)})
                  .ok());
  EXPECT_EQ(store_->DeleteEntity("fleet", "car").value(), true);
  EXPECT_FALSE(store_->GetLatest("fleet", "car")->has_value());
  EXPECT_THAT(Times("car"), IsEmpty());
  EXPECT_THAT(Times("bus"), ElementsAre(1));
  EXPECT_EQ(LatestEntries(), 1);
  EXPECT_EQ(store_->DeleteEntity("fleet", "car").value(), false);
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

// Many threads write the same entities with random times, in batches that
// mix entities, plus deletes; afterwards every invariant must hold.
TEST_F(WritePathTest, ConcurrentWritersKeepInvariants) {
  constexpr int kThreads = 8;
  constexpr int kBatches = 300;
  constexpr int kEntities = 20;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      std::mt19937 rng(t);
      for (int b = 0; b < kBatches; ++b) {
        std::vector<model::TrackPoint> batch;
        const int size = 1 + rng() % 5;
        for (int i = 0; i < size; ++i) {
          batch.push_back(
              Point(absl::StrCat("e", rng() % kEntities), rng() % 10000,
                    std::uniform_real_distribution<>(-90, 90)(rng),
                    std::uniform_real_distribution<>(-180, 180)(rng)));
        }
        ASSERT_TRUE(store_->AddPoints("fleet", batch).ok());
        if (rng() % 50 == 0) {
          ASSERT_TRUE(
              store_
                  ->DeleteEntity("fleet", absl::StrCat("e", rng() % kEntities))
                  .ok());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
  EXPECT_GT(LatestEntries(), 0);
}

// The invariant checker itself must notice a broken store, or the tests
// above prove nothing.
TEST_F(WritePathTest, OnlyNewEntitiesSkipsKnownOnesAndSaysSo) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("old", 1000, 10, 20)}).ok());
  AddPointsOptions nx;
  nx.only = AddPointsOptions::Only::kNewEntities;
  auto result = store_->AddPoints(
      "fleet", {Point("old", 2000, 11, 21), Point("new", 2000, 12, 22)}, nx);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->new_entities, 1);
  ASSERT_EQ(result->entities.size(), 2u);
  EXPECT_EQ(result->entities[0].entity, "old");
  EXPECT_FALSE(result->entities[0].written);
  EXPECT_FALSE(result->entities[0].latest_moved);
  ASSERT_TRUE(result->entities[0].prior.has_value());
  EXPECT_EQ(result->entities[0].prior->lat, 10);
  EXPECT_TRUE(result->entities[1].written);
  EXPECT_TRUE(result->entities[1].latest_moved);
  EXPECT_FALSE(result->entities[1].prior.has_value());
  // The skipped point left no history either.
  EXPECT_THAT(Times("old"), ElementsAre(1000));
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(WritePathTest, OnlyExistingEntitiesNeverCreatesOne) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("old", 1000, 10, 20)}).ok());
  AddPointsOptions xx;
  xx.only = AddPointsOptions::Only::kExistingEntities;
  auto result = store_->AddPoints(
      "fleet", {Point("old", 2000, 11, 21), Point("new", 2000, 12, 22)}, xx);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->new_entities, 0);
  EXPECT_TRUE(result->entities[0].latest_moved);
  EXPECT_FALSE(result->entities[1].written);
  EXPECT_FALSE(store_->GetLatest("fleet", "new")->has_value());
  EXPECT_THAT(Times("old"), ElementsAre(1000, 2000));
  EXPECT_EQ(*store_->CollectionSize("fleet"), 1);
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

// The position hook runs under the entity's stripe: concurrent
// read-modify-writes (each a step north of what is stored) lose none.
TEST_F(WritePathTest, PositionHookDecidesUnderTheEntitysLock) {
  constexpr int kThreads = 8;
  constexpr int kSteps = 10;
  AddPointsOptions step;
  step.position = [](size_t, const std::optional<index::LatLng>& prior)
      -> absl::StatusOr<std::optional<index::LatLng>> {
    return index::LatLng{prior ? prior->lat + 1 : 0, 20};
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kSteps; ++i) {
        ASSERT_TRUE(
            store_->AddPoints("fleet", {Point("car", 1000, 0, 0)}, step).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  auto latest = store_->GetLatest("fleet", "car");
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->lat, kThreads * kSteps - 1);
  EXPECT_EQ((*latest)->lon, 20);
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(WritePathTest, PositionHookSkipsAndIsChecked) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("old", 1000, 10, 20)}).ok());
  AddPointsOptions only_new;
  std::vector<bool> had_prior;
  only_new.position = [&](size_t, const std::optional<index::LatLng>& prior)
      -> absl::StatusOr<std::optional<index::LatLng>> {
    had_prior.push_back(prior.has_value());
    if (prior) return std::nullopt;
    return index::LatLng{5, 6};
  };
  auto result = store_->AddPoints(
      "fleet", {Point("old", 2000, 1, 1), Point("new", 2000, 1, 1)}, only_new);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(had_prior, ElementsAre(true, false));
  EXPECT_FALSE(result->entities[0].written);
  EXPECT_THAT(Times("old"), ElementsAre(1000));
  EXPECT_EQ((*store_->GetLatest("fleet", "new"))->lat, 5);
  EXPECT_EQ((*store_->GetLatest("fleet", "new"))->lon, 6);

  AddPointsOptions off_globe;
  off_globe.position = [](size_t, const std::optional<index::LatLng>&)
      -> absl::StatusOr<std::optional<index::LatLng>> {
    return index::LatLng{95, 0};
  };
  auto refused =
      store_->AddPoints("fleet", {Point("third", 3000, 1, 1)}, off_globe);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(store_->GetLatest("fleet", "third")->has_value());

  // An error from the hook ends the call: the entity decided before it is
  // not written either.
  AddPointsOptions second_fails;
  second_fails.position = [](size_t entity, const std::optional<index::LatLng>&)
      -> absl::StatusOr<std::optional<index::LatLng>> {
    if (entity == 1) return absl::AbortedError("no");
    return index::LatLng{7, 7};
  };
  auto aborted = store_->AddPoints(
      "fleet", {Point("fourth", 3000, 1, 1), Point("fifth", 3000, 1, 1)},
      second_fails);
  EXPECT_EQ(aborted.status().code(), absl::StatusCode::kAborted);
  EXPECT_FALSE(store_->GetLatest("fleet", "fourth")->has_value());
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

// replace_latest: a placed point older than the stored latest (a clock
// behind the one that wrote it) still replaces it, at its time.
TEST_F(WritePathTest, PositionHookMayReplaceANewerLatest) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 5000, 10, 20)}).ok());
  AddPointsOptions place;
  place.replace_latest = true;
  place.position = [](size_t, const std::optional<index::LatLng>&)
      -> absl::StatusOr<std::optional<index::LatLng>> {
    return index::LatLng{11, 21};
  };
  auto result = store_->AddPoints("fleet", {Point("car", 1000, 0, 0)}, place);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->entities[0].latest_moved);
  auto latest = store_->GetLatest("fleet", "car");
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->lat, 11);
  EXPECT_EQ((*latest)->loc_time_ms, 5000);
  EXPECT_THAT(InvariantViolations(*store_, "fleet"), IsEmpty());
}

TEST_F(WritePathTest, AnOlderPointDoesNotMoveTheLatest) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 2000, 10, 20)}).ok());
  auto result = store_->AddPoints("fleet", {Point("car", 1000, 11, 21)}, {});
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->entities[0].written);
  EXPECT_FALSE(result->entities[0].latest_moved);
}

TEST_F(WritePathTest, InvariantCheckerCatchesALatestWrittenPastTheFunnel) {
  ASSERT_TRUE(store_->AddPoints("fleet", {Point("car", 1, 10, 20)}).ok());
  ASSERT_TRUE(store_->engine()
                  .db
                  ->Put(rocksdb::WriteOptions(), store_->engine().latest(),
                        LatestKey("fleet", "bus"),
                        EncodePointValue(Point("bus", 1, 0, 0)))
                  .ok());
  EXPECT_THAT(InvariantViolations(*store_, "fleet"),
              UnorderedElementsAre(HasSubstr("bus: latest without history"),
                                   HasSubstr("registry counts 1 entities"),
                                   HasSubstr("latest index holds 1 entities"),
                                   HasSubstr("bus: latest index differs")));
}

}  // namespace
}  // namespace trackdb::storage
