#include "types/zset_range.h"

#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::types {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Members(const std::vector<ZEntry>& entries) {
  std::vector<std::string> out;
  for (const ZEntry& e : entries) out.push_back(e.member);
  return out;
}

// a:1 b:2 c:2 d:3 e:5, in sorted-set order.
const std::vector<ZEntry>& Five() {
  static const auto* entries =
      new std::vector<ZEntry>{{"a", 1}, {"b", 2}, {"c", 2}, {"d", 3}, {"e", 5}};
  return *entries;
}

std::vector<std::string> Pick(const RangeRequest& req) {
  const VectorZsetReader z(Five());
  absl::StatusOr<std::vector<ZEntry>> picked = PickRange(z, req);
  EXPECT_TRUE(picked.ok()) << picked.status();
  return picked.ok() ? Members(*picked) : std::vector<std::string>{};
}

TEST(ZsetRangeTest, RankRangesCountFromEitherEnd) {
  EXPECT_THAT(Pick(RankRange(0, -1, false)),
              ElementsAre("a", "b", "c", "d", "e"));
  EXPECT_THAT(Pick(RankRange(1, 2, false)), ElementsAre("b", "c"));
  EXPECT_THAT(Pick(RankRange(-2, -1, false)), ElementsAre("d", "e"));
  EXPECT_THAT(Pick(RankRange(0, 1, true)), ElementsAre("e", "d"));
  EXPECT_THAT(Pick(RankRange(3, 1, false)), ElementsAre());
  EXPECT_THAT(Pick(RankRange(10, 20, false)), ElementsAre());
  EXPECT_THAT(Pick(RankRange(-100, 0, false)), ElementsAre("a"));
}

RangeRequest ByScore(const std::string& min, const std::string& max) {
  RangeRequest req;
  req.type = RangeType::kScore;
  req.direction = Direction::kForward;
  EXPECT_TRUE(ParseScoreRange(min, max, &req.scores)) << min << " " << max;
  return req;
}

TEST(ZsetRangeTest, ScoreRangesHonourExclusiveBoundsAndLimit) {
  EXPECT_THAT(Pick(ByScore("2", "3")), ElementsAre("b", "c", "d"));
  EXPECT_THAT(Pick(ByScore("(2", "3")), ElementsAre("d"));
  EXPECT_THAT(Pick(ByScore("-inf", "(2")), ElementsAre("a"));
  EXPECT_THAT(Pick(ByScore("4", "+inf")), ElementsAre("e"));
  RangeRequest limited = ByScore("-inf", "+inf");
  limited.offset = 1;
  limited.limit = 2;
  EXPECT_THAT(Pick(limited), ElementsAre("b", "c"));
}

TEST(ZsetRangeTest, ScoreRangeSyntaxIsRedis) {
  ScoreRange r;
  EXPECT_TRUE(ParseScoreRange("(1.5", "+inf", &r));
  EXPECT_TRUE(r.minex);
  EXPECT_FALSE(r.maxex);
  EXPECT_FALSE(r.GteMin(1.5));
  EXPECT_TRUE(r.GteMin(1.6));
  EXPECT_TRUE(r.LteMax(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(ParseScoreRange("x", "1", &r));
  EXPECT_FALSE(ParseScoreRange("1", "nan", &r));
}

TEST(ZsetRangeTest, LexRangesOverEqualScores) {
  const std::vector<ZEntry> same = {{"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}};
  const VectorZsetReader z(same);
  RangeRequest req;
  req.type = RangeType::kLex;
  req.direction = Direction::kForward;
  ASSERT_TRUE(ParseLexRange("[b", "(d", &req.lex));
  absl::StatusOr<std::vector<ZEntry>> picked = PickRange(z, req);
  ASSERT_TRUE(picked.ok());
  EXPECT_THAT(Members(*picked), ElementsAre("b", "c"));
  ASSERT_TRUE(ParseLexRange("-", "+", &req.lex));
  picked = PickRange(z, req);
  ASSERT_TRUE(picked.ok());
  EXPECT_THAT(Members(*picked), ElementsAre("a", "b", "c", "d"));
  LexRange bad;
  EXPECT_FALSE(ParseLexRange("b", "[d", &bad));
}

TEST(ZsetRangeTest, WalkSeeksFromAnEntryInEitherDirection) {
  const VectorZsetReader z(Five());
  std::vector<std::string> seen;
  ASSERT_TRUE(z.Walk(false, ZSeek{2, std::string("c")}, [&](const ZEntry& e) {
                 seen.push_back(e.member);
                 return true;
               }).ok());
  EXPECT_THAT(seen, ElementsAre("c", "d", "e"));
  seen.clear();
  ASSERT_TRUE(z.Walk(true, ZSeek{2, std::nullopt}, [&](const ZEntry& e) {
                 seen.push_back(e.member);
                 return seen.size() < 2;
               }).ok());
  // Without a member, every entry of the score is at or before the seek.
  EXPECT_THAT(seen, ElementsAre("c", "b"));
}

}  // namespace
}  // namespace trackdb::types
