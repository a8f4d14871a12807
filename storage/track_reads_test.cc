#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;

class TrackReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(NewDataDir());
    std::vector<model::TrackPoint> batch;
    for (int t = 0; t < 250; ++t) batch.push_back(Point("car", t * 10, 1, 1));
    batch.push_back(Point("car1", 5, 2, 2));  // a neighbour in key space
    ASSERT_TRUE(store_->AddPoints("fleet", batch).ok());
  }

  // Pages through the whole query, returning every time seen.
  std::vector<int64_t> AllPages(TrackQuery q, int* pages) {
    std::vector<int64_t> times;
    *pages = 0;
    do {
      auto page = store_->GetTrack(q);
      EXPECT_TRUE(page.ok()) << page.status();
      if (!page.ok()) break;
      ++*pages;
      for (const auto& p : page->points) {
        EXPECT_EQ(p.entity, q.entity);
        times.push_back(p.loc_time_ms);
      }
      q.page_token = page->next_page_token;
    } while (!q.page_token.empty());
    return times;
  }

  std::unique_ptr<TrackStore> store_;
};

TEST_F(TrackReadsTest, PagesAscendingThroughARange) {
  TrackQuery q{"fleet", "car"};
  q.start_ms = 100;
  q.end_ms = 1000;
  q.limit = 7;
  int pages;
  const auto times = AllPages(q, &pages);
  ASSERT_EQ(times.size(), 91u);  // 100, 110, ..., 1000
  EXPECT_EQ(times.front(), 100);
  EXPECT_EQ(times.back(), 1000);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
  EXPECT_EQ(pages, 13);
}

TEST_F(TrackReadsTest, PagesDescending) {
  TrackQuery q{"fleet", "car"};
  q.limit = 100;
  q.descending = true;
  int pages;
  const auto times = AllPages(q, &pages);
  ASSERT_EQ(times.size(), 250u);
  EXPECT_EQ(times.front(), 2490);
  EXPECT_EQ(times.back(), 0);
  EXPECT_TRUE(std::is_sorted(times.rbegin(), times.rend()));
  EXPECT_EQ(pages, 3);
}

TEST_F(TrackReadsTest, ExactPageSizeEndsWithoutAnEmptyPage) {
  TrackQuery q{"fleet", "car"};
  q.limit = 250;
  auto page = store_->GetTrack(q);
  EXPECT_EQ(page->points.size(), 250u);
  EXPECT_TRUE(page->next_page_token.empty());
}

TEST_F(TrackReadsTest, RangeEdgesAreInclusiveAndNeighboursExcluded) {
  TrackQuery q{"fleet", "car1"};
  q.start_ms = 5;
  q.end_ms = 5;
  auto page = store_->GetTrack(q);
  ASSERT_EQ(page->points.size(), 1u);
  EXPECT_EQ(page->points[0].loc_time_ms, 5);
  q.entity = "ca";
  q.start_ms = INT64_MIN;
  q.end_ms = INT64_MAX;
  EXPECT_TRUE(store_->GetTrack(q)->points.empty());
}

TEST_F(TrackReadsTest, BadQueriesAreInvalidArgument) {
  TrackQuery q{"fleet", "car"};
  q.limit = 0;
  EXPECT_THAT(store_->GetTrack(q).status().message(), HasSubstr("limit"));
  q.limit = 10;
  q.start_ms = 10;
  q.end_ms = 5;
  EXPECT_THAT(store_->GetTrack(q).status().message(), HasSubstr("start time"));
  q.end_ms = 50;
  q.page_token = "garbage";
  EXPECT_THAT(store_->GetTrack(q).status().message(), HasSubstr("page_token"));
  q.page_token = "99999";  // outside the range
  EXPECT_EQ(store_->GetTrack(q).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(TrackReadsTest, GetLatestForManyEntities) {
  auto latest = store_->GetLatest(
      "fleet", std::vector<std::string>{"car1", "ghost", "car"});
  ASSERT_TRUE(latest.ok());
  ASSERT_EQ(latest->size(), 3u);
  EXPECT_EQ((*latest)[0]->loc_time_ms, 5);
  EXPECT_EQ((*latest)[0]->entity, "car1");
  EXPECT_FALSE((*latest)[1].has_value());
  EXPECT_EQ((*latest)[2]->loc_time_ms, 2490);
}

TEST_F(TrackReadsTest, UnknownCollectionReadsAsEmpty) {
  EXPECT_FALSE(store_->GetLatest("nope", "car")->has_value());
  TrackQuery q{"nope", "car"};
  EXPECT_TRUE(store_->GetTrack(q)->points.empty());
}

}  // namespace
}  // namespace trackdb::storage
