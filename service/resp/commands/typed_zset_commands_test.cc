// Sorted-set commands on real sorted sets (typed zsets), compared byte for
// byte with a real redis-server 7.0 started beside trackdb's RESP server:
// every command, its options and its errors, WRONGTYPE against strings,
// hashes, sets and lists, RESP3, scores Redis prints specially (inf,
// integers, 17 digits), equal scores ordered by member, STORE destinations
// of every kind, GEO keys as sources, and a randomized workload compared
// after every command. Replies whose order Redis leaves open (ZRANDMEMBER,
// a paged ZSCAN) are compared as sorted elements; random picks are checked
// for what they must hold.
#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/reply_helpers.h"
#include "service/resp/testing/resp_test_client.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

using testing::Aggregate;
using testing::BulkText;
using testing::BulkTexts;
using testing::Differential;
using testing::RawClient;
using testing::ScanWalk;
using testing::Split;
using testing::WalkScan;
using Argv = std::vector<std::string>;

// The same commands in RESP2, then in RESP3.
void ExpectSameInBothProtocols(Differential& d,
                               const std::vector<Argv>& commands) {
  testing::ExpectSameReplies(d, commands);
  testing::Resp3Both(d);
  testing::ExpectSameReplies(d, commands);
  d.Call({"HELLO", "2"});  // replies differ only in the client id
}

// A zset whose scores print every way Redis prints one, with members
// sharing scores.
void AddVariedScores(Differential& d, const std::string& key) {
  EXPECT_SAME_REPLY(d, {"ZADD",
                        key,
                        "1",
                        "a",
                        "1",
                        "b",
                        "1",
                        "c",
                        "2.5",
                        "d",
                        "-inf",
                        "minf",
                        "+inf",
                        "pinf",
                        "0.1",
                        "tenth",
                        "1e300",
                        "huge",
                        "-3",
                        "neg",
                        "123456789012345678",
                        "big",
                        "0",
                        std::string("b\0in", 4),
                        "0",
                        "",
                        "1",
                        std::string("\xff", 1)});
}

// Makes `key` a GEO key on both servers.
void AddGeo(Differential& d, const std::string& key) {
  EXPECT_SAME_REPLY(
      d, {"GEOADD", key, "13.361389", "38.115556", "Palermo", "15.087269",
          "37.502669", "Catania", "2.35", "48.85", "Paris"});
}

// A string, a hash, a set and a list, on both servers.
void AddOtherTypes(Differential& d) {
  EXPECT_SAME_REPLY(d, {"SET", "str", "v"});
  EXPECT_SAME_REPLY(d, {"HSET", "hash", "f", "v"});
  EXPECT_SAME_REPLY(d, {"SADD", "set", "a", "x"});
  EXPECT_SAME_REPLY(d, {"RPUSH", "list", "a"});
}

TEST(TypedZsetCommandsTest, ZaddOptions) {
  Differential d;
  ExpectSameInBothProtocols(
      d, {
             {"ZADD", "z", "1", "a"},
             {"ZADD", "z", "2", "a", "3", "b"},
             {"ZADD", "z", "1", "a", "1", "a", "5", "a"},
             {"ZADD", "z", "CH", "1", "a", "3", "b", "4", "c"},
             {"ZADD", "z", "NX", "9", "a", "9", "d"},
             {"ZADD", "z", "XX", "8", "a", "8", "e"},
             {"ZADD", "z", "XX", "CH", "7", "a", "8", "e"},
             {"ZADD", "z", "GT", "CH", "1", "a", "20", "b", "2", "new"},
             {"ZADD", "z", "LT", "CH", "100", "a", "0", "b"},
             {"ZADD", "z", "XX", "GT", "CH", "50", "a", "1", "c"},
             {"ZADD", "z", "INCR", "5", "a"},
             {"ZADD", "z", "INCR", "NX", "5", "a"},
             {"ZADD", "z", "INCR", "NX", "5", "x"},
             {"ZADD", "z", "INCR", "XX", "5", "nope"},
             {"ZADD", "z", "INCR", "GT", "-1", "a"},
             {"ZADD", "z", "INCR", "LT", "-1", "a"},
             {"ZADD", "z", "incr", "0", "a"},
             {"ZADD", "nokey", "XX", "1", "a"},
             {"ZADD", "nokey", "XX", "INCR", "1", "a"},
             {"EXISTS", "nokey"},
             {"ZADD", "z", "1e-320", "denormal", "0x10", "hex"},
             {"ZADD", "z", "-0", "negzero"},
             {"ZINCRBY", "z", "-0", "negzero2"},
             {"ZINCRBY", "z", "2.5", "a"},
             {"ZINCRBY", "z", "1", "fresh"},
             {"ZINCRBY", "z", "+inf", "inf"},
             {"ZINCRBY", "z", "-inf", "inf"},
             {"ZINCRBY", "z", "inf", "inf"},
             {"ZADD", "z", "INCR", "-inf", "inf"},
             {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
             {"ZCARD", "z"},
         });
}

TEST(TypedZsetCommandsTest, ZaddErrors) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"ZADD", "z", "1", "a"});
  testing::ExpectSameReplies(d, {
                                    {"ZADD", "z"},
                                    {"ZADD", "z", "1"},
                                    {"ZADD", "z", "NX", "1"},
                                    {"ZADD", "z", "1", "a", "2"},
                                    {"ZADD", "z", "NX", "XX", "1", "a"},
                                    {"ZADD", "z", "NX", "XX", "1"},
                                    {"ZADD", "z", "GT", "LT", "1", "a"},
                                    {"ZADD", "z", "NX", "GT", "1", "a"},
                                    {"ZADD", "z", "LT", "NX", "1", "a"},
                                    {"ZADD", "z", "XX", "NX", "GT", "1", "a"},
                                    {"ZADD", "z", "INCR", "1", "a", "2", "b"},
                                    {"ZADD", "z", "x", "a"},
                                    {"ZADD", "z", "nan", "a"},
                                    {"ZADD", "z", "1", "a", "x", "b"},
                                    {"ZADD", "z", " 1", "a"},
                                    {"ZADD", "z", "1e400", "a"},
                                    {"ZADD", "z", "", "a"},
                                    {"ZADD", "z", "FOO", "1", "a"},
                                    {"ZINCRBY", "z", "x", "a"},
                                    {"ZINCRBY", "z", "nx", "a"},
                                    {"ZINCRBY", "z", "incr", "a"},
                                    {"ZINCRBY", "z", "1"},
                                    {"ZINCRBY", "z", "1", "a", "b"},
                                    {"ZADD", "z", "inf", "i"},
                                    {"ZINCRBY", "z", "-inf", "i"},
                                    {"ZADD", "z", "INCR", "-inf", "i"},
                                    {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
                                });
}

