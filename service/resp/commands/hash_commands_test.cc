// Hash commands, compared byte for byte with a real redis-server 7.0
// started beside trackdb's RESP server: every command, its options and its
// errors, WRONGTYPE against strings and GEO keys, RESP3, and a randomized
// workload. Replies whose order Redis leaves open (HGETALL, HKEYS, HVALS,
// HSCAN, HRANDFIELD) are compared with their elements sorted; random picks
// are checked for what they must hold and for their spread.
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/reply_helpers.h"
#include "service/resp/testing/resp_test_client.h"

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

// Makes `key` a GEO key on both servers.
void AddGeo(Differential& d, const std::string& key) {
  EXPECT_SAME_REPLY(d, {"GEOADD", key, "13.361389", "38.115556", "Palermo"});
}

// HSET `key` with `n` fields f<i> = v<i> on both servers.
void FillHash(Differential& d, const std::string& key, int n) {
  std::vector<std::string> argv = {"HSET", key};
  for (int i = 0; i < n; ++i) {
    argv.push_back(absl::StrCat("f", i));
    argv.push_back(absl::StrCat("v", i));
  }
  EXPECT_SAME_REPLY(d, argv);
}

TEST(HashCommandsTest, SetGetAndCounts) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HGET", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "a", "1"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "a", "2", "b", "3"});
  // A field given twice counts once, and its last value stays.
  EXPECT_SAME_REPLY(d, {"HSET", "h", "c", "x", "c", "y", "d", "z"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "c"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "nosuch"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "a", "1", "b"});
  EXPECT_SAME_REPLY(d, {"hset", "h", "a", "1", "b"});
  EXPECT_SAME_REPLY(d, {"HMSET", "h", "a", "1", "b"});
  EXPECT_SAME_REPLY(d, {"HMSET", "h", "a", "9", "e", "5"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HMGET", "h", "a", "nosuch", "e", "a"});
  EXPECT_SAME_REPLY(d, {"HMGET", "missing", "a", "b"});
  EXPECT_SAME_REPLY(d, {"HMGET", "h"});
  EXPECT_SAME_REPLY(d, {"HGET", "h"});
  const std::string binary("\0\r\n\xff x", 6);
  EXPECT_SAME_REPLY(d, {"HSET", binary, binary, binary, "", ""});
  EXPECT_SAME_REPLY(d, {"HGET", binary, binary});
  EXPECT_SAME_REPLY(d, {"HGET", binary, ""});
  EXPECT_SAME_REPLY(d, {"HSTRLEN", binary, binary});
  EXPECT_SAME_REPLY(d, {"HSTRLEN", binary, ""});
  EXPECT_SAME_REPLY(d, {"HLEN", binary});
  EXPECT_SAME_REPLY(d, {"HSET", "big", "f", std::string(100000, 'b')});
  EXPECT_SAME_REPLY(d, {"HGET", "big", "f"});
  EXPECT_SAME_REPLY(d, {"HSTRLEN", "big", "f"});
  EXPECT_SAME_REPLY(d, {"TYPE", "h"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "h"});
}

TEST(HashCommandsTest, SetnxExistsStrlen) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HSETNX", "h", "a", "1"});
  EXPECT_SAME_REPLY(d, {"HSETNX", "h", "a", "2"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HSETNX", "h", "b", "22"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HSETNX", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HEXISTS", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HEXISTS", "h", "z"});
  EXPECT_SAME_REPLY(d, {"HEXISTS", "missing", "a"});
  EXPECT_SAME_REPLY(d, {"HEXISTS", "h"});
  EXPECT_SAME_REPLY(d, {"HSTRLEN", "h", "b"});
  EXPECT_SAME_REPLY(d, {"HSTRLEN", "h", "z"});
  EXPECT_SAME_REPLY(d, {"HSTRLEN", "missing", "z"});
  EXPECT_SAME_REPLY(d, {"HSTRLEN", "h", "a", "b"});
  EXPECT_SAME_REPLY(d, {"HLEN", "missing"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h", "a"});
}

TEST(HashCommandsTest, DelCountsAndRemovesTheEmptiedKey) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HDEL", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "a", "1", "b", "2", "c", "3"});
  EXPECT_SAME_REPLY(d, {"HDEL", "h", "a", "nosuch", "a"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HDEL", "h", "nosuch"});
  EXPECT_SAME_REPLY(d, {"HDEL", "h", "b", "c", "b", "zz"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "h"});
  EXPECT_SAME_REPLY(d, {"TYPE", "h"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HGETALL", "h"});
  // The key is gone, not an empty hash: a string may take its name.
  EXPECT_SAME_REPLY(d, {"SET", "h", "v"});
  EXPECT_SAME_REPLY(d, {"GET", "h"});
  EXPECT_SAME_REPLY(d, {"DEL", "h"});
  // A new hash under the name starts from nothing.
  EXPECT_SAME_REPLY(d, {"HSET", "h", "x", "1"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HGETALL", "h"});
  EXPECT_SAME_REPLY(d, {"DEL", "h"});
  EXPECT_SAME_REPLY(d, {"HGETALL", "h"});
  EXPECT_SAME_REPLY(d, {"HDEL", "h"});
}

TEST(HashCommandsTest, IncrBy) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "n", "5"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "n", "-12"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "n"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "n", "0"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "n", "x"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "n", "1.5"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "n", " 1"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "n", "+1"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "n", "9223372036854775808"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "missing", "n", "x"});
  for (const char* bad :
       {"abc", "", "1.0", " 1", "01", "-0", "1e3", "99999999999999999999"}) {
    EXPECT_SAME_REPLY(d, {"HSET", "h", "bad", bad});
    EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "bad", "1"});
  }
  EXPECT_SAME_REPLY(d, {"HSET", "h", "max", "9223372036854775807"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "max", "1"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "max", "-9223372036854775808"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "min", "-9223372036854775808"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "min", "-1"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "min", "9223372036854775807"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "min"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "n"});
}

TEST(HashCommandsTest, IncrByFloat) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", "10.5"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", "0.1"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", "-5.0e3"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "f"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "g", "0.1"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "g", "0.2"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "g", "1e-20"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "g", "0x10"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "i", "7"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "i", "3"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "i", "1"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "z", "-0"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "z", "-0"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "new0", "-0"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", "x"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", ""});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", " 1"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", "nan"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", "inf"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", "-infinity"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", "1e5000"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f", std::string(6000, '1')});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "missing", "f", "inf"});
  for (const char* bad : {"abc", "", " 1", "1 ", "nan", "1e5000"}) {
    EXPECT_SAME_REPLY(d, {"HSET", "h", "bad", bad});
    EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "bad", "1"});
  }
  EXPECT_SAME_REPLY(d, {"HSET", "h", "inf", "inf"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "inf", "1"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "huge", "1e308"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "huge", "1e308"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "huge", "1e4000"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "huge", "1e4000"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "huge", "-1e4930"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "huge"});
  EXPECT_SAME_REPLY(d, {"HLEN", "h"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "f"});
}

