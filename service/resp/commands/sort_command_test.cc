// SORT and SORT_RO, compared byte for byte with a real redis-server 7.0
// started beside trackdb's RESP server: numeric and ALPHA orders of lists,
// sets, sorted sets and GEO keys, LIMIT's clamping, BY and GET patterns
// over strings and hash fields, STORE over keys of every type, the errors
// in Redis's order, and RESP3's nulls.
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using Argv = std::vector<std::string>;

TEST(SortCommandTest, NumbersAndAlpha) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             {"RPUSH", "l", "3", "1.5", "-2", "10", "1e1", "0x10", " 5", "-inf",
              "inf", "10"},
             {"SORT", "l"},
             {"SORT", "l", "DESC"},
             {"SORT", "l", "ALPHA"},
             {"SORT", "l", "ALPHA", "DESC"},
             {"SORT", "l", "desc", "asc"},
             {"SORT_RO", "l"},
             {"RPUSH", "l", "x"},
             {"SORT", "l"},
             {"SORT", "l", "ALPHA"},
             {"RPUSH", "n", "nan"},
             {"SORT", "n"},
             {"RPUSH", "e", ""},
             {"SORT", "e"},
             {"SADD", "s", "b", "a", "10", "9", "c"},
             {"SORT", "s", "ALPHA"},
             {"SORT", "s", "ALPHA", "DESC", "LIMIT", "1", "2"},
             {"SORT", "s"},
             {"SREM", "s", "a", "b", "c"},
             {"SORT", "s"},
             {"ZADD", "z", "3", "a", "1", "c", "2", "b"},
             {"SORT", "z", "ALPHA"},
             {"SORT", "z", "BY", "nosort"},
             {"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "5"},
             {"SORT", "z"},
             {"SORT", "missing"},
             {"SORT", "missing", "ALPHA", "LIMIT", "0", "1"},
         });
}

// A weight out of a double's range is refused too. Last: Redis 7.0 does
// not clear errno before its strtod, so after an ERANGE its later numeric
// SORTs in the same process fail until something else resets errno.
TEST(SortCommandTest, OutOfRangeWeight) {
  Differential d;
  testing::ExpectSameReplies(d, {{"RPUSH", "r", "1", "1e400"}, {"SORT", "r"}});
}

TEST(SortCommandTest, LimitClamps) {
  Differential d;
  testing::ExpectSameReplies(d, {{"RPUSH", "l", "5", "3", "4", "1", "2"}});
  const std::vector<std::pair<std::string, std::string>> limits = {
      {"0", "2"},   {"1", "-1"}, {"-5", "2"},  {"3", "100"},
      {"5", "1"},   {"9", "1"},  {"0", "0"},   {"2", "0"},
      {"-1", "-1"}, {"4", "1"},  {"0", "-10"},
  };
  for (const auto& [start, count] : limits) {
    EXPECT_SAME_REPLY(d, {"SORT", "l", "LIMIT", start, count});
    EXPECT_SAME_REPLY(d, {"SORT", "l", "LIMIT", start, count, "DESC"});
    EXPECT_SAME_REPLY(d, {"SORT", "l", "BY", "nosort", "LIMIT", start, count});
    EXPECT_SAME_REPLY(
        d, {"SORT", "l", "BY", "nosort", "DESC", "LIMIT", start, count});
  }
}