TEST(TypedZsetCommandsTest, PointReads) {
  Differential d;
  AddVariedScores(d, "z");
  ExpectSameInBothProtocols(
      d, {
             {"ZCARD", "z"},
             {"ZCARD", "nokey"},
             {"ZSCORE", "z", "a"},
             {"ZSCORE", "z", "tenth"},
             {"ZSCORE", "z", "huge"},
             {"ZSCORE", "z", "minf"},
             {"ZSCORE", "z", "pinf"},
             {"ZSCORE", "z", "big"},
             {"ZSCORE", "z", ""},
             {"ZSCORE", "z", "nope"},
             {"ZSCORE", "nokey", "a"},
             {"ZMSCORE", "z", "a", "nope", "pinf", std::string("b\0in", 4)},
             {"ZMSCORE", "nokey", "a", "b"},
             {"ZRANK", "z", "minf"},
             {"ZRANK", "z", "a"},
             {"ZRANK", "z", "b"},
             {"ZRANK", "z", "c"},
             {"ZRANK", "z", "pinf"},
             {"ZRANK", "z", ""},
             {"ZRANK", "z", std::string("b\0in", 4)},
             {"ZRANK", "z", "nope"},
             {"ZRANK", "nokey", "a"},
             {"ZREVRANK", "z", "minf"},
             {"ZREVRANK", "z", "b"},
             {"ZREVRANK", "z", "pinf"},
             {"ZREVRANK", "z", "nope"},
             {"ZCOUNT", "z", "-inf", "+inf"},
             {"ZCOUNT", "z", "1", "1"},
             {"ZCOUNT", "z", "(1", "2.5"},
             {"ZCOUNT", "z", "1", "(1"},
             {"ZCOUNT", "z", "(-inf", "(inf"},
             {"ZCOUNT", "z", "inf", "inf"},
             {"ZCOUNT", "z", "2", "1"},
             {"ZCOUNT", "z", "0", "0"},
             {"ZCOUNT", "z", "x", "1"},
             {"ZCOUNT", "nokey", "0", "1"},
         });
}

// Ranks from every side of a set of 10 and one of 300 (whose ranges trackdb
// walks from the nearer end).
TEST(TypedZsetCommandsTest, ZrangeByRank) {
  Differential d;
  Argv small = {"ZADD", "z"}, big = {"ZADD", "big"};
  for (int i = 0; i < 10; ++i) {
    small.insert(small.end(), {absl::StrCat(i % 4), absl::StrCat("m", i)});
  }
  for (int i = 0; i < 300; ++i) {
    big.insert(big.end(), {absl::StrCat(i / 3), absl::StrCat("m", i % 97, i)});
  }
  EXPECT_SAME_REPLY(d, small);
  EXPECT_SAME_REPLY(d, big);
  std::vector<Argv> commands;
  for (const char* key : {"z", "big"}) {
    for (const char* start : {"0", "1", "-1", "-3", "-100", "5", "9", "10",
                              "150", "290", "299", "1000"}) {
      for (const char* stop :
           {"0", "2", "-1", "-2", "-100", "9", "160", "1000"}) {
        commands.push_back({"ZRANGE", key, start, stop, "WITHSCORES"});
        commands.push_back({"ZRANGE", key, start, stop, "REV"});
        commands.push_back({"ZREVRANGE", key, start, stop, "WITHSCORES"});
      }
    }
    for (const char* member : {"m0", "m9", "m96288", "m33"}) {
      commands.push_back({"ZRANK", key, member});
      commands.push_back({"ZREVRANK", key, member});
    }
  }
  ExpectSameInBothProtocols(d, commands);
}

TEST(TypedZsetCommandsTest, ZrangeByScore) {
  Differential d;
  AddVariedScores(d, "z");
  const std::vector<std::pair<std::string, std::string>> ranges = {
      {"-inf", "+inf"}, {"1", "1"},     {"(1", "+inf"}, {"-inf", "(1"},
      {"0", "2.5"},     {"2.5", "0"},   {"(1", "(1"},   {"inf", "inf"},
      {"-inf", "-inf"}, {"(-inf", "0"}, {"", "(3e15"},  {"(", "inf"},
      {" 1", "1e16"},   {"1e400", "0"}, {"0.1", "0.1"}, {"-3", "(0.1"},
  };
  std::vector<Argv> commands;
  for (const auto& [min, max] : ranges) {
    commands.push_back({"ZRANGE", "z", min, max, "BYSCORE", "WITHSCORES"});
    commands.push_back({"ZRANGE", "z", max, min, "BYSCORE", "REV"});
    commands.push_back({"ZRANGE", "z", min, max, "BYSCORE", "LIMIT", "1", "2"});
    commands.push_back(
        {"ZRANGE", "z", max, min, "BYSCORE", "REV", "LIMIT", "2", "-1"});
    commands.push_back({"ZRANGE", "z", min, max, "BYSCORE", "LIMIT", "0", "0"});
    commands.push_back(
        {"ZRANGE", "z", min, max, "BYSCORE", "LIMIT", "-1", "5"});
    commands.push_back(
        {"ZRANGE", "z", min, max, "BYSCORE", "LIMIT", "12", "5"});
    commands.push_back({"ZRANGEBYSCORE", "z", min, max, "WITHSCORES"});
    commands.push_back({"ZREVRANGEBYSCORE", "z", max, min, "LIMIT", "1", "3"});
    commands.push_back({"ZCOUNT", "z", min, max});
  }
  commands.push_back({"ZRANGE", "z", "x", "1", "BYSCORE"});
  commands.push_back({"ZRANGE", "z", "1", "nan", "BYSCORE"});
  commands.push_back({"ZRANGE", "nokey", "0", "1", "BYSCORE"});
  ExpectSameInBothProtocols(d, commands);
}

