#include "storage/strings/string_cache.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rocksdb/cache.h"

namespace trackdb::storage {
namespace {

using ::testing::Eq;
using ::testing::Optional;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

std::map<std::string, std::string> Entries(StringCache& cache) {
  std::map<std::string, std::string> out;
  cache.ForEach(
      [&](absl::string_view name, const std::optional<StringValue>& v) {
        out[std::string(name)] = v ? v->value : "(absent)";
      });
  return out;
}

TEST(StringCacheTest, PutLookupEraseWithExpiryAndBinaryNames) {
  StringCache cache(rocksdb::NewLRUCache(1 << 20), 1024);
  const std::string name("a\0b", 3);
  EXPECT_EQ(cache.Lookup(name), std::nullopt);
  cache.Put(name, StringValue{"v1", 42});
  EXPECT_THAT(cache.Lookup(name), Optional(Eq(StringValue{"v1", 42})));
  EXPECT_EQ(cache.Lookup("a"), std::nullopt);  // a prefix is another name
  cache.Put(name, StringValue{"v2", 0});
  EXPECT_THAT(cache.Lookup(name), Optional(Eq(StringValue{"v2", 0})));
  cache.Erase(name);
  EXPECT_EQ(cache.Lookup(name), std::nullopt);
  EXPECT_EQ(cache.hits(), 2u);
  EXPECT_EQ(cache.misses(), 3u);
}

TEST(StringCacheTest, AbsenceIsCachedAndAValueReplacesIt) {
  StringCache cache(rocksdb::NewLRUCache(1 << 20), 1024);
  EXPECT_EQ(cache.Find("k"), std::nullopt);
  cache.PutAbsent("k");
  EXPECT_THAT(cache.Find("k"), Optional(Eq(std::nullopt)));
  EXPECT_EQ(cache.Lookup("k"), std::nullopt);  // no value to give
  EXPECT_THAT(Entries(cache), UnorderedElementsAre(Pair("k", "(absent)")));
  cache.Put("k", StringValue{"v", 0});
  EXPECT_THAT(cache.Find("k"), Optional(Optional(Eq(StringValue{"v", 0}))));
  cache.PutAbsent("k");
  EXPECT_THAT(cache.Find("k"), Optional(Eq(std::nullopt)));
  cache.Erase("k");
  EXPECT_EQ(cache.Find("k"), std::nullopt);
}

TEST(StringCacheTest, EmptyNameAndValueAreCached) {
  StringCache cache(rocksdb::NewLRUCache(1 << 20), 1024);
  cache.Put("", StringValue{"", 0});
  EXPECT_THAT(cache.Lookup(""), Optional(Eq(StringValue{"", 0})));
}

TEST(StringCacheTest, TooLongValueIsNotCachedAndDropsTheOldEntry) {
  StringCache cache(rocksdb::NewLRUCache(1 << 20), 4);
  cache.Put("k", StringValue{"1234", 0});
  EXPECT_TRUE(cache.Lookup("k").has_value());
  cache.Put("k", StringValue{"12345", 0});
  EXPECT_EQ(cache.Lookup("k"), std::nullopt);
}

TEST(StringCacheTest, InstancesSharingACacheAreSeparate) {
  std::shared_ptr<rocksdb::Cache> shared = rocksdb::NewLRUCache(1 << 20);
  StringCache a(shared, 1024), b(shared, 1024);
  a.Put("k", StringValue{"from a", 0});
  b.Put("k", StringValue{"from b", 0});
  EXPECT_THAT(a.Lookup("k"), Optional(Eq(StringValue{"from a", 0})));
  EXPECT_THAT(b.Lookup("k"), Optional(Eq(StringValue{"from b", 0})));
  b.Erase("k");
  EXPECT_TRUE(a.Lookup("k").has_value());
  EXPECT_THAT(Entries(a),
              UnorderedElementsAre(
                  std::pair<const std::string, std::string>("k", "from a")));
  EXPECT_TRUE(Entries(b).empty());
}

// The invariant checker reads the DB, which looks up blocks in the same
// cache, from inside ForEach; before the walk copied its entries, that took
// the walked shard's mutex twice and hung (a CI timeout).
TEST(StringCacheTest, ForEachVisitorMayUseTheCache) {
  StringCache cache(rocksdb::NewLRUCache(1 << 20), 1024);
  cache.Put("a", StringValue{"1", 0});
  cache.Put("b", StringValue{"2", 0});
  std::map<std::string, std::string> seen;
  cache.ForEach([&](absl::string_view name, const std::optional<StringValue>&) {
    std::optional<StringValue> v = cache.Lookup(name);  // same shard
    cache.Erase(name);
    seen[std::string(name)] = v ? v->value : "(missing)";
  });
  EXPECT_EQ(seen, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  EXPECT_TRUE(Entries(cache).empty());
}

TEST(StringCacheTest, EntriesAreChargedToTheCacheAndEvicted) {
  std::shared_ptr<rocksdb::Cache> lru =
      rocksdb::NewLRUCache(64 << 10, /*num_shard_bits=*/0);
  StringCache cache(lru, 1 << 20);
  cache.Put("big", StringValue{std::string(10000, 'x'), 0});
  EXPECT_GE(lru->GetUsage(), 10000u);
  // Ten times the capacity: the oldest entries make room.
  for (int i = 0; i < 64; ++i) {
    cache.Put("k" + std::to_string(i), StringValue{std::string(10000, 'y'), 0});
  }
  EXPECT_LE(lru->GetUsage(), 64u << 10);
  EXPECT_EQ(cache.Lookup("big"), std::nullopt);
  EXPECT_TRUE(cache.Lookup("k63").has_value());
}

TEST(StringCacheTest, OffCachesNothing) {
  StringCache no_cache(nullptr, 1024);
  StringCache zero_limit(rocksdb::NewLRUCache(1 << 20), 0);
  for (StringCache* c : {&no_cache, &zero_limit}) {
    EXPECT_FALSE(c->enabled());
    c->Put("k", StringValue{"v", 0});
    EXPECT_EQ(c->Lookup("k"), std::nullopt);
    EXPECT_TRUE(Entries(*c).empty());
  }
}

}  // namespace
}  // namespace trackdb::storage