// Every command against a string and a GEO key: WRONGTYPE, after the
// argument checks Redis makes first; nothing written.
TEST(HashCommandsTest, WrongType) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SET", "s", "v"});
  AddGeo(d, "g");
  for (const std::string key : {"s", "g"}) {
    const std::vector<std::vector<std::string>> calls = {
        {"HSET", key, "f", "v"},
        {"HSET", key, "f", "v", "g"},
        {"HMSET", key, "f", "v"},
        {"HSETNX", key, "f", "v"},
        {"HGET", key, "f"},
        {"HMGET", key, "f", "g"},
        {"HDEL", key, "f"},
        {"HEXISTS", key, "f"},
        {"HLEN", key},
        {"HSTRLEN", key, "f"},
        {"HKEYS", key},
        {"HVALS", key},
        {"HGETALL", key},
        {"HINCRBY", key, "f", "1"},
        {"HINCRBY", key, "f", "x"},
        {"HINCRBYFLOAT", key, "f", "1"},
        {"HINCRBYFLOAT", key, "f", "x"},
        {"HINCRBYFLOAT", key, "f", "inf"},
        {"HRANDFIELD", key},
        {"HRANDFIELD", key, "2"},
        {"HRANDFIELD", key, "0"},
        {"HRANDFIELD", key, "-2", "WITHVALUES"},
        {"HRANDFIELD", key, "x"},
        {"HRANDFIELD", key, "1", "bogus"},
        {"HSCAN", key, "0"},
        {"HSCAN", key, "0", "COUNT", "0"},
        {"HSCAN", key, "x"},
    };
    for (const auto& argv : calls) EXPECT_SAME_REPLY(d, argv);
  }
  EXPECT_SAME_REPLY(d, {"GET", "s"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "g", "Palermo"});
  // A hash is the wrong type for string and GEO commands.
  EXPECT_SAME_REPLY(d, {"HSET", "h", "f", "v"});
  EXPECT_SAME_REPLY(d, {"GET", "h"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "h", "1", "2", "m"});
  EXPECT_SAME_REPLY(d, {"HGETALL", "h"});
}

