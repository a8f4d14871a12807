#include "storage/format/keys.h"

#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

TEST(KeysTest, PointKeysSortByTimeIncludingNegative) {
  const int64_t times[] = {INT64_MIN, -5000,         -1,       0,
                           1,         1700000000000, INT64_MAX};
  for (size_t i = 1; i < std::size(times); ++i) {
    EXPECT_LT(PointKey("c", "e", times[i - 1]), PointKey("c", "e", times[i]));
  }
  for (int64_t t : times) EXPECT_EQ(PointKeyTime(PointKey("c", "e", t)), t);
}

TEST(KeysTest, EntityHistoriesDoNotInterleave) {
  // "e" and "e1": with a length prefix, every key of "e" sorts together.
  const std::string e_first = PointKey("c", "e", INT64_MIN);
  const std::string e_last = PointKey("c", "e", INT64_MAX);
  const std::string e1 = PointKey("c", "e1", 0);
  EXPECT_TRUE(e1 < e_first || e1 > e_last);
  EXPECT_EQ(e_first.substr(0, EntityPointsPrefix("c", "e").size()),
            EntityPointsPrefix("c", "e"));
}

TEST(KeysTest, CollectionPrefixesAreNotPrefixesOfEachOther) {
  const std::string a = CollectionPrefix("a");
  const std::string ab = CollectionPrefix("ab");
  EXPECT_NE(ab.substr(0, a.size()), a);
  EXPECT_NE(LatestKey("ab", "x").substr(0, a.size()), a);
}

TEST(KeysTest, LatestKeysRoundTrip) {
  const std::string long_name(200, 'n');  // a two-byte varint length
  for (const auto& [c, e] :
       {std::pair<std::string, std::string>{"fleet", "car-1"},
        {"", std::string("e\0x", 3)},
        {long_name, ""}}) {
    const std::string key = LatestKey(c, e);
    auto parts = ParseLatestKey(key);
    ASSERT_TRUE(parts);
    EXPECT_EQ(parts->collection, c);
    EXPECT_EQ(parts->entity, e);
  }
  // A length of 5 with 2 bytes after it. Not "\x05ab": a hex escape takes
  // every hex digit after it (a 2-byte literal the string read past, found
  // by --config=asan).
  const std::string short_key = std::string(1, '\x05') + "ab";
  EXPECT_FALSE(ParseLatestKey(short_key));
  EXPECT_FALSE(ParseLatestKey(std::string("\x80", 1)));  // bad varint
}

TEST(KeysTest, Varint32RoundTrips) {
  for (uint32_t v : {0u, 1u, 127u, 128u, 300u, 65535u, 0xffffffffu}) {
    std::string s;
    AppendVarint32(&s, v);
    absl::string_view in = s;
    uint32_t out = 0;
    ASSERT_TRUE(ReadVarint32(&in, &out));
    EXPECT_EQ(out, v);
    EXPECT_TRUE(in.empty());
  }
  absl::string_view truncated("\x80", 1);
  uint32_t out;
  EXPECT_FALSE(ReadVarint32(&truncated, &out));
}

TEST(KeysTest, PrefixEndBoundsEveryKeyWithThePrefix) {
  EXPECT_EQ(PrefixEnd("ab"), "ac");
  EXPECT_EQ(PrefixEnd(std::string("a\xff\xff", 3)), "b");
  EXPECT_EQ(PrefixEnd(std::string("\xff", 1)), "");
  const std::string prefix = CollectionPrefix("fleet");
  const std::string end = PrefixEnd(prefix);
  EXPECT_LT(prefix + std::string(64, '\xff'), end);
  EXPECT_GE(CollectionPrefix("fleet1"), end);
}

TEST(KeysTest, RegistryKeysRoundTrip) {
  const std::string binary("a\0\xff", 3);
  EXPECT_EQ(ParseRegistryKey(RegistryKey(binary)), binary);
  EXPECT_EQ(ParseRegistryKey(RegistryKey("")), "");
  EXPECT_EQ(ParseRegistryKey(kSchemaVersionKey), std::nullopt);
  EXPECT_EQ(ParseRegistryKey(RegistryKey("abc").substr(0, 3)), std::nullopt);
}

TEST(KeysTest, RetentionKeysRoundTripAndAreNoRegistryKeys) {
  const std::string binary("a\0\xff", 3);
  EXPECT_EQ(ParseRetentionKey(RetentionKey(binary)), binary);
  EXPECT_EQ(ParseRetentionKey(RegistryKey("abc")), std::nullopt);
  EXPECT_EQ(ParseRegistryKey(RetentionKey("abc")), std::nullopt);
  EXPECT_EQ(ParseRetentionKey(RetentionKey("abc").substr(0, 3)), std::nullopt);
}

}  // namespace
}  // namespace trackdb::storage