// Lex ranges over members of equal scores (small and big sets), and over a
// small set of varied scores (walked as Redis's listpack walks it).
TEST(TypedZsetCommandsTest, ZrangeByLex) {
  Differential d;
  Argv equal = {"ZADD", "lex"}, big = {"ZADD", "biglex"};
  for (const char* m : {"a", "aa", "ab", "b", "ba", "c", "d", "e", "", "z"}) {
    equal.insert(equal.end(), {"0", m});
  }
  for (int i = 0; i < 200; ++i) {
    big.insert(big.end(), {"7", absl::StrCat("m", i)});
  }
  EXPECT_SAME_REPLY(d, equal);
  EXPECT_SAME_REPLY(d, big);
  AddVariedScores(d, "z");
  const std::vector<std::pair<std::string, std::string>> ranges = {
      {"-", "+"},     {"[a", "+"},    {"(a", "+"},    {"-", "[b"},
      {"-", "(b"},    {"[aa", "[ba"}, {"(aa", "(ba"}, {"[b", "[a"},
      {"+", "-"},     {"[a", "(a"},   {"[", "+"},     {"(", "+"},
      {"[m1", "[m2"}, {"(m150", "+"}, {"-", "[m105"}, {"[z", "[zz"},
  };
  std::vector<Argv> commands;
  for (const char* key : {"lex", "biglex", "z"}) {
    for (const auto& [min, max] : ranges) {
      commands.push_back({"ZRANGE", key, min, max, "BYLEX"});
      commands.push_back({"ZRANGE", key, max, min, "BYLEX", "REV"});
      commands.push_back({"ZRANGE", key, min, max, "BYLEX", "LIMIT", "1", "3"});
      commands.push_back({"ZRANGEBYLEX", key, min, max, "LIMIT", "-1", "3"});
      commands.push_back({"ZREVRANGEBYLEX", key, max, min, "LIMIT", "2", "-1"});
    }
  }
  commands.push_back({"ZRANGE", "lex", "a", "+", "BYLEX"});
  commands.push_back({"ZRANGE", "lex", "-", "+", "BYLEX", "WITHSCORES"});
  ExpectSameInBothProtocols(d, commands);
}

TEST(TypedZsetCommandsTest, ZremRemovesMembersAndTheEmptiedKey) {
  Differential d;
  AddVariedScores(d, "z");
  EXPECT_SAME_REPLY(d, {"EXPIRE", "z", "1000"});
  testing::ExpectSameReplies(
      d, {
             {"ZREM", "z", "nope"},
             {"ZREM", "z", "a", "a", "nope", "pinf"},
             {"ZCARD", "z"},
             {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
             {"ZREM", "nokey", "a"},
             {"ZADD", "z", "5", "b"},
             {"TTL", "z"},
             {"ZREM", "z", "b", "c", "d", "minf", "tenth", "huge", "neg", "big",
              std::string("b\0in", 4), ""},
             {"ZCARD", "z"},
             {"ZREM", "z", std::string("\xff", 1)},
             {"EXISTS", "z"},
             {"TYPE", "z"},
             {"ZCARD", "z"},
             {"ZADD", "z", "1", "again"},
             {"TTL", "z"},
         });
}

TEST(TypedZsetCommandsTest, PopMinAndMax) {
  Differential d;
  AddVariedScores(d, "z");
  AddOtherTypes(d);
  const std::vector<Argv> commands = {
      {"ZPOPMIN", "z"},
      {"ZPOPMAX", "z"},
      {"ZPOPMIN", "z", "2"},
      {"ZPOPMAX", "z", "3"},
      {"ZPOPMIN", "z", "0"},
      {"ZPOPMIN", "z", "-1"},
      {"ZPOPMIN", "z", "x"},
      {"ZPOPMIN", "z", "1", "2"},
      {"ZPOPMIN", "nokey"},
      {"ZPOPMIN", "nokey", "0"},
      {"ZPOPMIN", "nokey", "-1"},
      {"ZPOPMIN", "str", "0"},
      {"ZPOPMAX", "hash"},
      {"ZPOPMAX", "z", "1"},
      {"ZCARD", "z"},
  };
  ExpectSameInBothProtocols(d, commands);
  EXPECT_SAME_REPLY(d, {"ZPOPMIN", "z", "100"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "z"});
  EXPECT_SAME_REPLY(d, {"ZPOPMAX", "z"});
}

// ZMPOP, and the blocking pops when a key has members already.
TEST(TypedZsetCommandsTest, MultiKeyAndBlockingPopsServedAtOnce) {
  Differential d;
  AddVariedScores(d, "z");
  AddOtherTypes(d);
  ExpectSameInBothProtocols(
      d, {
             {"ZADD", "z2", "1", "a", "2", "b", "3", "c"},
             {"ZMPOP", "1", "z2", "MIN"},
             {"ZMPOP", "2", "nokey", "z2", "MAX", "COUNT", "5"},
             {"EXISTS", "z2"},
             {"ZMPOP", "2", "nokey", "z2", "MAX"},
             {"ZMPOP", "2", "str", "z", "MIN"},
             {"ZMPOP", "2", "z", "str", "MIN", "COUNT", "2"},
             {"BZPOPMIN", "nokey", "z", "0"},
             {"BZPOPMAX", "z", "nokey", "0.01"},
             {"BZPOPMIN", "nokey", "0.01"},
             {"BZPOPMIN", "hash", "z", "0.01"},
             {"BZMPOP", "0", "2", "nokey", "z", "MIN", "COUNT", "3"},
             {"BZMPOP", "0.01", "1", "nokey", "MAX"},
             {"BZMPOP", "0.01", "2", "set", "z", "MAX"},
             {"ZCARD", "z"},
         });
  EXPECT_SAME_REPLY(d, {"ZMPOP", "1", "z", "MAX", "COUNT", "100"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "z"});
}

TEST(TypedZsetCommandsTest, MultiKeyPopArgumentErrors) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"ZADD", "z", "1", "a", "2", "b"});
  for (const std::vector<std::string>& tail : std::vector<Argv>{
           {"0", "z", "MIN"},
           {"-1", "z", "MIN"},
           {"x", "z", "MIN"},
           {"9223372036854775807", "z", "MIN"},
           {"1", "z"},
           {"2", "z", "MIN"},
           {"1", "z", "UP"},
           {"1", "z", "MIN", "COUNT"},
           {"1", "z", "MIN", "COUNT", "0"},
           {"1", "z", "MIN", "COUNT", "-2"},
           {"1", "z", "MIN", "COUNT", "x"},
           {"1", "z", "MIN", "COUNT", "1", "COUNT", "1"},
           {"1", "z", "MIN", "junk"},
       }) {
    Argv zmpop = {"ZMPOP"};
    zmpop.insert(zmpop.end(), tail.begin(), tail.end());
    EXPECT_SAME_REPLY(d, zmpop);
    Argv bzmpop = {"BZMPOP", "0.01"};
    bzmpop.insert(bzmpop.end(), tail.begin(), tail.end());
    EXPECT_SAME_REPLY(d, bzmpop);
  }
  testing::ExpectSameReplies(d, {
                                    {"BZMPOP", "x", "1", "z", "MIN"},
                                    {"BZMPOP", "-1", "1", "z", "MIN"},
                                    {"BZMPOP", "x", "0", "z", "MIN"},
                                    {"BZPOPMIN", "z", "x"},
                                    {"BZPOPMAX", "z", "-1"},
                                    {"BZPOPMIN", "z"},
                                    {"ZMPOP", "1"},
                                    {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
                                });
}

