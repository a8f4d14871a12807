// OBJECT against a real redis-server 7.0 started beside trackdb's RESP
// server: ENCODING and REFCOUNT of every type at and past Redis's encoding
// limits (GEO keys included), nil for missing and expired keys (RESP2 and
// RESP3), HELP and the errors, byte for byte; IDLETIME's refusal; and the
// one place trackdb answers otherwise on purpose (object_encoding.h: a
// value that shrank gets the encoding of a fresh copy).
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::ExpectSameReplies;
using Argv = std::vector<std::string>;

// `head` followed by n members "<prefix><i>", each preceded by a score or
// value i when `numbered`.
Argv With(Argv head, const std::string& prefix, int n, bool numbered) {
  for (int i = 0; i < n; ++i) {
    if (numbered) head.push_back(absl::StrCat(i));
    head.push_back(absl::StrCat(prefix, i));
  }
  return head;
}

Argv Ints(Argv head, int n) {
  for (int i = 0; i < n; ++i) head.push_back(absl::StrCat(i * 7 - 100));
  return head;
}

// ENCODING and REFCOUNT of `key` on both servers.
void ExpectSameObject(Differential& d, const std::string& key) {
  ExpectSameReplies(d, {{"OBJECT", "ENCODING", key},
                        {"OBJECT", "REFCOUNT", key},
                        {"OBJECT", "FREQ", key}});
}

TEST(ObjectCommandTest, StringsByValue) {
  Differential d;
  const std::vector<std::string> values = {"0",
                                           "9999",
                                           "10000",
                                           "-1",
                                           "9223372036854775807",
                                           "9223372036854775808",
                                           "-9223372036854775808",
                                           "01",
                                           "-0",
                                           "+5",
                                           " 5",
                                           "",
                                           "hello",
                                           std::string(44, 'x'),
                                           std::string(45, 'x'),
                                           std::string(5000, 'y')};
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string key = absl::StrCat("s", i);
    ExpectSameReplies(d, {{"SET", key, values[i]}});
    ExpectSameObject(d, key);
  }
  ExpectSameReplies(d, {{"INCRBY", "counter", "41"}, {"INCR", "counter"}});
  ExpectSameObject(d, "counter");
  ExpectSameReplies(d, {{"SET", "big", "12345"}, {"INCRBY", "big", "100000"}});
  ExpectSameObject(d, "big");
}

TEST(ObjectCommandTest, HashesAtTheListpackLimits) {
  Differential d;
  ExpectSameReplies(d, {With({"HSET", "h512"}, "f", 512, true),
                        With({"HSET", "h513"}, "f", 513, true),
                        {"HSET", "long_value", "f", std::string(65, 'v')},
                        {"HSET", "value64", "f", std::string(64, 'v')},
                        {"HSET", "long_field", std::string(65, 'f'), "v"}});
  for (const char* key :
       {"h512", "h513", "long_value", "value64", "long_field"}) {
    ExpectSameObject(d, key);
  }
}

