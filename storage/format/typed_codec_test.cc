#include "storage/format/typed_codec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/format/keys.h"

namespace trackdb::storage {
namespace {

TEST(TypedMeta, RoundTripsEveryType) {
  for (ValueType t : {ValueType::kHash, ValueType::kList, ValueType::kSet,
                      ValueType::kZset}) {
    TypedMeta m{t, 1700000000123, 42, 7, t == ValueType::kList ? 99u : 0u};
    EXPECT_EQ(DecodeTypedMeta(EncodeTypedMeta(m)), m);
  }
}

TEST(TypedMeta, ASortedSetKeepsItsLowBound) {
  TypedMeta m{ValueType::kZset, 0, 9, 3, 0};
  m.low = ZsetScoreSubkey(2.5, "member");
  EXPECT_EQ(DecodeTypedMeta(EncodeTypedMeta(m)), m);
  TypedMeta hash{ValueType::kHash, 0, 9, 3, 0};
  EXPECT_FALSE(DecodeTypedMeta(EncodeTypedMeta(hash) + "x"));
}

TEST(TypedMeta, RefusesWhatIsNotMeta) {
  EXPECT_FALSE(DecodeTypedMeta(""));
  EXPECT_FALSE(DecodeTypedMeta(std::string(25, 'x')));
  std::string list = EncodeTypedMeta({ValueType::kList, 0, 1, 1, 5});
  EXPECT_FALSE(DecodeTypedMeta(list.substr(0, 25)));  // list without head
}

TEST(TypedKeys, MetaSortsBeforeItsMembersAndNamesDoNotInterleave) {
  const std::string meta = TypedMetaKey("ab");
  const std::string member = TypedMembersPrefix("ab", 3) + "field";
  EXPECT_LT(meta, member);
  EXPECT_TRUE(member.rfind(meta, 0) == 0);
  // "abc"'s keys are outside "ab"'s range.
  EXPECT_GE(TypedMetaKey("abc"), PrefixEnd(meta));

  auto m = ParseTypedKey(meta);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->is_meta);
  EXPECT_EQ(m->name, "ab");
  auto k = ParseTypedKey(member);
  ASSERT_TRUE(k);
  EXPECT_FALSE(k->is_meta);
  EXPECT_EQ(k->name, "ab");
  EXPECT_EQ(k->version, 3u);
  EXPECT_EQ(k->subkey, "field");
  EXPECT_FALSE(ParseTypedKey(TypedMetaKey("ab") + "xyz"));  // short version
}

TEST(Score, ByteOrderIsNumericOrder) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> scores = {-inf,   -1e300, -2.5, -1,    -1e-300, 0,
                                1e-300, 1,      2.5,  1e300, inf};
  for (size_t i = 0; i + 1 < scores.size(); ++i) {
    EXPECT_LT(EncodeScore(scores[i]), EncodeScore(scores[i + 1]))
        << scores[i] << " vs " << scores[i + 1];
  }
  for (double d : scores) EXPECT_EQ(DecodeScore(EncodeScore(d)), d);
  EXPECT_EQ(EncodeScore(-0.0), EncodeScore(0.0));
  EXPECT_FALSE(std::signbit(DecodeScore(EncodeScore(-0.0))));
}

TEST(Subkeys, ZsetScoreOrderThenMember) {
  EXPECT_LT(ZsetScoreSubkey(1, "b"), ZsetScoreSubkey(2, "a"));
  EXPECT_LT(ZsetScoreSubkey(1, "a"), ZsetScoreSubkey(1, "b"));
  EXPECT_LT(ListSubkey(kListMiddle - 1), ListSubkey(kListMiddle));
}

// Only a sorted set's score keys are walked-only: a hash field or set
// member spelt like one is read by key.
TEST(Subkeys, OnlyScoreKeysOfSortedSetsAreWalkedOnly) {
  EXPECT_TRUE(IsWalkedOnly(ValueType::kZset, ZsetScoreSubkey(1, "a")));
  EXPECT_FALSE(IsWalkedOnly(ValueType::kZset, ZsetMemberSubkey("a")));
  EXPECT_FALSE(IsWalkedOnly(ValueType::kZset, ""));
  const std::string lookalike = ZsetScoreSubkey(1, "a");
  for (ValueType t : {ValueType::kHash, ValueType::kSet, ValueType::kList}) {
    EXPECT_FALSE(IsWalkedOnly(t, lookalike));
  }
}

}  // namespace
}  // namespace trackdb::storage