TEST(HashCommandsTest, WholeHashReads) {
  Differential d;
  for (const char* cmd : {"HKEYS", "HVALS", "HGETALL"}) {
    EXPECT_SAME_REPLY(d, {cmd, "missing"});
    EXPECT_SAME_REPLY(d, {cmd, "missing", "x"});
  }
  EXPECT_SAME_REPLY(d, {"HSET", "h", "b", "2", "a", "1", "c", "",
                        std::string("\0z", 2), "3"});
  EXPECT_SAME_UNORDERED(d, 1, {"HKEYS", "h"});
  EXPECT_SAME_UNORDERED(d, 1, {"HVALS", "h"});
  EXPECT_SAME_UNORDERED(d, 2, {"HGETALL", "h"});
  FillHash(d, "big", 300);
  EXPECT_SAME_UNORDERED(d, 1, {"HKEYS", "big"});
  EXPECT_SAME_UNORDERED(d, 1, {"HVALS", "big"});
  EXPECT_SAME_UNORDERED(d, 2, {"HGETALL", "big"});
  // Fields come out in byte order.
  EXPECT_EQ(d.trackdb().Call({"HKEYS", "h"}),
            absl::StrCat("*4\r\n$2\r\n", std::string("\0z", 2),
                         "\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"));
}

