#include "storage/memory/generational_cache.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/cache.h"

namespace trackdb::storage {
namespace {

using Cache = GenerationalCache<std::optional<std::string>>;
using ::testing::Eq;
using ::testing::Optional;

// An entry of `value_bytes` charges this much.
size_t EntryBytes(absl::string_view key, size_t value_bytes) {
  return key.size() + value_bytes + Cache::kEntryOverhead;
}

TEST(GenerationalCacheTest, LooksUpInsertsReplacesAndErases) {
  Cache cache(1 << 20, nullptr, "t");
  std::optional<std::string> value;
  EXPECT_FALSE(cache.Lookup("k", &value));
  cache.Insert("k", "v1", 2);
  ASSERT_TRUE(cache.Lookup("k", &value));
  EXPECT_THAT(value, Optional(Eq("v1")));
  cache.Insert("k", std::nullopt, 0);  // absence is a value too
  ASSERT_TRUE(cache.Lookup("k", &value));
  EXPECT_EQ(value, std::nullopt);
  EXPECT_EQ(cache.bytes(), EntryBytes("k", 0));
  cache.Erase("k");
  EXPECT_FALSE(cache.Lookup("k", &value));
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_EQ(cache.hits(), 2u);
  EXPECT_EQ(cache.misses(), 2u);
}

TEST(GenerationalCacheTest, ZeroBytesTurnsItOff) {
  Cache cache(0, nullptr, "t");
  EXPECT_FALSE(cache.enabled());
  cache.Insert("k", "v", 1);
  std::optional<std::string> value;
  EXPECT_FALSE(cache.Lookup("k", &value));
  EXPECT_EQ(cache.bytes(), 0u);
}

TEST(GenerationalCacheTest, StaysWithinItsBytesAndChargesTheBlockCache) {
  std::shared_ptr<rocksdb::Cache> block_cache = rocksdb::NewLRUCache(64 << 20);
  constexpr size_t kMax = 4 << 20;
  Cache cache(kMax, block_cache, "t");
  const std::string value(100, 'x');
  size_t peak = 0;
  for (int i = 0; i < 200000; ++i) {  // ~50 MB of entries
    cache.Insert(absl::StrCat("member:", i), value, value.size());
    peak = std::max(peak, cache.bytes());
  }
  // Each shard holds at most its share, plus the entry that passed it.
  EXPECT_LE(peak, kMax + Cache::kShards * EntryBytes("member:199999", 100));
  EXPECT_GT(cache.bytes(), kMax / 4);  // it keeps a good part of it
  // The block cache is charged what is held, in whole steps, at most two
  // steps more.
  EXPECT_GE(cache.charged(), static_cast<int64_t>(cache.bytes()));
  EXPECT_LE(cache.charged(),
            static_cast<int64_t>(cache.bytes()) + 2 * CacheReservation::kStep);
  EXPECT_GE(block_cache->GetUsage(), static_cast<size_t>(cache.charged()));
  // The newest entries are there, the oldest gone.
  std::optional<std::string> found;
  EXPECT_TRUE(cache.Lookup("member:199999", &found));
  EXPECT_FALSE(cache.Lookup("member:0", &found));
}

TEST(GenerationalCacheTest, ASizeGoingBackAndForthKeepsItsCharge) {
  std::shared_ptr<rocksdb::Cache> block_cache = rocksdb::NewLRUCache(64 << 20);
  Cache cache(32 << 20, block_cache, "t");
  const std::string value(1000, 'x');
  int i = 0;
  // Just past a step.
  while (cache.charged() < 2 * CacheReservation::kStep) {
    cache.Insert(absl::StrCat("k", i++), value, value.size());
  }
  const int64_t charged = cache.charged();
  // Back under it and past it again, many times: the charge stays.
  const std::string last = absl::StrCat("k", i - 1);
  for (int round = 0; round < 100; ++round) {
    cache.Erase(last);
    cache.Erase(absl::StrCat("k", i - 2));
    cache.Insert(absl::StrCat("k", i - 2), value, value.size());
    cache.Insert(last, value, value.size());
    ASSERT_EQ(cache.charged(), charged) << "round " << round;
  }
  // Emptied, it gives all but the slack back.
  for (int k = 0; k < i; ++k) cache.Erase(absl::StrCat("k", k));
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_LE(cache.charged(), 2 * CacheReservation::kStep);
}

TEST(GenerationalCacheTest, WhatIsReadOutlivesWhatIsNot) {
  // One shard's worth of bytes per shard: kShards x 8 KiB.
  constexpr size_t kMax = Cache::kShards * 8192;
  Cache cache(kMax, nullptr, "t");
  const std::string value(50, 'x');
  constexpr int kKept = 20;
  for (int i = 0; i < kKept; ++i) {
    cache.Insert(absl::StrCat("kept:", i), value, value.size());
  }
  std::optional<std::string> found;
  // Many times the cache's bytes go through it; the kept keys are read
  // meanwhile, the others never.
  for (int i = 0; i < 40000; ++i) {
    cache.Insert(absl::StrCat("passing:", i), value, value.size());
    if (i % 100 == 0) {
      for (int k = 0; k < kKept; ++k) {
        ASSERT_TRUE(cache.Lookup(absl::StrCat("kept:", k), &found))
            << "kept:" << k << " gone after " << i << " inserts";
      }
    }
  }
  EXPECT_FALSE(cache.Lookup("passing:0", &found));
}

TEST(GenerationalCacheTest, ForEachSeesEveryEntryOfBothGenerations) {
  Cache cache(Cache::kShards * 4096, nullptr, "t");
  for (int i = 0; i < 100; ++i) cache.Insert(absl::StrCat("k", i), "v", 1);
  size_t seen = 0;
  cache.ForEach(
      [&](absl::string_view key, const std::optional<std::string>& v) {
        ++seen;
        EXPECT_THAT(v, Optional(Eq("v"))) << key;
      });
  EXPECT_EQ(seen, 100u);
}

TEST(GenerationalCacheTest, AReplacedEntryIsChargedItsNewSizeOnce) {
  Cache cache(1 << 20, nullptr, "t");
  cache.Insert("k", std::string(100, 'a'), 100);
  cache.Insert("k", "b", 1);  // smaller, in the young map
  EXPECT_EQ(cache.bytes(), EntryBytes("k", 1));
  cache.Insert("k", std::string(300, 'c'), 300);  // larger
  EXPECT_EQ(cache.bytes(), EntryBytes("k", 300));
  std::optional<std::string> value;
  ASSERT_TRUE(cache.Lookup("k", &value));
  EXPECT_THAT(value, Optional(Eq(std::string(300, 'c'))));
}

TEST(GenerationalCacheTest, ReplacementsAcrossGenerationsAgreeOnTheBytes) {
  // Small shards, so that keys age into the old map and are dropped while
  // they are replaced with values of other sizes.
  Cache cache(Cache::kShards * 4096, nullptr, "t");
  for (int i = 0; i < 30000; ++i) {
    const std::string key = absl::StrCat("k", (i * 7919) % 997);
    const size_t size = (i * 31) % 200;
    cache.Insert(key, std::string(size, 'v'), size);
  }
  size_t summed = 0;
  cache.ForEach(
      [&](absl::string_view key, const std::optional<std::string>& v) {
        ASSERT_TRUE(v.has_value());
        summed += EntryBytes(key, v->size());
      });
  EXPECT_GT(summed, 0u);
  EXPECT_EQ(cache.bytes(), summed);
}

TEST(GenerationalCacheTest, ThreadsInsertingAndReadingAgreeOnTheBytes) {
  Cache cache(Cache::kShards * 16384, nullptr, "t");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      std::optional<std::string> v;
      for (int i = 0; i < 20000; ++i) {
        const std::string key = absl::StrCat("k", (i * 7 + t) % 3000);
        if (i % 3 == 0) {
          cache.Erase(key);
        } else if (i % 3 == 1) {
          cache.Insert(key, absl::StrCat(t), 1);
        } else {
          cache.Lookup(key, &v);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  size_t summed = 0;
  cache.ForEach([&](absl::string_view key, const std::optional<std::string>&) {
    summed += EntryBytes(key, 1);
  });
  EXPECT_EQ(cache.bytes(), summed);
}

}  // namespace
}  // namespace trackdb::storage
