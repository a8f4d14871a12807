// History retention: policies stored and loaded, reads that hide expired
// history, the compaction filter that drops it, and the entity expiry pass.
#include "storage/points/retention.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/strings/kv_expiry.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::FlushAndCompact;
using testing::InvariantViolations;
using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;
using testing::ReadRaw;

constexpr int64_t kDayMs = 86400000;
constexpr int64_t kYearMs = 365 * kDayMs;

// Times of the stored points of (collection, entity), straight from the
// points column family.
std::vector<int64_t> RawTimes(TrackStore& store, absl::string_view collection,
                              absl::string_view entity) {
  std::vector<int64_t> times;
  for (const auto& [key, value] :
       ReadRaw(store, ColumnFamily::kPoints,
               EntityPointsPrefix(collection, entity))) {
    times.push_back(PointKeyTime(key));
  }
  return times;
}

std::vector<int64_t> TrackTimes(TrackStore& store, absl::string_view collection,
                                absl::string_view entity,
                                bool descending = false) {
  TrackQuery q;
  q.collection = std::string(collection);
  q.entity = std::string(entity);
  q.limit = 1000;
  q.descending = descending;
  absl::StatusOr<TrackPage> page = store.GetTrack(q);
  EXPECT_TRUE(page.ok()) << page.status();
  std::vector<int64_t> times;
  if (page.ok()) {
    for (const model::TrackPoint& p : page->points) {
      times.push_back(p.loc_time_ms);
    }
  }
  return times;
}

TEST(RetentionPolicyTest, EncodingAndCutoff) {
  const RetentionPolicy year{kYearMs, true};
  EXPECT_EQ(DecodeRetentionPolicy(EncodeRetentionPolicy(year)), year);
  EXPECT_EQ(DecodeRetentionPolicy(EncodeRetentionPolicy({5, false})),
            (RetentionPolicy{5, false}));
  const RetentionPolicy counted{0, false, 1000};
  EXPECT_EQ(DecodeRetentionPolicy(EncodeRetentionPolicy(counted)), counted);
  EXPECT_EQ(HistoryCutoffMs(counted, 10 * kYearMs), INT64_MIN);
  EXPECT_EQ(DecodeRetentionPolicy(""), std::nullopt);
  EXPECT_EQ(DecodeRetentionPolicy(EncodeRetentionPolicy(year).substr(1)),
            std::nullopt);
  EXPECT_EQ(HistoryCutoffMs(year, 10 * kYearMs), 9 * kYearMs);
  EXPECT_EQ(HistoryCutoffMs({}, 10 * kYearMs), INT64_MIN);
  EXPECT_EQ(HistoryCutoffMs(year, INT64_MIN + 5), INT64_MIN);

  RetentionPolicies policies;
  EXPECT_TRUE(policies.empty());
  policies.Set("c", year);
  EXPECT_EQ(policies.Get("c"), year);
  EXPECT_TRUE(policies.Get("d").keeps_everything());
  EXPECT_EQ(policies.Cutoffs(10 * kYearMs).at("c"), 9 * kYearMs);
  policies.Set("d", counted);
  EXPECT_EQ(policies.Cutoffs(10 * kYearMs).count("d"), 0u);
  policies.Set("c", {});
  policies.Set("d", {});
  EXPECT_TRUE(policies.empty());
}

TEST(RetentionTest, CompactionDropsOnlyExpiredHistoryAndCountsIt) {
  const std::string dir = NewDataDir();
  auto store = OpenStore(dir);
  const int64_t now = SystemNowMs();
  const std::vector<int64_t> times = {now - 2 * kYearMs, now - 400 * kDayMs,
                                      now - 10 * kDayMs, now - 60000};
  for (int64_t t : times) {
    ASSERT_TRUE(store->AddPoints("fleet", {Point("a", t, 1, 2)}).ok());
    ASSERT_TRUE(store->AddPoints("other", {Point("a", t, 1, 2)}).ok());
  }
  ASSERT_TRUE(store->retention().Set("fleet", {kYearMs, false}).ok());
  ASSERT_TRUE(FlushAndCompact(*store, ColumnFamily::kPoints).ok());

  EXPECT_THAT(RawTimes(*store, "fleet", "a"), ElementsAre(times[2], times[3]));
  EXPECT_THAT(RawTimes(*store, "other", "a"), ElementsAreArray(times));
  EXPECT_EQ(store->retention().counters().points_expired, 2u);
  EXPECT_EQ(store->retention().counters().entities_expired, 0u);
  EXPECT_THAT(InvariantViolations(*store, "fleet"), ::testing::IsEmpty());
}