TEST(HashCommandsTest, Resp3) {
  Differential d;
  testing::Resp3Both(d);
  EXPECT_SAME_REPLY(d, {"HGET", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HMGET", "h", "a", "b"});
  EXPECT_SAME_REPLY(d, {"HGETALL", "h"});
  EXPECT_SAME_REPLY(d, {"HKEYS", "h"});
  EXPECT_SAME_REPLY(d, {"HVALS", "h"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "h"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "h", "3", "WITHVALUES"});
  EXPECT_SAME_REPLY(d, {"HSCAN", "h", "0"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "a", "1", "b", "2"});
  EXPECT_SAME_REPLY(d, {"HMSET", "h", "c", "3"});
  EXPECT_SAME_REPLY(d, {"HMGET", "h", "a", "x", "b"});
  EXPECT_SAME_REPLY(d, {"HGET", "h", "x"});
  EXPECT_SAME_UNORDERED(d, 2, {"HGETALL", "h"});
  EXPECT_SAME_UNORDERED(d, 1, {"HKEYS", "h"});
  EXPECT_SAME_UNORDERED(d, 1, {"HVALS", "h"});
  EXPECT_SAME_REPLY(d, {"HINCRBYFLOAT", "h", "a", "1.5"});
  EXPECT_SAME_REPLY(d, {"HINCRBY", "h", "b", "1"});
  EXPECT_SAME_REPLY(d, {"HEXISTS", "h", "a"});
  EXPECT_SAME_REPLY(d, {"HSTRLEN", "h", "a"});
  EXPECT_SAME_UNORDERED(d, 1, {"HRANDFIELD", "h", "5", "WITHVALUES"});
  EXPECT_SAME_UNORDERED(d, 1, {"HRANDFIELD", "h", "3"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "0"});
  EXPECT_SAME_REPLY(d, {"HSET", "one", "f", "v"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "one"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "one", "1", "WITHVALUES"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "one", "-3", "WITHVALUES"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "one", "-2"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "one", "0", "WITHVALUES"});
}

// Arguments and the cases whose reply does not depend on the draw.
TEST(HashCommandsTest, RandFieldArgumentsAndWholeReplies) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "missing"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "missing", "5"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "missing", "-5", "WITHVALUES"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "missing", "5", "bogus"});
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "missing", "-10000001"});
  EXPECT_SAME_REPLY(d, {"HSET", "one", "f", "v"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "a", "1", "b", "2", "c", "3"});
  const std::vector<std::vector<std::string>> calls = {
      {"HRANDFIELD", "one"},
      {"HRANDFIELD", "one", "1"},
      {"HRANDFIELD", "one", "-1"},
      {"HRANDFIELD", "one", "-4"},
      {"HRANDFIELD", "one", "-4", "WITHVALUES"},
      {"HRANDFIELD", "one", "-4", "withvalues"},
      {"HRANDFIELD", "one", "7", "WITHVALUES"},
      {"HRANDFIELD", "h", "0"},
      {"HRANDFIELD", "h", "0", "WITHVALUES"},
      {"HRANDFIELD", "h", "x"},
      {"HRANDFIELD", "h", "1.5"},
      {"HRANDFIELD", "h", ""},
      {"HRANDFIELD", "h", "x", "bogus"},
      {"HRANDFIELD", "h", "1", "bogus"},
      {"HRANDFIELD", "h", "1", "WITHVALUES", "x"},
      {"HRANDFIELD", "one", "1", std::string("WITHVALUES\0x", 12)},
      {"HRANDFIELD", "h", "-9223372036854775808"},
      {"HRANDFIELD", "h", "9223372036854775808"},
      {"HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES"},
      {"HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"},
      {"HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"},
      {"HRANDFIELD", "h", "4611686018427387903", "WITHVALUES"},
  };
  for (const auto& argv : calls) EXPECT_SAME_UNORDERED(d, 2, argv);
  EXPECT_SAME_UNORDERED(d, 1, {"HRANDFIELD", "h", "3"});
  EXPECT_SAME_UNORDERED(d, 1, {"HRANDFIELD", "h", "9223372036854775807"});
  EXPECT_SAME_UNORDERED(d, 2, {"HRANDFIELD", "h", "4", "WITHVALUES"});
  FillHash(d, "big", 200);
  EXPECT_SAME_UNORDERED(d, 2, {"HRANDFIELD", "big", "200", "WITHVALUES"});
  EXPECT_SAME_UNORDERED(d, 1, {"HRANDFIELD", "big", "1000"});
}