// A blocking pop waiting on one connection is served by a ZADD or a stored
// sorted set from another, on both servers alike. (A waiter holds a worker
// thread, and ZUNIONSTORE runs on one: the server needs two.)
TEST(TypedZsetCommandsTest, BlockingPopsAreWokenByZaddAndStores) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_worker_threads(2);
  Differential d(config);
  const std::vector<std::pair<Argv, Argv>> cases = {
      {{"BZPOPMIN", "q1", "q2", "10"}, {"ZADD", "q2", "2", "b", "1", "a"}},
      {{"BZPOPMAX", "q1", "10"}, {"ZINCRBY", "q1", "5", "m"}},
      {{"BZMPOP", "10", "2", "q1", "q2", "MAX", "COUNT", "2"},
       {"ZADD", "q2", "1", "x", "2", "y", "3", "z"}},
      {{"BZPOPMIN", "q3", "10"}, {"ZUNIONSTORE", "q3", "1", "src"}},
  };
  EXPECT_SAME_REPLY(d, {"ZADD", "src", "1", "s1", "2", "s2"});
  for (const auto& [wait, push] : cases) {
    testing::ExpectWakesBlockedPop(d, wait, push);
    testing::ExpectSameReplies(d, {{"ZRANGE", "q1", "0", "-1", "WITHSCORES"},
                                   {"ZRANGE", "q2", "0", "-1", "WITHSCORES"},
                                   {"ZRANGE", "q3", "0", "-1", "WITHSCORES"},
                                   {"DEL", "q1", "q2", "q3"}});
  }
}

// A BLPOP waiting on a key that then holds a sorted set skips it; a
// BZPOPMIN that comes later on the same key is served at once, on both
// servers alike (the list waiter does not hold up the sorted-set line).
TEST(TypedZsetCommandsTest, AListWaiterDoesNotHoldUpASortedSetWaiter) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_worker_threads(2);
  Differential d(config);
  RawClient redis_list(d.redis_port());
  RawClient trackdb_list(d.trackdb_server().port());
  const std::string blpop = testing::EncodeCommand({"BLPOP", "k", "5"});
  redis_list.Send(blpop);
  trackdb_list.Send(blpop);
  EXPECT_EQ(redis_list.ReadReply(200), std::nullopt);
  EXPECT_EQ(trackdb_list.ReadReply(200), std::nullopt);
  EXPECT_SAME_REPLY(d, {"ZADD", "k", "1", "a", "2", "b"});
  const auto start = std::chrono::steady_clock::now();
  EXPECT_SAME_REPLY(d, {"BZPOPMIN", "k", "3"});
  EXPECT_LT(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      0.5);
  EXPECT_SAME_REPLY(d, {"ZRANGE", "k", "0", "-1"});
}

TEST(TypedZsetCommandsTest, LexCountAndInterCard) {
  Differential d;
  AddOtherTypes(d);
  ExpectSameInBothProtocols(
      d, {
             {"ZADD", "z", "0", "a", "0", "b", "0", "c", "0", "d"},
             {"ZADD", "z2", "0", "b", "0", "c", "1", "x"},
             {"ZLEXCOUNT", "z", "-", "+"},
             {"ZLEXCOUNT", "z", "[b", "(d"},
             {"ZLEXCOUNT", "z", "(a", "[c"},
             {"ZLEXCOUNT", "z", "+", "-"},
             {"ZLEXCOUNT", "z", "a", "b"},
             {"ZLEXCOUNT", "z", "[a", "x"},
             {"ZLEXCOUNT", "nokey", "-", "+"},
             {"ZLEXCOUNT", "str", "-", "+"},
             {"ZLEXCOUNT", "str", "a", "b"},
             {"ZINTERCARD", "2", "z", "z2"},
             {"ZINTERCARD", "2", "z", "set"},
             {"ZINTERCARD", "2", "z", "z2", "LIMIT", "1"},
             {"ZINTERCARD", "2", "z", "z2", "LIMIT", "0"},
             {"ZINTERCARD", "2", "z", "z2", "LIMIT", "-1"},
             {"ZINTERCARD", "2", "z", "z2", "LIMIT", "x"},
             {"ZINTERCARD", "2", "z", "z2", "LIMIT"},
             {"ZINTERCARD", "2", "z", "z2", "WEIGHTS", "1", "2"},
             {"ZINTERCARD", "2", "z", "z2", "WITHSCORES"},
             {"ZINTERCARD", "0", "z"},
             {"ZINTERCARD", "x", "z"},
             {"ZINTERCARD", "3", "z", "z2"},
             {"ZINTERCARD", "2", "z", "str"},
             {"ZINTERCARD", "2", "str", "z", "LIMIT", "-1"},
             {"ZINTERCARD", "1", "nokey"},
             {"ZINTERCARD", "2", "z", "nokey"},
         });
}

