// DUMP and RESTORE against a real redis-server 7.0 started beside trackdb's
// RESP server: values dumped by either server restore into both, with the
// same contents read back byte for byte (every encoding Redis 7.0 writes,
// GEO keys included); RESTORE's errors in Redis's order; expiry, REPLACE
// over every type, and a blocked pop served by a restored list.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"
#include "types/codec/rdb_payload.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using Argv = std::vector<std::string>;

// The bytes of a bulk-string reply; nullopt for anything else.
std::optional<std::string> BulkOf(const std::string& reply) {
  if (reply.empty() || reply[0] != '$') return std::nullopt;
  const size_t eol = reply.find("\r\n");
  int64_t length = 0;
  if (eol == std::string::npos ||
      !absl::SimpleAtoi(reply.substr(1, eol - 1), &length) || length < 0) {
    return std::nullopt;
  }
  return reply.substr(eol + 2, static_cast<size_t>(length));
}

// A key made by `make` on both servers, and the reads that show all of
// what a key named `key` holds (the fields of a hash named, since its
// HGETALL order is not Redis's).
struct Recipe {
  std::string key;
  std::vector<Argv> make;
  std::vector<Argv> reads;
};

Argv Numbered(Argv head, const std::string& prefix, int n, bool values) {
  for (int i = 0; i < n; ++i) {
    if (values) head.push_back(absl::StrCat(i));
    head.push_back(absl::StrCat(prefix, i));
  }
  return head;
}

std::vector<Recipe> Recipes() {
  const std::string big(10000, 'x');
  const std::string binary("a\0b\r\n\xff", 6);
  Argv hash_fields = Numbered({"HMGET", "h2"}, "field:", 200, false);
  return {
      {"s1", {{"SET", "s1", "hello"}}, {{"GET", "s1"}}},
      {"s2", {{"SET", "s2", "-12345"}}, {{"GET", "s2"}}},
      {"s3", {{"SET", "s3", std::string(200, 'a')}}, {{"GET", "s3"}}},
      {"s4", {{"SET", "s4", binary}}, {{"GET", "s4"}}},
      {"s5", {{"SET", "s5", ""}}, {{"GET", "s5"}}},
      {"l1", {{"RPUSH", "l1", "a", "b", "1", "-2", "300000", binary}}, {}},
      {"l2", {{"RPUSH", "l2", "a", big, "b"}}, {}},
      {"l3",
       {Numbered({"RPUSH", "l3"}, "element-long-enough-", 900, false)},
       {}},
      {"set1", {{"SADD", "set1", "1", "2", "-3", "70000", "5000000000"}}, {}},
      // No NUL byte: SORT ALPHA compares up to one, and ties come in each
      // server's own set order.
      {"set2", {{"SADD", "set2", "a", "b", "c\r\n\xff"}}, {}},
      {"set3", {Numbered({"SADD", "set3"}, "m", 300, false)}, {}},
      {"h1",
       {{"HSET", "h1", "f", "v", "n", "12", "e", "", binary, binary}},
       {{"HMGET", "h1", "f", "n", "e", binary, "nosuch"}}},
      {"h2",
       {Numbered({"HSET", "h2"}, "field:", 200, true)},
       {hash_fields, {"HLEN", "h2"}}},
      {"z1",
       {{"ZADD", "z1", "1", "a", "2.5", "b", "-inf", "c", "inf", "d", "-7", "e",
         "1e300", "f"}},
       {}},
      {"z2", {Numbered({"ZADD", "z2"}, "m", 300, true)}, {}},
      {"g",
       {{"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269",
         "37.502669", "Catania"}},
       {{"GEOPOS", "g", "Palermo", "Catania"},
        {"GEODIST", "g", "Palermo", "Catania"}}},
  };
}

// The reads of `key` (a copy named `as`) that both servers must answer alike.
std::vector<Argv> ReadsOf(const Recipe& r, const std::string& as) {
  std::vector<Argv> reads = {{"TYPE", as}, {"PTTL", as}};
  if (r.key[0] == 'l') reads.push_back({"LRANGE", as, "0", "-1"});
  if (r.key.rfind("set", 0) == 0) reads.push_back({"SORT", as, "ALPHA"});
  if (r.key[0] == 'z' || r.key[0] == 'g') {
    reads.push_back({"ZRANGE", as, "0", "-1", "WITHSCORES"});
  }
  for (Argv read : r.reads) {
    read[1] = as;
    reads.push_back(read);
  }
  return reads;
}