// What random picks must hold: distinct fields for a positive count, the
// asked number for a negative one, values that go with their fields, and
// every field as likely as any other.
TEST(HashCommandsTest, RandFieldPicks) {
  Differential d;
  FillHash(d, "h", 5);
  RawClient& c = d.trackdb();
  std::map<std::string, int> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::vector<std::string> picked =
        BulkTexts(c.Call({"HRANDFIELD", "h", "2"}));
    ASSERT_EQ(picked.size(), 2u);
    EXPECT_NE(picked[0], picked[1]);
    for (const std::string& f : picked) ++seen[f];
  }
  ASSERT_EQ(seen.size(), 5u);
  // Each field: 400 expected, a standard deviation of 15.5.
  for (const auto& [field, n] : seen) {
    EXPECT_GT(n, 300) << field;
    EXPECT_LT(n, 500) << field;
  }
  seen.clear();
  const std::vector<std::string> repeated =
      BulkTexts(c.Call({"HRANDFIELD", "h", "-30000"}));
  ASSERT_EQ(repeated.size(), 30000u);
  for (const std::string& f : repeated) ++seen[f];
  ASSERT_EQ(seen.size(), 5u);
  // 6000 expected, a standard deviation of 69.
  for (const auto& [field, n] : seen) {
    EXPECT_GT(n, 5500) << field;
    EXPECT_LT(n, 6500) << field;
  }
  seen.clear();
  for (int i = 0; i < 1000; ++i) {
    ++seen[BulkText(c.Call({"HRANDFIELD", "h"}))];
  }
  ASSERT_EQ(seen.size(), 5u);
  for (const auto& [field, n] : seen) {
    EXPECT_GT(n, 120) << field;  // 200 expected, deviation 12.6
    EXPECT_LT(n, 280) << field;
  }
  const std::vector<std::string> pairs =
      BulkTexts(c.Call({"HRANDFIELD", "h", "-50", "WITHVALUES"}));
  ASSERT_EQ(pairs.size(), 100u);
  for (size_t i = 0; i < pairs.size(); i += 2) {
    EXPECT_EQ("v" + pairs[i].substr(1), pairs[i + 1]);
  }
  const std::vector<std::string> some =
      BulkTexts(c.Call({"HRANDFIELD", "h", "4", "WITHVALUES"}));
  ASSERT_EQ(some.size(), 8u);
  std::set<std::string> fields;
  for (size_t i = 0; i < some.size(); i += 2) {
    fields.insert(some[i]);
    EXPECT_EQ("v" + some[i].substr(1), some[i + 1]);
  }
  EXPECT_EQ(fields.size(), 4u);
}

// On purpose unlike Redis: a negative count over 10 million picks from a
// non-empty hash is refused rather than built in memory.
TEST(HashCommandsTest, RandFieldRefusesHugeRepeatedCounts) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HSET", "h", "a", "1"});
  EXPECT_EQ(d.trackdb().Call({"HRANDFIELD", "h", "-10000001"}),
            "-ERR value is out of range\r\n");
  EXPECT_EQ(d.trackdb().Call({"HRANDFIELD", "h", "-9223372036854775807"}),
            "-ERR value is out of range\r\n");
  EXPECT_EQ(d.trackdb().Call(
                {"HRANDFIELD", "h", "-4611686018427387903", "WITHVALUES"}),
            "-ERR value is out of range\r\n");
  EXPECT_SAME_REPLY(d, {"HRANDFIELD", "h", "10000001"});
}

TEST(HashCommandsTest, ScanSmallHash) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HSCAN", "missing", "0"});
  EXPECT_SAME_REPLY(d, {"HSCAN", "missing", "0", "COUNT", "0"});
  EXPECT_SAME_REPLY(d, {"HSCAN", "missing", "0", "bogus"});
  EXPECT_SAME_REPLY(d, {"HSCAN", "missing", "x"});
  EXPECT_SAME_REPLY(d, {"HSET", "h", "apple", "1", "avocado", "2", "banana",
                        "3", "", "empty", std::string("a\0b", 3), "4"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "0"});
  // A small hash is replied whole, whatever the cursor and COUNT.
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "12345"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "0", "COUNT", "1"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "0", "MATCH", "a*"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "0", "match", "*an*", "count", "2"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "0", "MATCH", "*"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "0", "MATCH", "nomatch"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "0", "MATCH", "a?b"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "0", "MATCH", "a*", "MATCH", "b*"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "+0"});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", ""});
  EXPECT_SAME_SCAN(d, {"HSCAN", "h", "-1"});
  const std::vector<std::vector<std::string>> errors = {
      {"HSCAN", "h", "x"},
      {"HSCAN", "h", " 0"},
      {"HSCAN", "h", "0 "},
      {"HSCAN", "h", "18446744073709551616"},
      {"HSCAN", "h", "0", "COUNT", "0"},
      {"HSCAN", "h", "0", "COUNT", "-1"},
      {"HSCAN", "h", "0", "COUNT", "x"},
      {"HSCAN", "h", "0", "COUNT"},
      {"HSCAN", "h", "0", "MATCH"},
      {"HSCAN", "h", "0", "TYPE", "hash"},
      {"HSCAN", "h", "0", "NOVALUES"},
      {"HSCAN", "h", "0", "bogus", "1"},
      {"HSCAN", "h"},
  };
  for (const auto& argv : errors) EXPECT_SAME_REPLY(d, argv);
}

