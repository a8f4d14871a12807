#include "storage/points/latest_feed.h"

#include <thread>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/points/latest_index.h"

namespace trackdb::storage {
namespace {

using Kind = LatestFeed::Update::Kind;

LatestIndex::Change Set(const std::string& collection,
                        const std::string& entity, double lat) {
  return {LatestIndex::Change::Kind::kSet, collection, entity, {1, lat, 2.0},
          ""};
}

absl::Time Now() { return absl::Now(); }

TEST(LatestFeedTest, RecordsNothingWhileNobodyWatches) {
  LatestIndex index;
  index.Apply({Set("c", "a", 1)});
  EXPECT_FALSE(index.feed().watched());
  LatestFeed::Watch watch = index.feed().StartWatch("c");
  EXPECT_EQ(watch.from(), 1u);  // the change before the watch has no seq
  index.Apply({Set("c", "b", 2)});
  LatestFeed::Batch batch = index.feed().Read("c", watch.from(), 10, Now());
  ASSERT_EQ(batch.updates.size(), 1u);
  EXPECT_EQ(batch.updates[0].entity, "b");
  EXPECT_DOUBLE_EQ(batch.updates[0].position.lat, 2);
  EXPECT_EQ(batch.next, 2u);
}

TEST(LatestFeedTest, OnlyTheCollectionAskedInOrderWithErasesAndResets) {
  LatestIndex index;
  LatestFeed::Watch watch = index.feed().StartWatch("c");
  index.Apply({Set("c", "a", 1), Set("other", "x", 1), Set("c", "a", 3)});
  index.Apply({{LatestIndex::Change::Kind::kErase, "c", "a", {}, ""}});
  index.Apply({{LatestIndex::Change::Kind::kDropCollection, "c", "", {}, ""}});
  LatestFeed::Batch batch = index.feed().Read("c", watch.from(), 10, Now());
  ASSERT_EQ(batch.updates.size(), 4u);
  EXPECT_EQ(batch.updates[0].kind, Kind::kSet);
  EXPECT_DOUBLE_EQ(batch.updates[1].position.lat, 3);
  EXPECT_EQ(batch.updates[2].kind, Kind::kErase);
  EXPECT_EQ(batch.updates[3].kind, Kind::kReset);
  EXPECT_EQ(batch.next, 5u);  // "other" is not watched: not recorded
  // Read on from there: nothing new.
  EXPECT_TRUE(index.feed().Read("c", batch.next, 10, Now()).updates.empty());
}

TEST(LatestFeedTest, OnlyWatchedCollectionsAreRecordedWithinTheirBytes) {
  LatestIndex index;
  LatestFeed::Watch watch = index.feed().StartWatch("c");
  const uint64_t from = index.feed().next_seq();
  index.Apply({Set("other", "x", 1)});
  EXPECT_EQ(index.feed().next_seq(), from);
  // Ids of 1,000 bytes: kMaxBytes holds about 16k of them, not kCapacity.
  const std::string big(1000, 'e');
  for (int i = 0; i < 20000; ++i) {
    index.Apply({Set("c", big + std::to_string(i % 10), 1)});
  }
  LatestFeed::Batch batch = index.feed().Read("c", watch.from(), 10, Now());
  EXPECT_TRUE(batch.lost);  // the oldest went for room
}

TEST(LatestFeedTest, AtMostMaxAndNextResumes) {
  LatestIndex index;
  LatestFeed::Watch watch = index.feed().StartWatch("c");
  for (int i = 0; i < 5; ++i) index.Apply({Set("c", "e" + std::to_string(i), i)});
  LatestFeed::Batch first = index.feed().Read("c", watch.from(), 3, Now());
  ASSERT_EQ(first.updates.size(), 3u);
  LatestFeed::Batch rest = index.feed().Read("c", first.next, 10, Now());
  ASSERT_EQ(rest.updates.size(), 2u);
  EXPECT_EQ(rest.updates[0].entity, "e3");
}

TEST(LatestFeedTest, AWatcherTooFarBehindIsToldItLostChanges) {
  LatestIndex index;
  LatestFeed::Watch watch = index.feed().StartWatch("c");
  for (size_t i = 0; i < LatestFeed::kCapacity + 1; ++i) {
    index.Apply({Set("c", "e", 1)});
  }
  LatestFeed::Batch batch = index.feed().Read("c", watch.from(), 10, Now());
  EXPECT_TRUE(batch.lost);
  EXPECT_TRUE(batch.updates.empty());
  EXPECT_EQ(batch.next, LatestFeed::kCapacity + 2);
  // From the newest it reads on.
  index.Apply({Set("c", "f", 1)});
  batch = index.feed().Read("c", batch.next, 10, Now());
  EXPECT_FALSE(batch.lost);
  ASSERT_EQ(batch.updates.size(), 1u);
  EXPECT_EQ(batch.updates[0].entity, "f");
}

TEST(LatestFeedTest, ReadWaitsForAChangeUntilItsDeadline) {
  LatestIndex index;
  LatestFeed::Watch watch = index.feed().StartWatch("c");
  const absl::Time start = Now();
  EXPECT_TRUE(index.feed()
                  .Read("c", watch.from(), 10, start + absl::Milliseconds(50))
                  .updates.empty());
  EXPECT_GE(Now() - start, absl::Milliseconds(45));
  std::thread writer([&index] {
    absl::SleepFor(absl::Milliseconds(20));
    index.Apply({Set("c", "a", 1)});
  });
  LatestFeed::Batch batch =
      index.feed().Read("c", watch.from(), 10, Now() + absl::Seconds(10));
  writer.join();
  ASSERT_EQ(batch.updates.size(), 1u);
}

TEST(LatestFeedTest, TheLastWatcherGoneStopsRecording) {
  LatestIndex index;
  uint64_t next;
  {
    LatestFeed::Watch watch = index.feed().StartWatch("c");
    index.Apply({Set("c", "a", 1)});
    next = index.feed().next_seq();
  }
  EXPECT_FALSE(index.feed().watched());
  index.Apply({Set("c", "b", 1)});
  EXPECT_EQ(index.feed().next_seq(), next);
}

}  // namespace
}  // namespace trackdb::storage