// CONFIG SET of the encoding limits moves them on both servers: values
// made after it get the encodings Redis gives them, and the settings
// answer and refuse as Redis's do. (Set back at the end: they are the
// process's.)
TEST(ObjectCommandTest, EncodingLimitsFollowConfigSet) {
  Differential d;
  ExpectSameReplies(d, {{"CONFIG", "SET", "hash-max-listpack-entries", "2"},
                        {"CONFIG", "SET", "hash-max-ziplist-value", "3"},
                        {"CONFIG", "SET", "zset-max-ziplist-entries", "1"},
                        {"CONFIG", "SET", "zset-max-listpack-value", "100"},
                        {"CONFIG", "SET", "set-max-intset-entries", "2"},
                        {"CONFIG", "GET", "hash-max-ziplist-entries"},
                        {"CONFIG", "GET", "hash-max-listpack-value"},
                        {"CONFIG", "GET", "zset-max-ziplist-value"},
                        {"CONFIG", "GET", "set-max-intset-entries"},
                        {"CONFIG", "SET", "list-max-ziplist-size", "-3"},
                        {"CONFIG", "GET", "list-max-listpack-size"},
                        {"CONFIG", "SET", "list-compress-depth", "-1"},
                        {"CONFIG", "SET", "lua-time-limit", "100"},
                        {"CONFIG", "GET", "busy-reply-threshold"},
                        {"CONFIG", "SET", "set-max-intset-entries", "x"},
                        {"CONFIG", "SET", "save", "3600 1 0300 100"},
                        {"CONFIG", "GET", "save"},
                        {"CONFIG", "SET", "save", "900"},
                        {"CONFIG", "SET", "save", "0 1"},
                        {"CONFIG", "SET", "save", " "},
                        {"CONFIG", "SET", "save", ""},
                        {"CONFIG", "GET", "save"},
                        {"CONFIG", "SET", "hash-max-listpack-entries", "-1"},
                        {"HSET", "two", "a", "1", "b", "2"},
                        {"HSET", "three", "a", "1", "b", "2", "c", "3"},
                        {"HSET", "wide", "a", "1234"},
                        {"ZADD", "one", "1", "a"},
                        {"ZADD", "pair", "1", "a", "2", "b"},
                        {"ZADD", "longer", "1", std::string(80, 'm')},
                        {"SADD", "ints2", "1", "2"},
                        {"SADD", "ints3", "1", "2", "3"}});
  for (const char* key :
       {"two", "three", "wide", "one", "pair", "longer", "ints2", "ints3"}) {
    ExpectSameObject(d, key);
  }
  // HSCAN of a hash Redis keeps in a listpack answers it whole.
  ExpectSameReplies(d, {{"HSCAN", "two", "0", "COUNT", "1"}});
  ExpectSameReplies(
      d, {{"CONFIG", "SET", "hash-max-listpack-entries", "512",
           "hash-max-listpack-value", "64", "zset-max-listpack-entries", "128",
           "zset-max-listpack-value", "64", "set-max-intset-entries", "512",
           "list-max-listpack-size", "-2", "busy-reply-threshold", "5000"}});
}

// A limit raised past a big key's size changes its OBJECT ENCODING, but
// HSCAN still pages it (typed_command.h's kMaxWholeScan).
TEST(ObjectCommandTest, ARaisedLimitNeverScansAHugeKeyWhole) {
  Differential d;
  testing::RawClient& t = d.trackdb();
  t.Call({"CONFIG", "SET", "hash-max-listpack-entries", "1000000"});
  t.Call(With({"HSET", "big"}, "f", 9000, true));
  EXPECT_EQ(t.Call({"OBJECT", "ENCODING", "big"}), "$8\r\nlistpack\r\n");
  const std::string page = t.Call({"HSCAN", "big", "0", "COUNT", "10"});
  EXPECT_NE(page.rfind("*2\r\n$1\r\n0\r\n", 0), 0u) << page.substr(0, 40);
  EXPECT_LT(page.size(), 2000u);
  t.Call({"CONFIG", "SET", "hash-max-listpack-entries", "512"});
}

TEST(ObjectCommandTest, SetsIntsetOrHashtable) {
  Differential d;
  ExpectSameReplies(
      d, {Ints({"SADD", "i512"}, 512),
          Ints({"SADD", "i513"}, 513),
          {"SADD", "mixed", "1", "2", "x"},
          {"SADD", "minus_zero", "1", "-0"},
          {"SADD", "extremes", "-9223372036854775808", "9223372036854775807"},
          {"SADD", "words", "a", "b"}});
  for (const char* key :
       {"i512", "i513", "mixed", "minus_zero", "extremes", "words"}) {
    ExpectSameObject(d, key);
  }
}

TEST(ObjectCommandTest, SortedSetsAndGeoKeys) {
  Differential d;
  Argv geo129 = {"GEOADD", "geo129"};
  for (int i = 0; i < 129; ++i) {
    geo129.insert(geo129.end(),
                  {absl::StrCat(13 + i * 0.001), absl::StrCat(52 + i * 0.001),
                   absl::StrCat("car", i)});
  }
  ExpectSameReplies(
      d, {With({"ZADD", "z128"}, "m", 128, true),
          With({"ZADD", "z129"}, "m", 129, true),
          {"ZADD", "member64", "1", std::string(64, 'm')},
          {"ZADD", "member65", "1", std::string(65, 'm')},
          {"GEOADD", "geo", "13.4", "52.5", "car1"},
          {"GEOADD", "geo_long", "13.4", "52.5", std::string(65, 'c')},
          geo129});
  for (const char* key :
       {"z128", "z129", "member64", "member65", "geo", "geo_long", "geo129"}) {
    ExpectSameObject(d, key);
  }
}