// A hash Redis keeps in a listpack (up to 512 fields, each field and value
// up to 64 bytes) comes whole from HSCAN 0 on both servers, whatever
// COUNT; one past either limit is paged by COUNT on both.
TEST(HashCommandsTest, ScanListpackHashWhole) {
  Differential d;
  FillHash(d, "listpack", 512);
  FillHash(d, "big", 513);
  EXPECT_SAME_REPLY(d, {"HSET", "long_value", "a", std::string(65, 'v')});
  EXPECT_SAME_REPLY(d, {"HSET", "long_field", std::string(65, 'f'), "v"});
  EXPECT_SAME_REPLY(
      d, {"HSET", "at_limit", std::string(64, 'f'), std::string(64, 'v')});
  for (const std::string key : {"long_value", "long_field"}) {
    for (int i = 0; i < 30; ++i) {
      EXPECT_SAME_REPLY(d, {"HSET", key, absl::StrCat("f", i), "v"});
    }
  }
  for (const std::string key : {"listpack", "at_limit"}) {
    EXPECT_EQ(
        WalkScan(d.redis(), "HSCAN", key, {"COUNT", "1"}).page_sizes.size(),
        1u);
    EXPECT_EQ(
        WalkScan(d.trackdb(), "HSCAN", key, {"COUNT", "1"}).page_sizes.size(),
        1u);
    EXPECT_SAME_SCAN(d, {"HSCAN", key, "0", "COUNT", "1"});
  }
  for (const std::string key : {"big", "long_value", "long_field"}) {
    const ScanWalk redis = WalkScan(d.redis(), "HSCAN", key, {"COUNT", "1"});
    const ScanWalk trackdb =
        WalkScan(d.trackdb(), "HSCAN", key, {"COUNT", "1"});
    EXPECT_GT(redis.page_sizes.size(), 1u) << key;
    EXPECT_GT(trackdb.page_sizes.size(), 1u) << key;
    EXPECT_EQ(trackdb.pairs, redis.pairs) << key;
  }
}

TEST(HashCommandsTest, ScanBigHashPages) {
  Differential d;
  FillHash(d, "big", 600);
  for (const std::vector<std::string>& options :
       std::vector<std::vector<std::string>>{{},
                                             {"COUNT", "7"},
                                             {"COUNT", "1000"},
                                             {"MATCH", "f1*"},
                                             {"MATCH", "f1*", "COUNT", "50"}}) {
    const ScanWalk redis = WalkScan(d.redis(), "HSCAN", "big", options);
    const ScanWalk trackdb = WalkScan(d.trackdb(), "HSCAN", "big", options);
    EXPECT_EQ(trackdb.pairs, redis.pairs) << ::testing::PrintToString(options);
    EXPECT_EQ(trackdb.duplicates, 0u);
  }
  // trackdb's pages hold COUNT fields each (before MATCH), in field order.
  const ScanWalk pages = WalkScan(d.trackdb(), "HSCAN", "big", {"COUNT", "7"});
  ASSERT_EQ(pages.page_sizes.size(), 86u);
  for (size_t i = 0; i + 1 < pages.page_sizes.size(); ++i) {
    EXPECT_EQ(pages.page_sizes[i], 7u);
  }
  EXPECT_EQ(pages.page_sizes.back(), 600u - 85 * 7);
  EXPECT_EQ(WalkScan(d.trackdb(), "HSCAN", "big", {"COUNT", "600"}).page_sizes,
            std::vector<size_t>{600});
  EXPECT_EQ(WalkScan(d.trackdb(), "HSCAN", "big", {}).page_sizes.size(), 60u);
}

