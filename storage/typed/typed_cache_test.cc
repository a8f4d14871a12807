#include "storage/typed/typed_cache.h"

#include <map>
#include <optional>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/cache.h"

namespace trackdb::storage {
namespace {

using ::testing::Eq;
using ::testing::Optional;

std::map<std::string, std::optional<std::string>> Entries(TypedCache& cache) {
  std::map<std::string, std::optional<std::string>> out;
  cache.ForEach(
      [&](absl::string_view key, const std::optional<std::string>& v) {
        out[std::string(key)] = v;
      });
  return out;
}

TEST(TypedCacheTest, CachesValuesAndAbsenceApartFromMisses) {
  TypedCache cache(rocksdb::NewLRUCache(1 << 20), 1024);
  const std::string key("k\0m", 3);
  std::optional<std::string> value = "stale";
  EXPECT_FALSE(cache.Lookup(key, &value));
  cache.Put(key, std::nullopt);  // known absent
  ASSERT_TRUE(cache.Lookup(key, &value));
  EXPECT_EQ(value, std::nullopt);
  cache.Put(key, std::string("v1"));
  ASSERT_TRUE(cache.Lookup(key, &value));
  EXPECT_THAT(value, Optional(Eq("v1")));
  EXPECT_FALSE(cache.Lookup("k", &value));  // a prefix is another key
  cache.Put(key, std::string());  // an empty value is not an absent one
  ASSERT_TRUE(cache.Lookup(key, &value));
  EXPECT_THAT(value, Optional(Eq("")));
  cache.Erase(key);
  EXPECT_FALSE(cache.Lookup(key, &value));
  EXPECT_EQ(cache.hits(), 3u);
  EXPECT_EQ(cache.misses(), 3u);
}

TEST(TypedCacheTest, TooLongValueIsNotCachedAndDropsTheOldEntry) {
  TypedCache cache(rocksdb::NewLRUCache(1 << 20), 4);
  std::optional<std::string> value;
  cache.Put("k", std::string("1234"));
  EXPECT_TRUE(cache.Lookup("k", &value));
  cache.Put("k", std::string("12345"));
  EXPECT_FALSE(cache.Lookup("k", &value));
}

TEST(TypedCacheTest, ZeroLimitTurnsItOff) {
  TypedCache cache(rocksdb::NewLRUCache(1 << 20), 0);
  EXPECT_FALSE(cache.enabled());
  std::optional<std::string> value;
  cache.Put("k", std::string("v"));
  EXPECT_FALSE(cache.Lookup("k", &value));
}

TEST(TypedCacheTest, InstancesSharingACacheAreSeparate) {
  std::shared_ptr<rocksdb::Cache> shared = rocksdb::NewLRUCache(1 << 20);
  TypedCache a(shared, 1024), b(shared, 1024);
  a.Put("k", std::string("from a"));
  b.Put("k", std::nullopt);
  std::optional<std::string> value;
  ASSERT_TRUE(a.Lookup("k", &value));
  EXPECT_THAT(value, Optional(Eq("from a")));
  ASSERT_TRUE(b.Lookup("k", &value));
  EXPECT_EQ(value, std::nullopt);
  b.Erase("k");
  EXPECT_TRUE(a.Lookup("k", &value));
  EXPECT_EQ(Entries(a).size(), 1u);
  EXPECT_TRUE(Entries(b).empty());
}

TEST(TypedCacheTest, RepeatedReadsComeFromTheThreadsCopy) {
  TypedCache cache(rocksdb::NewLRUCache(1 << 20), 1024);
  std::optional<std::string> value;
  EXPECT_FALSE(cache.LookupForRead("k", &value));  // nothing to copy
  cache.Put("k", std::string("v1"));
  ASSERT_TRUE(cache.LookupForRead("k", &value));  // shared hit, copied
  ASSERT_TRUE(cache.LookupForRead("k", &value));  // no shared lookup
  EXPECT_THAT(value, Optional(Eq("v1")));
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(cache.front().EntriesOnThisThread(), 1u);
}

TEST(TypedCacheTest, PutsAndErasesOutdateTheThreadsCopies) {
  TypedCache cache(rocksdb::NewLRUCache(1 << 20), 4);
  std::optional<std::string> value;
  cache.Put("k", std::string("v1"));
  ASSERT_TRUE(cache.LookupForRead("k", &value));
  std::thread writer([&] { cache.Put("k", std::string("v2")); });
  writer.join();
  ASSERT_TRUE(cache.LookupForRead("k", &value));
  EXPECT_THAT(value, Optional(Eq("v2")));
  ASSERT_TRUE(cache.LookupForRead("k", &value));  // copied again
  cache.Put("k", std::string("too long"));        // not cached: the entry goes
  EXPECT_FALSE(cache.LookupForRead("k", &value));
  cache.Put("k", std::nullopt);
  ASSERT_TRUE(cache.LookupForRead("k", &value));
  EXPECT_EQ(value, std::nullopt);
  cache.Erase("k");
  EXPECT_FALSE(cache.LookupForRead("k", &value));
  EXPECT_FALSE(cache.Lookup("k", &value));
}

TEST(TypedCacheTest, PlainLookupsLeaveNoCopy) {
  TypedCache cache(rocksdb::NewLRUCache(1 << 20), 1024);
  std::optional<std::string> value;
  cache.Put("k", std::string("v"));
  ASSERT_TRUE(cache.Lookup("k", &value));
  EXPECT_EQ(cache.front().EntriesOnThisThread(), 0u);
}

}  // namespace
}  // namespace trackdb::storage
