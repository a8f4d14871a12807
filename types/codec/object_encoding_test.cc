#include "types/codec/object_encoding.h"

#include <string>

#include "gtest/gtest.h"
#include "types/codec/rdb_payload.h"

namespace trackdb::types {
namespace {

TEST(StringEncodingTest, IntegersUpToTwentyCharactersAreInt) {
  EXPECT_STREQ(StringEncoding("0"), "int");
  EXPECT_STREQ(StringEncoding("-1"), "int");
  EXPECT_STREQ(StringEncoding("9223372036854775807"), "int");
  EXPECT_STREQ(StringEncoding("-9223372036854775808"), "int");
  // Out of range, or not Redis's strict form: a string like any other.
  EXPECT_STREQ(StringEncoding("9223372036854775808"), "embstr");
  EXPECT_STREQ(StringEncoding("01"), "embstr");
  EXPECT_STREQ(StringEncoding("-0"), "embstr");
  EXPECT_STREQ(StringEncoding("+1"), "embstr");
  EXPECT_STREQ(StringEncoding(" 1"), "embstr");
  EXPECT_STREQ(StringEncoding(""), "embstr");
}

TEST(StringEncodingTest, EmbstrUpTo44BytesThenRaw) {
  EXPECT_STREQ(StringEncoding(std::string(44, 'x')), "embstr");
  EXPECT_STREQ(StringEncoding(std::string(45, 'x')), "raw");
}

TEST(StringRefcountTest, SmallNonNegativeIntegersAreShared) {
  EXPECT_EQ(StringRefcount("0"), kSharedRefcount);
  EXPECT_EQ(StringRefcount("9999"), kSharedRefcount);
  EXPECT_EQ(StringRefcount("10000"), 1);
  EXPECT_EQ(StringRefcount("-1"), 1);
  EXPECT_EQ(StringRefcount("09"), 1);
  EXPECT_EQ(StringRefcount("abc"), 1);
}

RdbValue Hash(int fields, size_t field_len, size_t value_len) {
  RdbValue v;
  v.kind = RdbValue::Kind::kHash;
  for (int i = 0; i < fields; ++i) {
    std::string field = std::to_string(i);
    field.resize(std::max(field.size(), field_len), 'f');
    v.hash.emplace_back(field, std::string(value_len, 'v'));
  }
  return v;
}

TEST(EncodingTest, HashListpackUntil512FieldsOf64Bytes) {
  EXPECT_STREQ(Encoding(Hash(512, 64, 64)), "listpack");
  EXPECT_STREQ(Encoding(Hash(513, 1, 1)), "hashtable");
  EXPECT_STREQ(Encoding(Hash(1, 65, 1)), "hashtable");
  EXPECT_STREQ(Encoding(Hash(1, 1, 65)), "hashtable");
  EXPECT_STREQ(EncodingBySize(RdbValue::Kind::kHash, 513), "hashtable");
  EXPECT_EQ(EncodingBySize(RdbValue::Kind::kHash, 512), nullptr);
}

TEST(EncodingTest, ZsetListpackUntil128MembersOf64Bytes) {
  RdbValue z;
  z.kind = RdbValue::Kind::kZset;
  for (int i = 0; i < 128; ++i) z.zset.emplace_back(std::to_string(i), i);
  EXPECT_STREQ(Encoding(z), "listpack");
  z.zset.emplace_back("another", 1);
  EXPECT_STREQ(Encoding(z), "skiplist");
  z.zset.resize(1);
  z.zset.emplace_back(std::string(65, 'm'), 2);
  EXPECT_STREQ(Encoding(z), "skiplist");
  EXPECT_STREQ(EncodingBySize(RdbValue::Kind::kZset, 129), "skiplist");
  EXPECT_EQ(EncodingBySize(RdbValue::Kind::kZset, 1), nullptr);
}

TEST(EncodingTest, SetIntsetUntil512Integers) {
  RdbValue s;
  s.kind = RdbValue::Kind::kSet;
  for (int i = 0; i < 512; ++i) s.elements.push_back(std::to_string(i - 256));
  EXPECT_STREQ(Encoding(s), "intset");
  s.elements.push_back("512");
  EXPECT_STREQ(Encoding(s), "hashtable");
  s.elements.resize(2);
  s.elements.push_back("-0");
  EXPECT_STREQ(Encoding(s), "hashtable");
  EXPECT_STREQ(EncodingBySize(RdbValue::Kind::kSet, 513), "hashtable");
  EXPECT_EQ(EncodingBySize(RdbValue::Kind::kSet, 512), nullptr);
}

TEST(EncodingTest, ListsAreQuicklistsAtAnySize) {
  RdbValue l;
  l.kind = RdbValue::Kind::kList;
  l.elements = {"a"};
  EXPECT_STREQ(Encoding(l), "quicklist");
  EXPECT_STREQ(EncodingBySize(RdbValue::Kind::kList, 1), "quicklist");
}

}  // namespace
}  // namespace trackdb::types
