#include <atomic>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/perf_context.h"
#include "rocksdb/perf_level.h"
#include "storage/engine/engine.h"
#include "storage/format/kv_codec.h"
#include "storage/store_test_util.h"
#include "storage/strings/string_cache.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::Eq;
using testing::NewDataDir;
using testing::OpenStore;
using ::testing::Optional;

constexpr int64_t kNow = 1'700'000'000'000;

absl::Status Set(TrackStore& store, const std::string& name, std::string value,
                 int64_t expire_at_ms = 0) {
  return store.UpdateStrings({name}, kNow, [&](auto* values) {
    (*values)[0] = StringValue{value, expire_at_ms};
    return absl::OkStatus();
  });
}

absl::Status Delete(TrackStore& store, const std::string& name) {
  return store.UpdateStrings({name}, kNow, [](auto* values) {
    (*values)[0].reset();
    return absl::OkStatus();
  });
}

TEST(KvOpsTest, SetGetDeleteBinarySafe) {
  auto store = OpenStore(NewDataDir());
  const std::string name("k\0\xff", 3);
  const std::string value("v\0\n", 3);
  ASSERT_TRUE(Set(*store, name, value).ok());
  EXPECT_THAT(*store->GetString(name, kNow), Optional(StringValue{value, 0}));
  EXPECT_EQ(*store->GetString("other", kNow), std::nullopt);
  ASSERT_TRUE(Delete(*store, name).ok());
  EXPECT_EQ(*store->GetString(name, kNow), std::nullopt);
}

TEST(KvOpsTest, ExpiredValuesReadAsAbsentEverywhere) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(Set(*store, "a", "1", kNow + 1000).ok());
  ASSERT_TRUE(Set(*store, "b", "2").ok());
  EXPECT_TRUE(store->GetString("a", kNow + 999)->has_value());
  EXPECT_FALSE(store->GetString("a", kNow + 1000)->has_value());
  auto many = store->GetStrings({"a", "b"}, kNow + 1000);
  EXPECT_FALSE((*many)[0].has_value());
  EXPECT_TRUE((*many)[1].has_value());
  std::vector<std::string> names;
  ASSERT_TRUE(store
                  ->ScanStrings("", kNow + 1000,
                                [&](absl::string_view n, const StringValue&) {
                                  names.emplace_back(n);
                                  return true;
                                })
                  .ok());
  EXPECT_THAT(names, ElementsAre("b"));
  // An update sees an expired value as absent.
  ASSERT_TRUE(store
                  ->UpdateStrings({"a"}, kNow + 1000,
                                  [](auto* values) {
                                    EXPECT_FALSE((*values)[0].has_value());
                                    return absl::OkStatus();
                                  })
                  .ok());
}

TEST(KvOpsTest, CompactionDropsExpiredStrings) {
  auto store = OpenStore(NewDataDir());
  // Already expired by the real clock the compaction filter reads.
  ASSERT_TRUE(Set(*store, "gone", "x", 1).ok());
  ASSERT_TRUE(Set(*store, "kept", "y", 0).ok());
  ASSERT_TRUE(Set(*store, "later", "z", INT64_MAX).ok());
  ASSERT_TRUE(store->engine()
                  .db
                  ->CompactRange(rocksdb::CompactRangeOptions(),
                                 store->engine().kv(), nullptr, nullptr)
                  .ok());
  std::vector<std::string> raw;
  std::unique_ptr<rocksdb::Iterator> it(store->engine().db->NewIterator(
      rocksdb::ReadOptions(), store->engine().kv()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    raw.push_back(it->key().ToString());
  }
  EXPECT_THAT(raw, ElementsAre("kept", "later"));
}

TEST(KvOpsTest, FailedUpdateWritesNothing) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(Set(*store, "a", "1").ok());
  absl::Status s = store->UpdateStrings({"a", "b"}, kNow, [](auto* values) {
    (*values)[0] = StringValue{"changed", 0};
    (*values)[1] = StringValue{"new", 0};
    return absl::InvalidArgumentError("no");
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*store->GetString("a", kNow))->value, "1");
  EXPECT_FALSE(store->GetString("b", kNow)->has_value());
}