TEST(RetentionTest, ReadsHideExpiredHistoryBeforeCompaction) {
  auto store = OpenStore(NewDataDir());
  const int64_t now = SystemNowMs();
  const int64_t old = now - 2 * kDayMs, recent = now - 1000;
  ASSERT_TRUE(
      store->AddPoints("c", {Point("a", old, 1, 2), Point("a", recent, 1, 3)})
          .ok());
  ASSERT_TRUE(store->retention().Set("c", {kDayMs, false}).ok());
  EXPECT_THAT(RawTimes(*store, "c", "a"), ElementsAre(old, recent));
  EXPECT_THAT(TrackTimes(*store, "c", "a"), ElementsAre(recent));
  EXPECT_THAT(TrackTimes(*store, "c", "a", true), ElementsAre(recent));
  // A range wholly before the cutoff is empty, not an error.
  TrackQuery q{"c", "a", old - 10, old + 10};
  auto page = store->GetTrack(q);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_TRUE(page->points.empty());
  // A descending page token past the cutoff ends the track.
  q = {"c", "a", INT64_MIN, INT64_MAX, 1, absl::StrCat(old), true};
  page = store->GetTrack(q);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_TRUE(page->points.empty());
  // Removing the policy shows what compaction has not dropped.
  ASSERT_TRUE(store->retention().Set("c", {}).ok());
  EXPECT_THAT(TrackTimes(*store, "c", "a"), ElementsAre(old, recent));
}

TEST(RetentionTest, PoliciesSurviveReopenAndBadOnesWriteNothing) {
  const std::string dir = NewDataDir();
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store->retention().Set("a", {kYearMs, true}).ok());
    ASSERT_TRUE(store->retention().Set("b", {kDayMs, false}).ok());
    ASSERT_TRUE(store->retention().Set("b", {}).ok());
    absl::Status bad = store->retention().Set("a", {-1, false});
    EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(bad.message(), ::testing::HasSubstr("max_age_ms"));
    bad = store->retention().Set("a", {0, true});
    EXPECT_THAT(bad.message(), ::testing::HasSubstr("expire_latest"));
    ASSERT_TRUE(store->Close().ok());
  }
  auto store = OpenStore(dir);
  EXPECT_EQ(store->retention().Get("a"), (RetentionPolicy{kYearMs, true}));
  EXPECT_TRUE(store->retention().Get("b").keeps_everything());
  EXPECT_EQ(ReadRaw(*store, ColumnFamily::kDefault, RetentionKey("b")).size(),
            0u);
  // Not a collection: the registry does not list it.
  int collections = 0;
  ASSERT_TRUE(store
                  ->ScanCollections([&](absl::string_view, int64_t) {
                    ++collections;
                    return true;
                  })
                  .ok());
  EXPECT_EQ(collections, 0);
}

TEST(RetentionTest, ExpireEntitiesRemovesOnlyExpiredLatestWhereAsked) {
  auto store = OpenStore(NewDataDir());
  const int64_t now = SystemNowMs();
  for (const char* c : {"expiring", "keeping"}) {
    ASSERT_TRUE(store
                    ->AddPoints(c, {Point("old", now - 3 * kDayMs, 1, 2),
                                    Point("new", now - 3 * kDayMs, 1, 2),
                                    Point("new", now - 1000, 1, 2)})
                    .ok());
  }
  ASSERT_TRUE(store->retention().Set("expiring", {kDayMs, true}).ok());
  ASSERT_TRUE(store->retention().Set("keeping", {kDayMs, false}).ok());

  absl::StatusOr<int64_t> expired = store->retention().ExpireEntities(now);
  ASSERT_TRUE(expired.ok()) << expired.status();
  EXPECT_EQ(*expired, 1);
  EXPECT_EQ(store->retention().counters().entities_expired, 1u);
  EXPECT_EQ(*store->GetLatest("expiring", "old"), std::nullopt);
  EXPECT_TRUE(RawTimes(*store, "expiring", "old").empty());
  EXPECT_EQ(*store->CollectionSize("expiring"), 1);
  EXPECT_NE(*store->GetLatest("keeping", "old"), std::nullopt);
  EXPECT_EQ(*store->CollectionSize("keeping"), 2);
  for (const char* c : {"expiring", "keeping"}) {
    EXPECT_THAT(InvariantViolations(*store, c), ::testing::IsEmpty()) << c;
  }
  // Nothing left to expire: a second pass removes nothing.
  EXPECT_EQ(*store->retention().ExpireEntities(now), 0);
}