TEST(HashCommandsTest, ScanCursorsBelongToTheirHash) {
  Differential d;
  FillHash(d, "big", 600);
  FillHash(d, "other", 550);
  RawClient& c = d.trackdb();
  const Aggregate first = Split(c.Call({"HSCAN", "big", "0", "COUNT", "5"}));
  ASSERT_EQ(first.elements.size(), 2u);
  const std::string cursor = BulkText(first.elements[0]);
  EXPECT_NE(cursor, "0");
  // Resumed, it goes on after the first page.
  const std::vector<std::string> page1 = BulkTexts(first.elements[1]);
  const Aggregate second =
      Split(c.Call({"HSCAN", "big", cursor, "COUNT", "5"}));
  const std::vector<std::string> page2 = BulkTexts(second.elements[1]);
  ASSERT_EQ(page2.size(), 10u);
  EXPECT_GT(page2[0], page1[8]);
  // Another hash's cursor, or one never issued, starts from the first field.
  const std::string from_start = c.Call({"HSCAN", "other", "0", "COUNT", "5"});
  EXPECT_EQ(Split(c.Call({"HSCAN", "other", cursor, "COUNT", "5"})).elements[1],
            Split(from_start).elements[1]);
  EXPECT_EQ(
      Split(c.Call({"HSCAN", "other", "987654321", "COUNT", "5"})).elements[1],
      Split(from_start).elements[1]);
  // A page starts at the first field not yet replied, even if the field the
  // cursor names was deleted meanwhile.
  const Aggregate third = Split(c.Call({"HSCAN", "big", cursor, "COUNT", "5"}));
  const std::string next = BulkText(third.elements[0]);
  const std::vector<std::string> page3 = BulkTexts(third.elements[1]);
  std::vector<std::string> after = BulkTexts(
      Split(c.Call({"HSCAN", "big", next, "COUNT", "5"})).elements[1]);
  ASSERT_EQ(after.size(), 10u);
  EXPECT_SAME_REPLY(d, {"HDEL", "big", after[0]});
  const std::vector<std::string> resumed = BulkTexts(
      Split(c.Call({"HSCAN", "big", next, "COUNT", "5"})).elements[1]);
  ASSERT_EQ(resumed.size(), 10u);
  EXPECT_EQ(resumed[0], after[2]);
  EXPECT_GT(resumed[0], page3[8]);
}

// Random HSET, HMSET, HSETNX, HDEL, HINCRBY and HINCRBYFLOAT over a few
// keys and fields, with the reads after each: the sizes stay Redis's.
TEST(HashCommandsTest, RandomWorkload) {
  Differential d;
  std::mt19937 rng(7);
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  const std::vector<std::string> keys = {"h1", "h2", std::string("\0k", 2)};
  auto field = [&] { return absl::StrCat("f", pick(8)); };
  auto value = [&]() -> std::string {
    switch (pick(3)) {
      case 0:
        return absl::StrCat(pick(100) - 50);
      case 1:
        return absl::StrCat(pick(100), ".5");
      default:
        return std::string(pick(4), 'x');
    }
  };
  for (int step = 0; step < 600; ++step) {
    const std::string& key = keys[pick(static_cast<int>(keys.size()))];
    std::vector<std::string> argv;
    switch (pick(7)) {
      case 0:
      case 1:
        argv = {pick(2) ? "HSET" : "HMSET", key};
        for (int n = 1 + pick(4); n > 0; --n) {
          argv.push_back(field());
          argv.push_back(value());
        }
        break;
      case 2:
        argv = {"HSETNX", key, field(), value()};
        break;
      case 3:
      case 4:
        argv = {"HDEL", key};
        for (int n = 1 + pick(4); n > 0; --n) argv.push_back(field());
        break;
      case 5:
        argv = {"HINCRBY", key, field(), absl::StrCat(pick(20) - 10)};
        break;
      default:
        argv = {"HINCRBYFLOAT", key, field(), "0.25"};
        break;
    }
    EXPECT_SAME_REPLY(d, argv);
    EXPECT_SAME_REPLY(d, {"HLEN", key});
    EXPECT_SAME_REPLY(d, {"EXISTS", key});
    EXPECT_SAME_REPLY(d, {"HGET", key, field()});
    EXPECT_SAME_UNORDERED(d, 2, {"HGETALL", key});
  }
}

}  // namespace
}  // namespace trackdb::resp