TEST(KvOpsTest, RepeatedNamesShareOneValueAndTheLastWriteWins) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(store
                  ->UpdateStrings({"a", "a"}, kNow,
                                  [](auto* values) {
                                    (*values)[0] = StringValue{"first", 0};
                                    (*values)[1] = StringValue{"second", 0};
                                    return absl::OkStatus();
                                  })
                  .ok());
  EXPECT_EQ((*store->GetString("a", kNow))->value, "second");
}

TEST(KvOpsTest, ConcurrentReadModifyWritesAreAtomic) {
  auto store = OpenStore(NewDataDir());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 250; ++i) {
        ASSERT_TRUE(
            store
                ->UpdateStrings(
                    {"counter"}, kNow,
                    [](auto* values) {
                      int64_t n = 0;
                      if ((*values)[0]) {
                        EXPECT_TRUE(absl::SimpleAtoi((*values)[0]->value, &n));
                      }
                      (*values)[0] = StringValue{absl::StrCat(n + 1), 0};
                      return absl::OkStatus();
                    })
                .ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ((*store->GetString("counter", kNow))->value, "1000");
}

TEST(KvOpsTest, StringCacheServesReadsAndFollowsEveryWrite) {
  auto store = OpenStore(NewDataDir());
  StringCache& cache = store->string_cache();
  ASSERT_TRUE(cache.enabled());
  ASSERT_TRUE(Set(*store, "k", "v1").ok());
  const uint64_t hits = cache.hits();
  EXPECT_THAT(*store->GetString("k", kNow), Optional(StringValue{"v1", 0}));
  EXPECT_EQ(cache.hits(), hits + 1);  // the write left it cached

  ASSERT_TRUE(Set(*store, "k", "v2", kNow + 10).ok());
  EXPECT_THAT(*store->GetString("k", kNow),
              Optional(StringValue{"v2", kNow + 10}));
  EXPECT_EQ(*store->GetString("k", kNow + 10), std::nullopt);  // expired
  ASSERT_TRUE(Delete(*store, "k").ok());
  EXPECT_EQ(*store->GetString("k", kNow), std::nullopt);
  EXPECT_EQ(cache.Lookup("k"), std::nullopt);
  EXPECT_THAT(testing::StringCacheViolations(*store), ::testing::IsEmpty());
}

// A name read and found missing is cached as absent, so the next read of it
// (a type check of a missing key) reads nothing; every write replaces that.
TEST(KvOpsTest, AMissingNameIsCachedAsAbsentUntilWritten) {
  auto store = OpenStore(NewDataDir());
  StringCache& cache = store->string_cache();
  EXPECT_EQ(*store->GetString("k", kNow), std::nullopt);
  EXPECT_THAT(cache.Find("k"), Optional(Eq(std::nullopt)));
  const uint64_t misses = cache.misses();
  EXPECT_EQ(*store->GetString("k", kNow), std::nullopt);
  EXPECT_EQ(cache.misses(), misses);
  ASSERT_TRUE(Set(*store, "k", "v").ok());
  EXPECT_THAT(*store->GetString("k", kNow), Optional(StringValue{"v", 0}));
  EXPECT_THAT(testing::StringCacheViolations(*store), ::testing::IsEmpty());
  ASSERT_TRUE(Delete(*store, "k").ok());
  EXPECT_THAT(cache.Find("k"), Optional(Eq(std::nullopt)));
  EXPECT_EQ(*store->GetString("k", kNow), std::nullopt);
  ASSERT_TRUE(Set(*store, "k", "again").ok());
  EXPECT_THAT(*store->GetString("k", kNow), Optional(StringValue{"again", 0}));
  EXPECT_THAT(testing::StringCacheViolations(*store), ::testing::IsEmpty());
}

TEST(KvOpsTest, ReadsFillTheStringCacheFromDisk) {
  const std::string dir = NewDataDir();
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(Set(*store, "a", "1").ok());
    ASSERT_TRUE(Set(*store, "b", "2").ok());
  }
  auto store = OpenStore(dir);  // a new store: nothing cached
  StringCache& cache = store->string_cache();
  EXPECT_EQ(cache.Lookup("a"), std::nullopt);
  auto both = store->GetStrings({"a", "b", "c"}, kNow);
  ASSERT_TRUE(both.ok());
  EXPECT_THAT(*both, ElementsAre(Optional(StringValue{"1", 0}),
                                 Optional(StringValue{"2", 0}), std::nullopt));
  EXPECT_THAT(cache.Lookup("a"), Optional(StringValue{"1", 0}));
  EXPECT_THAT(cache.Lookup("b"), Optional(StringValue{"2", 0}));
  EXPECT_THAT(testing::StringCacheViolations(*store), ::testing::IsEmpty());
}

