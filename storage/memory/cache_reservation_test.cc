#include "storage/memory/cache_reservation.h"

#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(CacheReservationTest, ChargeFollowsTheSizeInWholeSteps) {
  auto cache = rocksdb::NewLRUCache(64 * kMiB);
  {
    CacheReservation r(cache, "index");
    r.Set(10 * kMiB);
    EXPECT_EQ(r.charged(), 10 * kMiB);
    EXPECT_GE(cache->GetUsage(), static_cast<size_t>(10 * kMiB));
    EXPECT_LT(cache->GetUsage(), static_cast<size_t>(11 * kMiB));
    r.Set(10 * kMiB + 1000);  // rounded up to the next step
    EXPECT_EQ(r.charged(), 11 * kMiB);
    r.Set(30 * kMiB);
    EXPECT_GE(cache->GetUsage(), static_cast<size_t>(30 * kMiB));
    EXPECT_LT(cache->GetUsage(), static_cast<size_t>(31 * kMiB));
    r.Set(0);
    EXPECT_EQ(r.charged(), 0);
    EXPECT_LT(cache->GetUsage(), static_cast<size_t>(kMiB));
    r.Set(5 * kMiB);
  }
  // Destroyed: the charge is gone.
  EXPECT_LT(cache->GetUsage(), static_cast<size_t>(kMiB));
}

// Blocks in every shard make room: the charge is spread over the shards.
TEST(CacheReservationTest, EvictsOtherEntriesToStayInCapacity) {
  auto cache = rocksdb::NewLRUCache(16 * kMiB, /*num_shard_bits=*/2);
  static char value;
  for (int i = 0; i < 4000; ++i) {  // 16 MiB of 4 KiB blocks
    ASSERT_TRUE(cache
                    ->Insert("block" + std::to_string(i), &value, 4096,
                             [](const rocksdb::Slice&, void*) {})
                    .ok());
  }
  CacheReservation r(cache, "index");
  r.Set(10 * kMiB);
  EXPECT_EQ(r.charged(), 10 * kMiB);
  // Within capacity plus at most one step of slack per shard.
  EXPECT_LE(cache->GetUsage(), static_cast<size_t>(16 * kMiB + 4 * kMiB));
  int left = 0;
  for (int i = 0; i < 4000; ++i) {
    rocksdb::Cache::Handle* h = cache->Lookup("block" + std::to_string(i));
    if (h != nullptr) {
      ++left;
      cache->Release(h);
    }
  }
  EXPECT_LT(left, 4000 * 7 / 16);  // about 6 of the 16 MiB are left
}

TEST(CacheReservationTest, NullCacheChargesNothing) {
  CacheReservation r(nullptr, "index");
  r.Set(10 * kMiB);
  EXPECT_EQ(r.charged(), 0);
}

}  // namespace
}  // namespace trackdb::storage