// Each key dumped by Redis and by trackdb restores into both servers with
// the same contents: trackdb reads Redis's encodings, Redis reads
// trackdb's, and trackdb reads its own.
TEST(DumpRestoreTest, EveryTypeRoundTripsBothWays) {
  Differential d;
  for (const Recipe& r : Recipes()) {
    SCOPED_TRACE(r.key);
    testing::ExpectSameReplies(d, r.make);
    const Differential::Replies dumped = d.Call({"DUMP", r.key});
    const std::optional<std::string> from_redis = BulkOf(dumped.redis);
    const std::optional<std::string> from_trackdb = BulkOf(dumped.trackdb);
    ASSERT_TRUE(from_redis.has_value()) << dumped.redis;
    ASSERT_TRUE(from_trackdb.has_value()) << dumped.trackdb;
    for (const auto& [as, payload] : {std::pair{"r:" + r.key, *from_redis},
                                      std::pair{"t:" + r.key, *from_trackdb}}) {
      SCOPED_TRACE(as);
      EXPECT_SAME_REPLY(d, {"RESTORE", as, "0", payload});
      testing::ExpectSameReplies(d, ReadsOf(r, as));
    }
  }
}

// The payload of `value` as trackdb's DUMP writes it, and one with a
// correct checksum around an object that does not parse.
std::string Payload(const std::string& value) {
  types::RdbValue v;
  v.string = value;
  return types::EncodeDumpPayload(v);
}
std::string BadObjectPayload() {
  std::string p = "\x63garbage";
  p.append("\x0a\x00", 2);  // RDB version 10
  const uint64_t crc = types::RedisCrc64(0, p);
  for (int i = 0; i < 8; ++i) p.push_back(static_cast<char>(crc >> (8 * i)));
  return p;
}

TEST(DumpRestoreTest, ErrorsInRedisOrder) {
  Differential d;
  const std::string p = Payload("v");
  std::string bad_crc = p;
  bad_crc.back() ^= 1;
  std::string new_version = p;
  new_version[new_version.size() - 10] = 13;
  testing::ExpectSameReplies(
      d, {
             {"DUMP"},
             {"DUMP", "nosuch"},
             {"RESTORE", "k", "0"},
             {"SET", "str", "x"},
             {"HSET", "hash", "f", "v"},
             {"GEOADD", "geo", "1", "2", "m"},
             // The options first, then the key, the ttl, the payload.
             {"RESTORE", "str", "x", "junk", "NOPE"},
             {"RESTORE", "str", "x", "junk", "IDLETIME"},
             {"RESTORE", "str", "x", "junk", "IDLETIME", "-1"},
             {"RESTORE", "str", "x", "junk", "IDLETIME", "x"},
             {"RESTORE", "str", "x", "junk", "FREQ", "256"},
             {"RESTORE", "str", "x", "junk", "FREQ", "-1"},
             {"RESTORE", "str", "x", "junk", "IDLETIME", "1", "FREQ", "1"},
             {"RESTORE", "str", "x", "junk", "FREQ", "1", "IDLETIME", "1"},
             {"RESTORE", "str", "x", "junk"},
             {"RESTORE", "hash", "-1", "junk"},
             {"RESTORE", "geo", "0", p},
             {"RESTORE", "k", "x", "junk"},
             {"RESTORE", "k", "-1", "junk"},
             {"RESTORE", "k", "99999999999999999999", p},
             {"RESTORE", "k", "0", "junk"},
             {"RESTORE", "k", "0", ""},
             {"RESTORE", "k", "0", bad_crc},
             {"RESTORE", "k", "0", new_version},
             {"RESTORE", "k", "0", BadObjectPayload()},
             {"RESTORE", "hash", "x", "junk", "REPLACE"},
             {"RESTORE", "hash", "0", BadObjectPayload(), "REPLACE"},
             {"HGETALL", "hash"},
             {"EXISTS", "k"},
             {"RESTORE", "k", "0", p, "idletime", "5", "replace", "ABSTTL"},
             {"RESTORE", "k2", "0", p, "FREQ", "255"},
             {"MGET", "k", "k2"},
         });
}