TEST(RetentionTest, ExpiringManyEntitiesFlushesTheirRangeTombstones) {
  auto store = OpenStore(NewDataDir());
  const int64_t now = SystemNowMs();
  std::vector<model::TrackPoint> old;
  for (int e = 0; e < 100; ++e) {
    old.push_back(Point(absl::StrCat("e", e), now - 3 * kDayMs, 1, 2));
  }
  ASSERT_TRUE(store->AddPoints("fleet", old).ok());
  ASSERT_TRUE(store->retention().Set("fleet", {kDayMs, true}).ok());
  EXPECT_EQ(*store->retention().ExpireEntities(now), 100);
  uint64_t entries = 1;
  ASSERT_TRUE(store->engine().db->GetIntProperty(
      store->engine().points(), "rocksdb.num-entries-active-mem-table",
      &entries));
  EXPECT_EQ(entries, 0u) << "the points memtable was flushed";
  EXPECT_EQ(*store->CollectionSize("fleet"), 0);
}

TEST(RetentionTest, TrimHistoriesKeepsEachEntitysNewestFixes) {
  auto store = OpenStore(NewDataDir());
  auto add = [&](const char* entity, int64_t t) {
    ASSERT_TRUE(store->AddPoints("fleet", {Point(entity, t, 1, 2)}).ok());
  };
  for (int64_t t = 1; t <= 10; ++t) {
    add("a", 1000 * t);
    add("b", 1000 * t);
  }
  add("short", 5000);
  ASSERT_TRUE(store->retention().Set("fleet", {0, false, 4}).ok());
  EXPECT_EQ(*store->retention().TrimHistories(), 12);
  EXPECT_THAT(RawTimes(*store, "fleet", "a"),
              ElementsAre(7000, 8000, 9000, 10000));
  EXPECT_THAT(RawTimes(*store, "fleet", "short"), ElementsAre(5000));
  EXPECT_EQ(store->retention().counters().points_trimmed, 12u);
  EXPECT_EQ(*store->retention().TrimHistories(), 0) << "nothing moved";

  add("a", 11000);
  add("a", 12000);
  add("b", 6500);  // late: b's latest is unchanged, so b waits
  EXPECT_EQ(*store->retention().TrimHistories(), 2);
  EXPECT_THAT(RawTimes(*store, "fleet", "a"),
              ElementsAre(9000, 10000, 11000, 12000));
  EXPECT_EQ(RawTimes(*store, "fleet", "b").size(), 5u);
  add("b", 11000);
  EXPECT_EQ(*store->retention().TrimHistories(), 2);
  EXPECT_THAT(RawTimes(*store, "fleet", "b"),
              ElementsAre(8000, 9000, 10000, 11000));

  // A lower limit trims everyone again.
  ASSERT_TRUE(store->retention().Set("fleet", {0, false, 2}).ok());
  EXPECT_EQ(*store->retention().TrimHistories(), 4);
  EXPECT_THAT(TrackTimes(*store, "fleet", "b"), ElementsAre(10000, 11000));
  // An entity deleted and written again, older than where its last trim
  // kept: counted again from its newest.
  ASSERT_TRUE(*store->DeleteEntity("fleet", "b"));
  for (int64_t t : {1000, 2000, 3000}) add("b", t);
  EXPECT_EQ(*store->retention().TrimHistories(), 1);
  EXPECT_THAT(RawTimes(*store, "fleet", "b"), ElementsAre(2000, 3000));
  EXPECT_THAT(InvariantViolations(*store, "fleet"), ::testing::IsEmpty());
  EXPECT_EQ(store->retention().Set("fleet", {0, false, -1}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->retention().Get("fleet"), (RetentionPolicy{0, false, 2}));
}

// Trimming over chunks: random histories folded into small chunks, with
// late and repeated fixes written raw after, trimmed to random limits,
// against a model of each entity's times (a repeat is one fix).
TEST(RetentionTest, TrimHistoriesOverChunksKeepsTheNewestAgainstAModel) {
  auto store = OpenStore(NewDataDir());
  std::mt19937_64 rng(5);
  std::map<std::string, std::set<int64_t>> model;
  const auto write = [&](const std::string& entity, int64_t t) {
    ASSERT_TRUE(store->AddPoints("fleet", {Point(entity, t, 1, 2)}).ok());
    model[entity].insert(t);
  };
  FoldOptions fold;
  fold.min_fixes = 1;
  fold.chunk_fixes = 7;
  for (int round = 0; round < 12; ++round) {
    for (int e = 0; e < 4; ++e) {
      const std::string entity = absl::StrCat("e", e);
      for (int i = 0, n = 5 + rng() % 40; i < n; ++i) {
        write(entity, 1000 + static_cast<int64_t>(rng() % 400) * 10);
      }
    }
    if (rng() % 3 != 0) {
      ASSERT_TRUE(store->chunker().FoldAll(fold, INT64_MAX).ok());
    }
    const int64_t max = 1 + rng() % 60;
    ASSERT_TRUE(store->retention().Set("fleet", {0, false, max}).ok());
    uint64_t want_removed = 0;
    for (auto& [entity, times] : model) {
      while (times.size() > static_cast<size_t>(max)) {
        times.erase(times.begin());
        ++want_removed;
      }
    }
    absl::StatusOr<int64_t> removed = store->retention().TrimHistories();
    ASSERT_TRUE(removed.ok()) << removed.status();
    // An entity whose latest did not move waits: trimmed here only if it
    // was written this round, which every one was unless no fix was newer.
    EXPECT_LE(*removed, static_cast<int64_t>(want_removed)) << round;
    // A fresh write to each moves its latest: now every one is trimmed.
    for (auto& [entity, times] : model) {
      write(entity, *times.rbegin() + 10);
      while (times.size() > static_cast<size_t>(max)) times.erase(times.begin());
    }
    ASSERT_TRUE(store->retention().TrimHistories().ok());
    for (const auto& [entity, times] : model) {
      EXPECT_THAT(TrackTimes(*store, "fleet", entity),
                  ElementsAreArray(times.begin(), times.end()))
          << entity << " round " << round;
    }
    EXPECT_THAT(InvariantViolations(*store, "fleet"), ::testing::IsEmpty());
  }
}

// The passes beside writers: entities keep being written while
// TrimHistories and ExpireEntities run; an entity written with a fresh fix
// is never expired, and once writers stop, one pass leaves each entity its
// newest max_points fixes with every invariant holding.
TEST(RetentionTest, PassesBesideWritersKeepTheInvariants) {
  auto store = OpenStore(NewDataDir());
  const int64_t now = SystemNowMs();
  constexpr int kWriters = 3, kEntities = 8, kFixes = 150, kKept = 5;
  ASSERT_TRUE(store->retention().Set("fleet", {kDayMs, true, kKept}).ok());
  // Stale entities, to be expired while the writers run.
  for (int e = 0; e < 20; ++e) {
    ASSERT_TRUE(store
                    ->AddPoints("fleet", {Point(absl::StrCat("stale", e),
                                                now - 3 * kDayMs, 1, 2)})
                    .ok());
  }
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kFixes; ++i) {
        for (int e = 0; e < kEntities; ++e) {
          const std::string id = absl::StrCat("w", w, "e", e);
          EXPECT_TRUE(
              store->AddPoints("fleet", {Point(id, now - kFixes + i, 1, 2)})
                  .ok());
        }
      }
    });
  }
  std::thread passes([&] {
    while (!done.load()) {
      EXPECT_TRUE(store->retention().TrimHistories().ok());
      EXPECT_TRUE(store->retention().ExpireEntities(SystemNowMs()).ok());
    }
  });
  for (std::thread& t : threads) t.join();
  done = true;
  passes.join();
  ASSERT_TRUE(store->retention().TrimHistories().ok());
  ASSERT_TRUE(store->retention().ExpireEntities(SystemNowMs()).ok());
  EXPECT_EQ(*store->CollectionSize("fleet"), kWriters * kEntities);
  for (int w = 0; w < kWriters; ++w) {
    for (int e = 0; e < kEntities; ++e) {
      const std::string id = absl::StrCat("w", w, "e", e);
      std::vector<int64_t> newest;
      for (int i = kFixes - kKept; i < kFixes; ++i) {
        newest.push_back(now - kFixes + i);
      }
      EXPECT_THAT(RawTimes(*store, "fleet", id), ElementsAreArray(newest))
          << id;
    }
  }
  EXPECT_THAT(InvariantViolations(*store, "fleet"), ::testing::IsEmpty());
  EXPECT_EQ(store->retention().counters().entities_expired, 20u);
}

}  // namespace
}  // namespace trackdb::storage