TEST(SortCommandTest, ByAndGetPatterns) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             {"RPUSH", "ids", "1", "2", "3", "4"},
             {"MSET", "w_1", "30", "w_2", "10", "w_3", "20", "name_1", "ann",
              "name_2", "bob", "name_4", "dan"},
             {"HSET", "h_1", "age", "7", "city", "rome"},
             {"HSET", "h_2", "age", "3"},
             {"HSET", "h_3", "age", "5", "city", "oslo"},
             {"SORT", "ids", "BY", "w_*"},
             {"SORT", "ids", "BY", "w_*", "DESC"},
             {"SORT", "ids", "BY", "w_*", "GET", "#", "GET", "name_*"},
             {"SORT", "ids", "BY", "h_*->age", "GET", "h_*->city", "GET", "#"},
             {"SORT", "ids", "BY", "w_*", "ALPHA", "LIMIT", "1", "2"},
             {"SORT", "ids", "BY", "name_*", "ALPHA"},
             {"SORT", "ids", "BY", "name_*", "ALPHA", "DESC"},
             {"SORT", "ids", "BY", "name_*"},
             {"SORT", "ids", "GET", "name_*", "GET", "nostar", "GET", "h_*->"},
             {"SORT", "ids", "GET", "w_*->age"},
             {"SORT", "ids", "GET", "h_*"},
             {"SORT", "ids", "BY", "nosort", "GET", "name_*"},
             {"SORT", "ids", "BY", "nosort", "DESC", "GET", "#"},
             {"SORT_RO", "ids", "BY", "w_*", "GET", "name_*"},
             {"SET", "w_4", "heavy"},
             {"SORT", "ids", "BY", "w_*"},
             {"SORT", "ids", "BY", "w_*", "ALPHA"},
             {"SORT", "ids", "BY", "*", "GET", "name_*"},
             {"SORT", "ids", "BY", "w_*", "STORE", "out", "GET", "name_*"},
             {"LRANGE", "out", "0", "-1"},
             {"TYPE", "out"},
         });
}

// Pattern keys are read a chunk at a time: a key of 2,500 elements sorts
// by weights and gets fields across the chunks' seams as Redis does.
TEST(SortCommandTest, ManyPatternKeys) {
  Differential d;
  Argv ids = {"RPUSH", "ids"};
  Argv weights = {"MSET"};
  for (int i = 0; i < 2500; ++i) {
    ids.push_back(std::to_string(i));
    weights.push_back("w_" + std::to_string(i));
    weights.push_back(std::to_string((i * 7919) % 2503));
    if (i % 3 == 0) {
      EXPECT_SAME_REPLY(
          d, {"HSET", "h_" + std::to_string(i), "f", "v" + std::to_string(i)});
    }
  }
  testing::ExpectSameReplies(d, {ids, weights});
  testing::ExpectSameReplies(
      d, {
             {"SORT", "ids", "BY", "w_*", "LIMIT", "1000", "60", "GET", "#",
              "GET", "h_*->f"},
             {"SORT", "ids", "BY", "w_*", "DESC", "GET", "w_*"},
             {"SORT", "ids", "BY", "w_*", "ALPHA", "STORE", "out"},
             {"LRANGE", "out", "0", "-1"},
         });
}

TEST(SortCommandTest, StoreReplacesAnyType) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             {"RPUSH", "l", "2", "3", "1"},
             {"SET", "dst", "string"},
             {"EXPIRE", "dst", "100"},
             {"SORT", "l", "STORE", "dst"},
             {"TYPE", "dst"},
             {"TTL", "dst"},
             {"LRANGE", "dst", "0", "-1"},
             {"HSET", "dst", "f", "v"},
             {"SORT", "l", "DESC", "STORE", "dst"},
             {"LRANGE", "dst", "0", "-1"},
             {"GEOADD", "dst", "13.4", "38.1", "car"},
             {"SORT", "l", "LIMIT", "1", "1", "STORE", "dst"},
             {"LRANGE", "dst", "0", "-1"},
             {"SORT", "l", "STORE", "l"},
             {"LRANGE", "l", "0", "-1"},
             {"SORT", "l", "LIMIT", "5", "1", "STORE", "dst"},
             {"EXISTS", "dst"},
             {"SORT", "missing", "STORE", "l"},
             {"EXISTS", "l"},
             {"SADD", "s", "b", "c", "a"},
             {"SORT", "s", "BY", "nosort", "STORE", "dst"},
             {"LRANGE", "dst", "0", "-1"},
             {"SORT", "s", "BY", "nosort", "GET", "#", "STORE", "dst"},
             {"LRANGE", "dst", "0", "-1"},
             {"SORT", "s", "ALPHA", "GET", "x_*", "GET", "#", "STORE", "dst"},
             {"LRANGE", "dst", "0", "-1"},
             {"SORT", "s", "STORE", "a", "STORE", "b"},
             {"EXISTS", "a", "b"},
         });
}