// A read that missed the cache and fetched an older value must not put it
// back over a newer one written meanwhile (I5): a reader of a counter that
// only grows would then see it go back. The eraser keeps readers missing.
TEST(KvOpsTest, CacheFillsNeverRestoreAReplacedValue) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(Set(*store, "n", "0").ok());
  constexpr int kWrites = 10000;
  std::atomic<bool> done{false};
  std::atomic<int> written{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    for (int i = 1; i <= kWrites; ++i) {
      if (!Set(*store, "n", absl::StrCat(i)).ok()) break;
      written = i;
    }
    done = true;  // also after a failed write, so the others stop
  });
  threads.emplace_back([&] {
    while (!done) store->string_cache().Erase("n");
  });
  const uint64_t misses = store->string_cache().misses();
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      int64_t last = 0;
      while (!done) {
        auto v = store->GetString("n", kNow);
        ASSERT_TRUE(v.ok() && v->has_value());
        int64_t n = 0;
        ASSERT_TRUE(absl::SimpleAtoi((*v)->value, &n));
        ASSERT_GE(n, last) << "a read went back in time";
        last = n;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(written.load(), kWrites);
  EXPECT_GT(store->string_cache().misses(), misses);  // reads went to kv
  EXPECT_THAT(*store->GetString("n", kNow),
              Optional(StringValue{absl::StrCat(kWrites), 0}));
  EXPECT_THAT(testing::StringCacheViolations(*store), ::testing::IsEmpty());
}

TEST(KvOpsTest, StringCacheOffReadsTheStore) {
  v1::StorageConfig config;
  config.set_string_cache_max_value_bytes(0);
  auto store = TrackStore::Open(NewDataDir(), config);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_FALSE((*store)->string_cache().enabled());
  ASSERT_TRUE(Set(**store, "k", "v").ok());
  EXPECT_THAT(*(*store)->GetString("k", kNow), Optional(StringValue{"v", 0}));
}

// A SET of a new key first looks it up: the memtable's bloom filter says
// "absent" without walking the skiplist.
TEST(KvOpsTest, AbsentNamesAreAnsweredByTheMemtableBloomFilter) {
  auto store = OpenStore(NewDataDir());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(Set(*store, absl::StrCat("k", i), "v").ok());
  }
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->Reset();
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(*store->GetString(absl::StrCat("absent", i), kNow), std::nullopt);
  }
  const uint64_t skipped =
      rocksdb::get_perf_context()->bloom_memtable_miss_count;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  EXPECT_GE(skipped, 90u);
}

// PutString's answer, or a failure.
bool Known(const absl::StatusOr<bool>& r) {
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() && *r;
}

TEST(KvOpsTest, PutStringWritesBlindlyAndSkipsAnUnchangedCachedValue) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(Set(*store, "old", "v", kNow + 1000).ok());
  store->string_cache().Erase("old");  // as if evicted
  // Not cached: written without reading, reported as not known before.
  EXPECT_EQ(Known(store->PutString("old", StringValue{"w", 0}, kNow)), false);
  EXPECT_THAT(*store->GetString("old", kNow), Optional(StringValue{"w", 0}));
  EXPECT_EQ(Known(store->PutString("new", StringValue{"x", 0}, kNow)), false);
  const rocksdb::SequenceNumber seq =
      store->engine().db->GetLatestSequenceNumber();
  EXPECT_EQ(Known(store->PutString("new", StringValue{"x", 0}, kNow)), true);
  EXPECT_EQ(store->engine().db->GetLatestSequenceNumber(),
            seq);  // not rewritten
  EXPECT_EQ(Known(store->PutString("new", StringValue{"y", 0}, kNow)), true);
  EXPECT_GT(store->engine().db->GetLatestSequenceNumber(), seq);
  EXPECT_THAT(*store->GetString("new", kNow), Optional(StringValue{"y", 0}));
  EXPECT_THAT(testing::StringCacheViolations(*store), ::testing::IsEmpty());
}

}  // namespace
}  // namespace trackdb::storage