TEST(TypedZsetCommandsTest, RemoveRanges) {
  Differential d;
  const std::vector<Argv> commands = {
      {"ZREMRANGEBYSCORE", "z", "(1", "2.5"},
      {"ZREMRANGEBYSCORE", "z", "2", "1"},
      {"ZREMRANGEBYSCORE", "z", "inf", "+inf"},
      {"ZREMRANGEBYSCORE", "z", "x", "1"},
      {"ZREMRANGEBYRANK", "z", "1", "2"},
      {"ZREMRANGEBYRANK", "z", "-2", "-1"},
      {"ZREMRANGEBYRANK", "z", "5", "2"},
      {"ZREMRANGEBYRANK", "z", "100", "200"},
      {"ZREMRANGEBYRANK", "z", "x", "1"},
      {"ZREMRANGEBYLEX", "z", "[a", "[c"},
      {"ZREMRANGEBYLEX", "z", "a", "c"},
      {"ZREMRANGEBYLEX", "nokey", "a", "c"},
      {"ZREMRANGEBYLEX", "nokey", "-", "+"},
      {"ZREMRANGEBYSCORE", "nokey", "0", "1"},
      {"ZREMRANGEBYRANK", "nokey", "0", "1"},
      {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
      {"ZREMRANGEBYRANK", "z", "0", "-1"},
      {"EXISTS", "z"},
  };
  AddVariedScores(d, "z");
  testing::ExpectSameReplies(d, commands);
  testing::Resp3Both(d);
  AddVariedScores(d, "z");
  testing::ExpectSameReplies(d, commands);
  // Lex over equal scores, and over the whole set.
  Argv lex = {"ZADD", "lex"};
  for (int i = 0; i < 150; ++i) lex.insert(lex.end(), {"0", absl::StrCat(i)});
  EXPECT_SAME_REPLY(d, lex);
  testing::ExpectSameReplies(d, {
                                    {"ZREMRANGEBYLEX", "lex", "(1", "[2"},
                                    {"ZREMRANGEBYLEX", "lex", "-", "(5"},
                                    {"ZRANGE", "lex", "0", "-1"},
                                    {"ZREMRANGEBYLEX", "lex", "-", "+"},
                                    {"EXISTS", "lex"},
                                });
}

TEST(TypedZsetCommandsTest, RandMemberArgumentsAndWholeReplies) {
  Differential d;
  AddVariedScores(d, "z");
  AddOtherTypes(d);
  ExpectSameInBothProtocols(
      d, {
             {"ZRANDMEMBER", "nokey"},
             {"ZRANDMEMBER", "nokey", "5"},
             {"ZRANDMEMBER", "nokey", "-5", "WITHSCORES"},
             {"ZRANDMEMBER", "nokey", "1", "x"},
             {"ZRANDMEMBER", "z", "0"},
             {"ZRANDMEMBER", "z", "0", "WITHSCORES"},
             {"ZRANDMEMBER", "z", "x"},
             {"ZRANDMEMBER", "z", "1", "withscore"},
             {"ZRANDMEMBER", "z", "1", "WITHSCORES", "x"},
             {"ZRANDMEMBER", "z", "-9223372036854775808"},
             {"ZRANDMEMBER", "z", "4611686018427387904", "WITHSCORES"},
             {"ZRANDMEMBER", "z", "-4611686018427387904", "WITHSCORES"},
             {"ZRANDMEMBER", "str"},
             {"ZRANDMEMBER", "str", "0"},
             {"ZRANDMEMBER", "hash", "3", "WITHSCORES"},
         });
  // A count of at least the size: the whole set, in an order Redis leaves
  // open.
  EXPECT_SAME_UNORDERED(d, 2, {"ZRANDMEMBER", "z", "13", "WITHSCORES"});
  EXPECT_SAME_UNORDERED(d, 1, {"ZRANDMEMBER", "z", "100"});
  EXPECT_SAME_UNORDERED(
      d, 2, {"ZRANDMEMBER", "z", "4611686018427387903", "WITHSCORES"});
}

TEST(TypedZsetCommandsTest, RandMemberPicks) {
  Differential d;
  AddVariedScores(d, "z");
  RawClient& c = d.trackdb();
  const std::string all_reply =
      c.Call({"ZRANGE", "z", "0", "-1", "WITHSCORES"});
  const std::vector<std::string> all = BulkTexts(all_reply);
  std::map<std::string, std::string> score_of;
  for (size_t i = 0; i + 1 < all.size(); i += 2) score_of[all[i]] = all[i + 1];
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const std::string one = BulkText(c.Call({"ZRANDMEMBER", "z"}));
    EXPECT_TRUE(score_of.count(one)) << one;
    seen.insert(one);
    // Distinct picks with scores.
    const std::vector<std::string> five =
        BulkTexts(c.Call({"ZRANDMEMBER", "z", "5", "WITHSCORES"}));
    ASSERT_EQ(five.size(), 10u);
    std::set<std::string> distinct;
    for (size_t j = 0; j < five.size(); j += 2) {
      EXPECT_EQ(score_of[five[j]], five[j + 1]) << five[j];
      distinct.insert(five[j]);
    }
    EXPECT_EQ(distinct.size(), 5u);
    // Repeated picks: as many as asked.
    const std::vector<std::string> many =
        BulkTexts(c.Call({"ZRANDMEMBER", "z", "-30"}));
    EXPECT_EQ(many.size(), 30u);
    for (const std::string& m : many) EXPECT_TRUE(score_of.count(m)) << m;
  }
  EXPECT_EQ(seen.size(), score_of.size());
  // RESP3: [member, score] pairs.
  testing::Resp3Both(d);
  EXPECT_THAT(c.Call({"ZRANDMEMBER", "z", "-2", "WITHSCORES"}),
              ::testing::StartsWith("*2\r\n*2\r\n$"));
  // A huge repeated count is refused (see zset_commands.cc).
  EXPECT_EQ(c.Call({"ZRANDMEMBER", "z", "-10000001"}),
            "-ERR value is out of range\r\n");
}

TEST(TypedZsetCommandsTest, ScanSmallSet) {
  Differential d;
  AddVariedScores(d, "z");
  EXPECT_SAME_REPLY(d, {"ZADD", "z", "4611686018427387904", "p62",
                        "4611686018427388928", "above", "-4611686018427387904",
                        "n62", "9223372036854775807", "p63", "1e-320", "tiny"});
  AddOtherTypes(d);
  ExpectSameInBothProtocols(d,
                            {
                                {"ZSCAN", "z", "0"},
                                {"ZSCAN", "z", "5"},
                                {"ZSCAN", "z", "0", "COUNT", "1"},
                                {"ZSCAN", "z", "0", "MATCH", "*i*"},
                                {"ZSCAN", "z", "0", "MATCH", "*", "COUNT", "3"},
                                {"ZSCAN", "z", "0", "COUNT", "0"},
                                {"ZSCAN", "z", "0", "COUNT", "x"},
                                {"ZSCAN", "z", "0", "MATCH"},
                                {"ZSCAN", "z", "0", "TYPE", "zset"},
                                {"ZSCAN", "z", "x"},
                                {"ZSCAN", "z", "-1"},
                                {"ZSCAN", "nokey", "0", "bogus"},
                                {"ZSCAN", "nokey", "x"},
                                {"ZSCAN", "str", "0"},
                                {"ZSCAN", "set", "0", "bogus"},
                            });
}

