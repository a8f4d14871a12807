// Sorted-set commands on GEO keys compared byte for byte with a real
// redis-server 7.0: the scores are the 52-bit geohashes Redis stores.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;

// Members with distinct scores, members sharing a score (ordered by name),
// binary names, and more than one listpack's worth is not needed here.
void AddMembers(Differential& d) {
  EXPECT_SAME_REPLY(d, {"GEOADD",
                        "z",
                        "13.361389",
                        "38.115556",
                        "Palermo",
                        "15.087269",
                        "37.502669",
                        "Catania",
                        "2.35",
                        "48.85",
                        "Paris",
                        "2.35",
                        "48.85",
                        "Paris2",
                        "2.35",
                        "48.85",
                        "Pari",
                        "-122.27652",
                        "37.80574",
                        "Oakland",
                        "139.6917",
                        "35.6895",
                        "Tokyo",
                        "0",
                        "0",
                        "origin",
                        "180",
                        "0",
                        "e180",
                        "-180",
                        "-85.05112878",
                        "sw",
                        "1",
                        "1",
                        std::string("b\0in", 4),
                        "1",
                        "1",
                        std::string("\xff", 1)});
}

TEST(ZsetCommandsTest, ScoresCardAndRank) {
  Differential d;
  AddMembers(d);
  const std::vector<std::vector<std::string>> commands = {
      {"ZCARD", "z"},
      {"ZCARD", "nokey"},
      {"ZCARD", "z", "x"},
      {"ZSCORE", "z", "Palermo"},
      {"ZSCORE", "z", "e180"},
      {"ZSCORE", "z", "sw"},
      {"ZSCORE", "z", "origin"},
      {"ZSCORE", "z", "nope"},
      {"ZSCORE", "nokey", "nope"},
      {"ZSCORE", "z"},
      {"ZMSCORE", "z", "Palermo", "nope", "Tokyo", std::string("b\0in", 4)},
      {"ZMSCORE", "nokey", "a", "b"},
      {"ZMSCORE", "z"},
      {"ZRANK", "z", "Palermo"},
      {"ZRANK", "z", "Paris"},
      {"ZRANK", "z", "Paris2"},
      {"ZRANK", "z", "Pari"},
      {"ZRANK", "z", "sw"},
      {"ZRANK", "z", "e180"},
      {"ZRANK", "z", "nope"},
      {"ZRANK", "nokey", "nope"},
      {"ZRANK", "z", "Paris", "WITHSCORE"},
      {"ZREVRANK", "z", "Palermo"},
      {"ZREVRANK", "z", "e180"},
      {"ZREVRANK", "z", "sw"},
      {"ZREVRANK", "z", "nope"},
      {"ZCOUNT", "z", "-inf", "+inf"},
      {"ZCOUNT", "z", "3378080408407459", "3378080408407459"},
      {"ZCOUNT", "z", "(3378080408407459", "+inf"},
      {"ZCOUNT", "z", "0", "(1e15"},
      {"ZCOUNT", "z", "x", "1"},
      {"ZCOUNT", "nokey", "0", "1"},
      {"ZCOUNT", "nokey", "x", "1"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
  testing::Resp3Both(d);
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(ZsetCommandsTest, ZrangeByIndex) {
  Differential d;
  AddMembers(d);
  std::vector<std::vector<std::string>> commands;
  for (const char* start :
       {"0", "1", "-1", "-3", "-100", "5", "11", "12", "100"}) {
    for (const char* stop : {"0", "2", "-1", "-2", "-100", "11", "100"}) {
      commands.push_back({"ZRANGE", "z", start, stop});
      commands.push_back({"ZRANGE", "z", start, stop, "WITHSCORES"});
      commands.push_back({"ZRANGE", "z", start, stop, "REV", "WITHSCORES"});
      commands.push_back({"ZREVRANGE", "z", start, stop});
    }
  }
  const std::vector<std::vector<std::string>> more = {
      {"ZRANGE", "z", "0"},
      {"ZRANGE", "z", "x", "1"},
      {"ZRANGE", "z", "0", "1.5"},
      {"ZRANGE", "z", "0", "-1", "bogus"},
      {"ZRANGE", "z", "0", "-1", "LIMIT", "0", "1"},
      {"ZRANGE", "z", "0", "-1", "LIMIT", "0", "-1"},
      {"ZRANGE", "z", "0", "-1", "LIMIT", "0"},
      {"ZRANGE", "z", "0", "-1", "LIMIT", "x", "1", "BYSCORE"},
      {"ZRANGE", "z", "0", "-1", "REV", "REV"},
      {"ZRANGE", "z", "0", "-1", "withscores", "rev"},
      {"ZRANGE", "nokey", "0", "-1"},
      {"ZRANGE", "nokey", "x", "-1"},
      {"ZREVRANGE", "z", "0", "-1", "REV"},
      {"ZREVRANGE", "z", "0", "-1", "BYSCORE"},
      {"ZREVRANGE", "z", "0", "-1", "WITHSCORES"},
  };
  commands.insert(commands.end(), more.begin(), more.end());
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
  testing::Resp3Both(d);
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(ZsetCommandsTest, ZrangeByScoreAndLex) {
  Differential d;
  AddMembers(d);
  auto score = [&](const char* member) {
    // The reply is "$<len>\r\n<score>\r\n".
    const std::string r = d.redis().Call({"ZSCORE", "z", member});
    return r.substr(r.find("\r\n") + 2, r.size() - r.find("\r\n") - 4);
  };
  const std::string paris = score("Paris"), palermo = score("Palermo");
  std::vector<std::vector<std::string>> commands;
  const std::vector<std::pair<std::string, std::string>> ranges = {
      {"-inf", "+inf"},
      {paris, paris},
      {"(" + paris, "+inf"},
      {"-inf", "(" + paris},
      {paris, palermo},
      {palermo, paris},
      {"(" + paris, "(" + paris},
      {"0", "0"},
      {"", "(3e15"},
      {"(", "inf"},
      {" 1", "1e16"},
      {"1e400", "-1e400"},
  };
  for (const auto& [min, max] : ranges) {
    commands.push_back({"ZRANGE", "z", min, max, "BYSCORE"});
    commands.push_back({"ZRANGE", "z", min, max, "BYSCORE", "WITHSCORES"});
    commands.push_back({"ZRANGE", "z", max, min, "BYSCORE", "REV"});
    commands.push_back({"ZRANGE", "z", min, max, "BYSCORE", "LIMIT", "1", "2"});
    commands.push_back(
        {"ZRANGE", "z", max, min, "BYSCORE", "REV", "LIMIT", "2", "-1"});
    commands.push_back({"ZRANGE", "z", min, max, "BYSCORE", "LIMIT", "0", "0"});
    commands.push_back(
        {"ZRANGE", "z", min, max, "BYSCORE", "LIMIT", "-1", "5"});
    commands.push_back(
        {"ZRANGE", "z", min, max, "BYSCORE", "LIMIT", "100", "5"});
    commands.push_back({"ZRANGEBYSCORE", "z", min, max, "WITHSCORES"});
    commands.push_back({"ZREVRANGEBYSCORE", "z", max, min, "LIMIT", "1", "3"});
    commands.push_back({"ZCOUNT", "z", min, max});
  }
  const std::vector<std::vector<std::string>> errors = {
      {"ZRANGE", "z", "x", "1", "BYSCORE"},
      {"ZRANGE", "z", "1", "nan", "BYSCORE"},
      {"ZRANGE", "z", "((1", "2", "BYSCORE"},
      {"ZRANGEBYSCORE", "z", "0", "1", "BYSCORE"},
      {"ZRANGEBYSCORE", "z", "0", "1", "REV"},
      {"ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"},
      {"ZRANGE", "z", "a", "+", "BYLEX"},
      {"ZRANGE", "z", "", "+", "BYLEX"},
      {"ZRANGE", "z", "-x", "+", "BYLEX"},
      {"ZRANGE", "z", "-", "+", "BYLEX", "BYSCORE"},
      {"ZRANGEBYLEX", "z", "-", "+", "WITHSCORES"},
      {"ZRANGE", "nokey", "-", "+", "BYLEX"},
      {"ZRANGE", "nokey", "a", "+", "BYLEX"},
  };
  commands.insert(commands.end(), errors.begin(), errors.end());
  // Lex ranges over members of different scores: Redis walks them in score
  // order (this set is small enough to be listpack-encoded in Redis).
  const std::vector<std::pair<std::string, std::string>> lex = {
      {"-", "+"},   {"[P", "+"},  {"(Paris", "+"},      {"-", "[Paris"},
      {"[A", "[Z"}, {"[Z", "[A"}, {"+", "-"},           {"[a", "(a"},
      {"[", "+"},   {"(", "+"},   {"[Pari", "[Paris2"},
  };
  for (const auto& [min, max] : lex) {
    commands.push_back({"ZRANGE", "z", min, max, "BYLEX"});
    commands.push_back({"ZRANGE", "z", max, min, "BYLEX", "REV"});
    commands.push_back({"ZRANGE", "z", min, max, "BYLEX", "LIMIT", "1", "2"});
    commands.push_back({"ZRANGEBYLEX", "z", min, max});
    commands.push_back({"ZREVRANGEBYLEX", "z", max, min, "LIMIT", "0", "3"});
  }
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
  testing::Resp3Both(d);
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(ZsetCommandsTest, ZremDeletesMembersAndTheEmptyKey) {
  Differential d;
  AddMembers(d);
  const std::vector<std::vector<std::string>> commands = {
      {"ZREM", "z"},
      {"ZREM", "z", "nope"},
      {"ZREM", "z", "Palermo", "Palermo", "nope", "Tokyo"},
      {"ZCARD", "z"},
      {"ZSCORE", "z", "Palermo"},
      {"ZRANGE", "z", "0", "-1"},
      {"ZREM", "nokey", "a"},
      {"ZREM", "z", "Catania", "Paris", "Paris2", "Pari", "Oakland", "origin",
       "e180", "sw", std::string("b\0in", 4)},
      {"ZCARD", "z"},
      {"ZREM", "z", std::string("\xff", 1)},
      {"ZCARD", "z"},
      {"ZRANGE", "z", "0", "-1"},
      {"GEOPOS", "z", "Palermo"},
      {"GEOADD", "z", "1", "1", "again"},
      {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
  // ZREM removes the entity's history too.
  storage::TrackQuery q;
  q.collection = "z";
  q.entity = "Palermo";
  auto track = d.trackdb_server().store().GetTrack(q);
  ASSERT_TRUE(track.ok());
  EXPECT_TRUE(track->points.empty());
}

TEST(ZsetCommandsTest, WrongType) {
  Differential d;
  testing::SetStringBoth(d, 0, "s", "v");
  const std::vector<std::vector<std::string>> commands = {
      {"ZCARD", "s"},
      {"ZSCORE", "s", "a"},
      {"ZMSCORE", "s", "a"},
      {"ZRANK", "s", "a"},
      {"ZREVRANK", "s", "a"},
      {"ZREM", "s", "a"},
      {"ZRANGE", "s", "0", "-1"},
      {"ZRANGE", "s", "x", "-1"},
      {"ZRANGE", "s", "0", "-1", "bogus"},
      {"ZCOUNT", "s", "0", "1"},
      {"ZCOUNT", "s", "x", "1"},
      {"ZRANGEBYLEX", "s", "-", "+"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(ZsetCommandsTest, ManyMembersSortLikeRedis) {
  // More than 128 members: Redis switches to its skiplist encoding.
  Differential d;
  std::vector<std::string> add = {"GEOADD", "big"};
  for (int i = 0; i < 300; ++i) {
    // Groups of three members share a position (and a score).
    const int cell = i / 3;
    add.push_back(absl::StrCat(-170 + cell * 3.3));
    add.push_back(absl::StrCat(-80 + cell * 1.6));
    add.push_back(absl::StrCat("m", (i * 7919) % 1000));
  }
  EXPECT_SAME_REPLY(d, add);
  const std::vector<std::vector<std::string>> commands = {
      {"ZCARD", "big"},
      {"ZRANGE", "big", "0", "-1", "WITHSCORES"},
      {"ZRANGE", "big", "100", "-100", "REV"},
      {"ZRANGE", "big", "-inf", "+inf", "BYSCORE", "LIMIT", "50", "20"},
      {"ZRANK", "big", "m77"},
      {"ZREVRANK", "big", "m77"},
      {"ZCOUNT", "big", "1e15", "3e15"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(ZsetCommandsTest, MembersWithoutARedisScoreAreLeftOut) {
  Differential d;
  AddMembers(d);
  testing::AddTrackdbOnlyPoint(d, 0, "z", "polar", -87, 3);
  const std::vector<std::vector<std::string>> commands = {
      {"ZSCORE", "z", "polar"},
      {"ZMSCORE", "z", "polar", "Palermo"},
      {"ZRANK", "z", "polar"},
      {"ZRANK", "z", "Tokyo"},
      {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
      {"ZCOUNT", "z", "-inf", "+inf"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
  // ZCARD counts it (it is an entity of the collection); ZREM removes it.
  const std::string redis_card = d.redis().Call({"ZCARD", "z"});
  const int64_t n = std::stoll(redis_card.substr(1));
  EXPECT_EQ(d.trackdb().Call({"ZCARD", "z"}), absl::StrCat(":", n + 1, "\r\n"));
  EXPECT_EQ(d.trackdb().Call({"ZREM", "z", "polar"}), ":1\r\n");
  EXPECT_SAME_REPLY(d, {"ZCARD", "z"});
}

}  // namespace
}  // namespace trackdb::resp