TEST(DumpRestoreTest, ReplaceOverEveryType) {
  Differential d;
  const Differential::Replies list = d.Call({"RPUSH", "src", "a", "b", "c"});
  ASSERT_EQ(list.trackdb, list.redis);
  const std::optional<std::string> payload =
      BulkOf(d.Call({"DUMP", "src"}).trackdb);
  ASSERT_TRUE(payload.has_value());
  for (const Argv& make : std::vector<Argv>{
           {"SET", "k", "x"},
           {"HSET", "k", "f", "v"},
           {"SADD", "k", "m"},
           {"ZADD", "k", "1", "m"},
           {"RPUSH", "k", "old"},
           {"GEOADD", "k", "1", "2", "m"},
       }) {
    SCOPED_TRACE(make[0]);
    testing::ExpectSameReplies(
        d, {make,
            {"RESTORE", "k", "0", *payload},
            {"RESTORE", "k", "0", *payload, "REPLACE"},
            {"TYPE", "k"},
            {"LRANGE", "k", "0", "-1"},
            {"RESTORE", "k", "0", Payload("str"), "REPLACE"},
            {"GET", "k"},
            {"DEL", "k"}});
  }
}

int64_t IntegerOf(const std::string& reply) {
  int64_t v = -100;
  EXPECT_EQ(reply[0], ':') << reply;
  EXPECT_TRUE(absl::SimpleAtoi(reply.substr(1, reply.size() - 3), &v));
  return v;
}

// A ttl sets the key's expiry, relative or (ABSTTL) absolute; one already
// past creates nothing and, with REPLACE, still removes the old key.
TEST(DumpRestoreTest, TtlAndAbsttl) {
  Differential d;
  testing::ExpectSameReplies(d, {{"SADD", "src", "a", "b"}});
  const std::optional<std::string> set =
      BulkOf(d.Call({"DUMP", "src"}).trackdb);
  ASSERT_TRUE(set.has_value());
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count();
  for (const std::string& payload : {Payload("v"), *set}) {
    EXPECT_SAME_REPLY(d, {"RESTORE", "k", "100000", payload});
    Differential::Replies pttl = d.Call({"PTTL", "k"});
    EXPECT_GT(IntegerOf(pttl.trackdb), 90000);
    EXPECT_LE(IntegerOf(pttl.trackdb), 100000);
    EXPECT_SAME_REPLY(d, {"RESTORE", "k", absl::StrCat(now_ms + 200000),
                          payload, "REPLACE", "ABSTTL"});
    pttl = d.Call({"PTTL", "k"});
    EXPECT_GT(IntegerOf(pttl.trackdb), 190000);
    EXPECT_LE(IntegerOf(pttl.trackdb), 200000);
    testing::ExpectSameReplies(
        d, {{"RESTORE", "k", "1", payload, "REPLACE", "ABSTTL"},
            {"EXISTS", "k"},
            {"RESTORE", "k", "1", payload, "ABSTTL"},
            {"EXISTS", "k"},
            {"RESTORE", "k", "9223372036854775807", payload},
            {"EXISTS", "k"},
            {"RESTORE", "k", "0", payload},
            {"PTTL", "k"},
            {"DEL", "k"}});
  }
}

// A list restored serves a BLPOP waiting on its key at once, as a push
// would. (A waiter holds a worker thread, and RESTORE runs on one.)
TEST(DumpRestoreTest, RestoredListWakesABlockedPop) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_worker_threads(2);
  Differential d(config);
  testing::ExpectSameReplies(d, {{"RPUSH", "src", "1", "2"}});
  const std::optional<std::string> payload =
      BulkOf(d.Call({"DUMP", "src"}).redis);
  ASSERT_TRUE(payload.has_value());
  testing::ExpectWakesBlockedPop(d, {"BLPOP", "q", "10"},
                                 {"RESTORE", "q", "0", *payload});
  EXPECT_SAME_REPLY(d, {"LRANGE", "q", "0", "-1"});
}

}  // namespace
}  // namespace trackdb::resp