TEST(TypedZsetCommandsTest, ScanBigSetPages) {
  Differential d;
  Argv add = {"ZADD", "big"};
  for (int i = 0; i < 300; ++i) {
    add.insert(add.end(), {absl::StrCat(i, ".25"), absl::StrCat("m", i)});
  }
  add.insert(add.end(), {"0.1", "tenth", "1e17", "e17"});
  EXPECT_SAME_REPLY(d, add);
  // A small set with a long member: Redis keeps it in its skiplist too.
  EXPECT_SAME_REPLY(d, {"ZADD", "long", "1", std::string(65, 'x'), "2", "y"});
  for (const Argv& options :
       std::vector<Argv>{{},
                         {"COUNT", "7"},
                         {"COUNT", "1000"},
                         {"MATCH", "m1*"},
                         {"MATCH", "*e*", "COUNT", "50"}}) {
    for (const char* key : {"big", "long"}) {
      const ScanWalk redis = WalkScan(d.redis(), "ZSCAN", key, options);
      const ScanWalk trackdb = WalkScan(d.trackdb(), "ZSCAN", key, options);
      EXPECT_EQ(trackdb.pairs, redis.pairs)
          << key << ::testing::PrintToString(options);
      EXPECT_EQ(trackdb.duplicates, 0u);
    }
  }
  // trackdb's pages hold COUNT members each (before MATCH).
  const ScanWalk pages = WalkScan(d.trackdb(), "ZSCAN", "big", {"COUNT", "7"});
  ASSERT_EQ(pages.page_sizes.size(), 44u);
  EXPECT_EQ(pages.page_sizes.back(), 302u - 43 * 7);
  // A cursor of another key, or one never issued, starts again.
  RawClient& c = d.trackdb();
  const Aggregate first = Split(c.Call({"ZSCAN", "big", "0", "COUNT", "5"}));
  ASSERT_EQ(first.elements.size(), 2u);
  const std::string cursor = BulkText(first.elements[0]);
  const Aggregate other =
      Split(c.Call({"ZSCAN", "long", cursor, "COUNT", "1"}));
  ASSERT_EQ(other.elements.size(), 2u);
  EXPECT_EQ(BulkTexts(other.elements[1]),
            (std::vector<std::string>{std::string(65, 'x'), "1"}));
  const Aggregate unknown =
      Split(c.Call({"ZSCAN", "big", "99999999", "COUNT", "5"}));
  ASSERT_EQ(unknown.elements.size(), 2u);
  EXPECT_EQ(unknown.elements[1], first.elements[1]);
}

// Sources for the set-algebra tests: zsets sharing members, a set, a GEO
// key, a zset with infinities.
void AddAlgebraSources(Differential& d) {
  EXPECT_SAME_REPLY(d, {"ZADD", "a", "1", "x", "2", "y", "3", "z", "0.1", "w"});
  EXPECT_SAME_REPLY(d,
                    {"ZADD", "b", "10", "y", "20", "z", "30", "v", "0.2", "w"});
  EXPECT_SAME_REPLY(d, {"ZADD", "c", "0.3", "w", "5", "z", "1", "u"});
  EXPECT_SAME_REPLY(d, {"ZADD", "inf", "inf", "x", "-inf", "y", "inf", "z"});
  EXPECT_SAME_REPLY(d, {"SADD", "set", "x", "y", "s"});
  AddGeo(d, "geo");
  EXPECT_SAME_REPLY(d, {"ZADD", "geozset", "1", "Palermo", "2", "Rome"});
}

TEST(TypedZsetCommandsTest, UnionInterDiff) {
  Differential d;
  AddAlgebraSources(d);
  std::vector<Argv> commands;
  for (const char* op : {"ZUNION", "ZINTER", "ZDIFF"}) {
    for (const Argv& keys : std::vector<Argv>{{"1", "a"},
                                              {"2", "a", "b"},
                                              {"3", "a", "b", "c"},
                                              {"3", "c", "b", "a"},
                                              {"3", "b", "a", "c"},
                                              {"3", "c", "a", "b"},
                                              {"2", "a", "a"},
                                              {"2", "a", "nokey"},
                                              {"2", "nokey", "a"},
                                              {"2", "a", "set"},
                                              {"2", "set", "a"},
                                              {"2", "a", "inf"},
                                              {"3", "inf", "inf", "a"},
                                              {"2", "geo", "geozset"},
                                              {"1", "geo"}}) {
      Argv argv = {op};
      argv.insert(argv.end(), keys.begin(), keys.end());
      commands.push_back(argv);
      argv.push_back("WITHSCORES");
      commands.push_back(argv);
    }
  }
  for (const char* op : {"ZUNION", "ZINTER"}) {
    for (const Argv& options :
         std::vector<Argv>{{"WEIGHTS", "2", "0.5", "-1"},
                           {"WEIGHTS", "0", "1", "1"},
                           {"WEIGHTS", "inf", "-inf", "1"},
                           {"AGGREGATE", "MIN"},
                           {"AGGREGATE", "max", "WEIGHTS", "1", "-1", "2"},
                           {"aggregate", "sum", "aggregate", "min"},
                           {"WITHSCORES", "WITHSCORES"}}) {
      for (const char* third : {"c", "inf"}) {
        Argv argv = {op, "3", "a", "b", third};
        argv.insert(argv.end(), options.begin(), options.end());
        argv.push_back("WITHSCORES");
        commands.push_back(argv);
      }
    }
  }
  ExpectSameInBothProtocols(d, commands);
}

TEST(TypedZsetCommandsTest, UnionInterDiffErrors) {
  Differential d;
  AddAlgebraSources(d);
  AddOtherTypes(d);
  testing::ExpectSameReplies(
      d, {
             {"ZUNION", "0", "a"},
             {"ZINTER", "-1", "a"},
             {"ZDIFF", "x", "a"},
             {"ZUNION", "3", "a", "b"},
             {"ZUNION", "2", "a", "str"},
             {"ZUNION", "2", "a", "str", "bogus"},
             {"ZINTER", "2", "hash", "a"},
             {"ZDIFF", "2", "a", "list"},
             {"ZUNION", "2", "a", "b", "bogus"},
             {"ZUNION", "2", "a", "b", "WEIGHTS", "1"},
             {"ZUNION", "2", "a", "b", "WEIGHTS", "1", "x"},
             {"ZUNION", "2", "a", "b", "WEIGHTS", "nan", "1"},
             {"ZUNION", "2", "a", "b", "AGGREGATE"},
             {"ZUNION", "2", "a", "b", "AGGREGATE", "avg"},
             {"ZINTER", "2", "a", "b", "WEIGHTS", "1", "2", "3"},
             {"ZDIFF", "2", "a", "b", "WEIGHTS", "1", "2"},
             {"ZDIFF", "2", "a", "b", "AGGREGATE", "SUM"},
             {"ZUNIONSTORE", "dst", "2", "a", "b", "WITHSCORES"},
             {"ZUNIONSTORE", "dst", "0", "a"},
             {"ZINTERSTORE", "dst", "2", "a", "str"},
             {"ZDIFFSTORE", "dst", "1", "a", "WEIGHTS", "1"},
             {"ZDIFFSTORE", "str", "1", "hash"},
             {"EXISTS", "dst"},
             {"GET", "str"},
         });
}