TEST(ObjectCommandTest, ListsAreQuicklists) {
  Differential d;
  ExpectSameReplies(
      d, {{"RPUSH", "l", "a"}, With({"RPUSH", "l1000"}, "e", 1000, false)});
  ExpectSameObject(d, "l");
  ExpectSameObject(d, "l1000");
}

TEST(ObjectCommandTest, MissingAndExpiredKeysAreNil) {
  Differential d;
  ExpectSameReplies(d, {{"SET", "gone", "1", "PX", "1"},
                        {"HSET", "gone_hash", "f", "v"},
                        {"PEXPIRE", "gone_hash", "1"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (const std::string key : {"nosuch", "gone", "gone_hash"}) {
    for (const char* sub : {"ENCODING", "REFCOUNT", "IDLETIME", "FREQ"}) {
      EXPECT_SAME_REPLY(d, {"OBJECT", sub, key});
    }
  }
  d.Call({"HELLO", "3"});
  EXPECT_SAME_REPLY(d, {"OBJECT", "ENCODING", "nosuch"});
  EXPECT_EQ(d.Call({"OBJECT", "REFCOUNT", "nosuch"}).trackdb, "_\r\n");
}

TEST(ObjectCommandTest, HelpAndErrors) {
  Differential d;
  ExpectSameReplies(d, {{"SET", "k", "v"},
                        {"OBJECT", "HELP"},
                        {"object", "help"},
                        {"OBJECT"},
                        {"OBJECT", "ENCODING"},
                        {"OBJECT", "ENCODING", "k", "extra"},
                        {"OBJECT", "HELP", "extra"},
                        {"OBJECT", "FOO", "k"},
                        {"OBJECT", "FREQ", "k"},
                        {"COMMAND", "GETKEYS", "OBJECT", "ENCODING", "k"},
                        {"COMMAND", "GETKEYS", "OBJECT", "HELP"}});
}

TEST(ObjectCommandTest, IdleTimeIsRefusedForExistingKeys) {
  Differential d;
  ExpectSameReplies(d, {{"SET", "k", "v"}, {"RPUSH", "l", "a"}});
  for (const char* key : {"k", "l"}) {
    const auto replies = d.Call({"OBJECT", "IDLETIME", key});
    EXPECT_THAT(replies.redis, ::testing::StartsWith(":"));
    EXPECT_EQ(replies.trackdb,
              "-ERR trackdb keeps no access times, idle time not tracked\r\n");
  }
}

// Redis keeps the encoding a value grew into; trackdb answers a fresh
// copy's, which is what Redis answers once the value is rebuilt (DUMP and
// RESTORE here).
TEST(ObjectCommandTest, ShrunkValueGetsAFreshCopysEncoding) {
  Differential d;
  ExpectSameReplies(d,
                    {With({"HSET", "h"}, "f", 513, true), {"HDEL", "h", "0"}});
  auto shrunk = d.Call({"OBJECT", "ENCODING", "h"});
  EXPECT_EQ(shrunk.redis, "$9\r\nhashtable\r\n");
  EXPECT_EQ(shrunk.trackdb, "$8\r\nlistpack\r\n");
  const std::string payload = d.redis().Call({"DUMP", "h"});
  const std::string bulk = payload.substr(payload.find("\r\n") + 2);
  ASSERT_EQ(
      d.redis().Call({"RESTORE", "h2", "0", bulk.substr(0, bulk.size() - 2)}),
      "+OK\r\n");
  EXPECT_EQ(d.redis().Call({"OBJECT", "ENCODING", "h2"}), shrunk.trackdb);
}

}  // namespace
}  // namespace trackdb::resp