// A list stored by SORT serves a BLPOP waiting on it at once, as a push
// would, in both of SORT's paths (one transaction, or steps). (A waiter
// holds a worker thread, and SORT runs on one: the server needs two.)
TEST(SortCommandTest, StoreWakesABlockedPop) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_worker_threads(2);
  Differential d(config);
  testing::ExpectSameReplies(d,
                             {{"RPUSH", "l", "2", "1"}, {"SET", "w_1", "5"}});
  for (const Argv& sort : {Argv{"SORT", "l", "STORE", "q"},
                           Argv{"SORT", "l", "BY", "w_*", "STORE", "q"}}) {
    testing::ExpectWakesBlockedPop(d, {"BLPOP", "q", "10"}, sort);
    EXPECT_SAME_REPLY(d, {"LRANGE", "q", "0", "-1"});
    EXPECT_SAME_REPLY(d, {"DEL", "q"});
  }
}

TEST(SortCommandTest, Errors) {
  Differential d;
  testing::ExpectSameReplies(d, {
                                    {"SORT"},
                                    {"SORT", "l", "NOPE"},
                                    {"SORT", "l", "LIMIT", "1"},
                                    {"SORT", "l", "LIMIT", "x", "1"},
                                    {"SORT", "l", "LIMIT", "1", "1.5"},
                                    {"SORT", "l", "BY"},
                                    {"SORT", "l", "GET"},
                                    {"SORT", "l", "STORE"},
                                    {"SORT_RO", "l", "STORE", "dst"},
                                    {"SET", "str", "x"},
                                    {"SORT", "str"},
                                    {"SORT", "str", "NOPE"},
                                    {"SORT", "str", "LIMIT", "a", "b"},
                                    {"HSET", "h", "f", "v"},
                                    {"SORT", "h", "STORE", "dst"},
                                    {"EXISTS", "dst"},
                                    {"RPUSH", "l", "a"},
                                    {"SORT", "l", "STORE", "dst"},
                                    {"EXISTS", "dst"},
                                    {"SORT", "l", "BY", "w_*", "STORE", "dst"},
                                    {"LRANGE", "dst", "0", "-1"},
                                });
}

TEST(SortCommandTest, GeoKeysSortAsSortedSets) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             {"GEOADD", "g", "13.361389", "38.115556", "palermo", "15.087269",
              "37.502669", "catania", "2.35", "48.85", "paris"},
             {"SORT", "g", "ALPHA"},
             {"SORT", "g", "BY", "nosort"},
             {"SORT", "g", "BY", "nosort", "DESC", "LIMIT", "0", "2"},
             {"SORT", "g"},
             {"SORT", "g", "ALPHA", "STORE", "names"},
             {"LRANGE", "names", "0", "-1"},
             {"SORT", "names", "ALPHA", "DESC", "STORE", "g"},
             {"TYPE", "g"},
             {"LRANGE", "g", "0", "-1"},
         });
}

TEST(SortCommandTest, Resp3Nulls) {
  Differential d;
  testing::Resp3Both(d);
  testing::ExpectSameReplies(d, {
                                    {"RPUSH", "l", "1", "2"},
                                    {"SET", "v_1", "one"},
                                    {"SORT", "l", "GET", "v_*", "GET", "#"},
                                    {"SORT", "missing"},
                                });
}

}  // namespace
}  // namespace trackdb::resp