// STORE destinations of every kind: missing, a zset (a source too), a
// hash, a string, a GEO key; an empty result removes the destination; the
// destination's expiry goes with the old value.
TEST(TypedZsetCommandsTest, StoreReplacesAnyDestination) {
  Differential d;
  AddAlgebraSources(d);
  AddOtherTypes(d);
  AddGeo(d, "geodst");
  EXPECT_SAME_REPLY(d, {"ZADD", "ttl", "1", "m"});
  EXPECT_SAME_REPLY(d, {"EXPIRE", "ttl", "1000"});
  const std::vector<Argv> commands = {
      {"ZUNIONSTORE", "dst", "2", "a", "b"},
      {"ZRANGE", "dst", "0", "-1", "WITHSCORES"},
      {"ZINTERSTORE", "a", "2", "a", "b", "WEIGHTS", "2", "3"},
      {"ZRANGE", "a", "0", "-1", "WITHSCORES"},
      {"ZDIFFSTORE", "hash", "2", "b", "c"},
      {"TYPE", "hash"},
      {"ZRANGE", "hash", "0", "-1", "WITHSCORES"},
      {"ZUNIONSTORE", "str", "1", "set"},
      {"TYPE", "str"},
      {"ZRANGE", "str", "0", "-1", "WITHSCORES"},
      {"ZINTERSTORE", "geodst", "2", "b", "c", "AGGREGATE", "MAX"},
      {"TYPE", "geodst"},
      {"ZRANGE", "geodst", "0", "-1", "WITHSCORES"},
      {"ZUNIONSTORE", "geo", "2", "geo", "geozset"},
      {"TYPE", "geo"},
      {"ZRANGE", "geo", "0", "-1", "WITHSCORES"},
      {"ZUNIONSTORE", "ttl", "1", "c"},
      {"TTL", "ttl"},
      {"ZINTERSTORE", "list", "2", "a", "nokey"},
      {"EXISTS", "list"},
      {"ZDIFFSTORE", "dst", "2", "b", "b"},
      {"EXISTS", "dst"},
      {"SET", "str2", "v"},
      {"ZUNIONSTORE", "str2", "1", "nokey"},
      {"EXISTS", "str2"},
      {"ZUNIONSTORE", "set", "2", "set", "c"},
      {"TYPE", "set"},
      {"ZRANGE", "set", "0", "-1", "WITHSCORES"},
  };
  ExpectSameInBothProtocols(d, commands);
  // A GEO key replaced by a typed zset leaves no collection behind.
  EXPECT_EQ(
      *d.trackdb_server().store().CollectionSize(types::KeyName(0, "geodst")),
      0);
  EXPECT_SAME_REPLY(d, {"GEOPOS", "geodst", "Palermo"});
}

TEST(TypedZsetCommandsTest, RangeStore) {
  Differential d;
  AddVariedScores(d, "z");
  AddOtherTypes(d);
  AddGeo(d, "geo");
  ExpectSameInBothProtocols(
      d, {
             {"ZRANGESTORE", "dst", "z", "0", "-1"},
             {"ZRANGE", "dst", "0", "-1", "WITHSCORES"},
             {"ZRANGESTORE", "dst", "z", "1", "3", "REV"},
             {"ZRANGE", "dst", "0", "-1", "WITHSCORES"},
             {"ZRANGESTORE", "dst", "z", "(1", "inf", "BYSCORE", "LIMIT", "1",
              "3"},
             {"ZRANGE", "dst", "0", "-1", "WITHSCORES"},
             {"ZRANGESTORE", "dst", "z", "[c", "-", "BYLEX", "REV"},
             {"ZRANGE", "dst", "0", "-1", "WITHSCORES"},
             {"ZRANGESTORE", "str", "z", "0", "1"},
             {"TYPE", "str"},
             {"ZRANGESTORE", "hash", "geo", "0", "-1"},
             {"ZRANGE", "hash", "0", "-1", "WITHSCORES"},
             {"ZRANGESTORE", "geo", "geo", "1", "-1"},
             {"ZRANGE", "geo", "0", "-1", "WITHSCORES"},
             {"ZRANGESTORE", "z", "z", "0", "2"},
             {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
             {"ZRANGESTORE", "dst", "nokey", "0", "-1"},
             {"EXISTS", "dst"},
             {"ZRANGESTORE", "dst", "z", "5", "1"},
             {"ZRANGESTORE", "dst", "z", "0", "-1", "WITHSCORES"},
             {"ZRANGESTORE", "dst", "z", "0", "-1", "LIMIT", "0", "1"},
             {"ZRANGESTORE", "dst", "z", "x", "1"},
             {"ZRANGESTORE", "dst", "z", "x", "1", "BYSCORE"},
             {"ZRANGESTORE", "dst", "z", "x", "1", "BYLEX"},
             {"ZRANGESTORE", "dst", "list", "0", "-1"},
             {"ZRANGESTORE", "dst", "set", "0", "-1"},
             {"ZRANGESTORE", "list", "nokey", "0", "-1"},
             {"EXISTS", "list"},
         });
}

// Every sorted-set command against a string, a hash, a set and a list.
TEST(TypedZsetCommandsTest, WrongType) {
  Differential d;
  AddOtherTypes(d);
  EXPECT_SAME_REPLY(d, {"ZADD", "z", "1", "a"});
  std::vector<Argv> commands;
  for (const char* k : {"str", "hash", "set", "list"}) {
    const std::string key = k;
    const std::vector<Argv> per_key = {
        {"ZADD", key, "1", "a"},
        {"ZADD", key, "XX", "1", "a"},
        {"ZINCRBY", key, "1", "a"},
        {"ZCARD", key},
        {"ZSCORE", key, "a"},
        {"ZMSCORE", key, "a", "b"},
        {"ZRANK", key, "a"},
        {"ZREVRANK", key, "a"},
        {"ZCOUNT", key, "0", "1"},
        {"ZREM", key, "a"},
        {"ZRANGE", key, "0", "-1"},
        {"ZRANGEBYLEX", key, "-", "+"},
        {"ZPOPMIN", key},
        {"ZPOPMAX", key, "2"},
        {"ZRANDMEMBER", key},
        {"ZRANDMEMBER", key, "2"},
        {"ZREMRANGEBYSCORE", key, "0", "1"},
        {"ZREMRANGEBYRANK", key, "0", "1"},
        {"ZREMRANGEBYLEX", key, "-", "+"},
        {"ZSCAN", key, "0"},
        {"ZRANGESTORE", "dst", key, "0", "-1"},
        {"ZINTER", "2", "z", key},
        {"ZUNIONSTORE", "dst", "2", key, "z"},
    };
    commands.insert(commands.end(), per_key.begin(), per_key.end());
  }
  commands.push_back({"TYPE", "str"});
  commands.push_back({"HGETALL", "hash"});
  commands.push_back({"LRANGE", "list", "0", "-1"});
  testing::ExpectSameReplies(d, commands);
}

// GEO keys: the commands treat them as Redis treats any zset (ZADD and
// ZINCRBY on them: geo_zadd_test.cc).
TEST(TypedZsetCommandsTest, GeoKeys) {
  Differential d;
  AddGeo(d, "geo");
  ExpectSameInBothProtocols(d, {
                                   {"ZRANGE", "geo", "0", "-1", "WITHSCORES"},
                                   {"ZSCAN", "geo", "0"},
                                   {"ZSCAN", "geo", "0", "MATCH", "P*"},
                                   {"ZRANDMEMBER", "geo", "0"},
                                   {"ZPOPMIN", "geo"},
                                   {"ZRANGE", "geo", "0", "-1", "WITHSCORES"},
                               });
  EXPECT_SAME_UNORDERED(d, 2, {"ZRANDMEMBER", "geo", "10", "WITHSCORES"});
  EXPECT_SAME_REPLY(d, {"ZPOPMAX", "geo", "5"});
  AddGeo(d, "geo");
  testing::ExpectSameReplies(
      d, {
             {"ZREMRANGEBYRANK", "geo", "1", "1"},
             {"ZRANGE", "geo", "0", "-1"},
             {"ZREMRANGEBYSCORE", "geo", "-inf", "3000000000000000"},
             {"ZRANGE", "geo", "0", "-1"},
             {"ZREMRANGEBYLEX", "geo", "-", "+"},
             {"EXISTS", "geo"},
         });
}

// A random sequence of writes and reads over a few keys and members, with
// replies compared after every command.
class Workload {
 public:
  explicit Workload(uint32_t seed) : rng_(seed) {}

  Argv Next() {
    const std::string key = Pick({"k0", "k1", "k2"});
    switch (Int(0, 15)) {
      case 0:
      case 1:
        return Add(key);
      case 2:
        return {"ZINCRBY", key, Score(), Member()};
      case 3:
        return {"ZREM", key, Member(), Member()};
      case 4:
        return {Pick({"ZPOPMIN", "ZPOPMAX"}), key, absl::StrCat(Int(0, 4))};
      case 5:
        return {"ZREMRANGEBYSCORE", key, Bound(), Bound()};
      case 6:
        return {"ZREMRANGEBYRANK", key, Rank(), Rank()};
      case 7:
        return {"ZREMRANGEBYLEX", key, Lex(), Lex()};
      case 8:
        return {"ZRANGE", key, Rank(), Rank(), "WITHSCORES"};
      case 9:
        return {"ZRANGE",
                key,
                Bound(),
                Bound(),
                "BYSCORE",
                "LIMIT",
                absl::StrCat(Int(0, 3)),
                absl::StrCat(Int(-1, 5))};
      case 10:
        return {"ZRANGE", key, Lex(), Lex(), "BYLEX", "REV"};
      case 11:
        return {Pick({"ZRANK", "ZREVRANK", "ZSCORE"}), key, Member()};
      case 12:
        return {"ZCOUNT", key, Bound(), Bound()};
      case 13:
        return {Pick({"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"}), key, "2",
                Pick({"k0", "k1", "k2"}), Pick({"k0", "k1", "k2"})};
      case 14:
        return {"ZRANGESTORE", key, Pick({"k0", "k1", "k2"}), Rank(), Rank()};
      default:
        return {"ZCARD", key};
    }
  }

 private:
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<>(lo, hi)(rng_);
  }
  std::string Pick(std::initializer_list<const char*> from) {
    return *(from.begin() + Int(0, static_cast<int>(from.size()) - 1));
  }
  std::string Member() {
    return Pick({"a", "b", "c", "d", "e", "aa", "ab", "", "\xff", "m"});
  }
  std::string Score() {
    return Pick({"0", "1", "-1", "2.5", "1", "1", "0.1", "inf", "-inf", "3"});
  }
  std::string Bound() {
    return Pick({"-inf", "+inf", "0", "1", "(1", "2.5", "(0", "-1", "3"});
  }
  std::string Rank() { return absl::StrCat(Int(-6, 6)); }
  std::string Lex() {
    return Pick({"-", "+", "[a", "(a", "[b", "(c", "[aa", "[", "(e"});
  }
  Argv Add(const std::string& key) {
    Argv argv = {"ZADD", key};
    for (const char* opt : {"NX", "XX", "GT", "LT", "CH"}) {
      if (Int(0, 5) == 0) argv.push_back(opt);
    }
    for (int n = Int(1, 3); n > 0; --n) {
      argv.push_back(Score());
      argv.push_back(Member());
    }
    return argv;
  }

  std::mt19937 rng_;
};

TEST(TypedZsetCommandsTest, RandomWorkload) {
  Differential d;
  Workload w(20260317);
  for (int i = 0; i < 3000; ++i) {
    const Argv argv = w.Next();
    const auto r = d.Call(argv);
    ASSERT_EQ(r.trackdb, r.redis)
        << "step " << i << ": " << ::testing::PrintToString(argv);
    if (i % 50 == 0) {
      for (const char* key : {"k0", "k1", "k2"}) {
        EXPECT_SAME_REPLY(d, {"ZRANGE", key, "0", "-1", "WITHSCORES"});
        EXPECT_SAME_REPLY(d, {"ZCARD", key});
      }
    }
  }
}

}  // namespace
}  // namespace trackdb::resp
