// Key commands, compared byte for byte with a real redis-server 7.0
// started beside trackdb's RESP server. KEYS and SCAN return keys in an
// order that is Redis's hash order there and name order here, so those
// replies are compared as sets. Expiry tests compare behaviour after short
// expiries, and TTL values (time-dependent) only as ranges.
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/track_point.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/format/wrong_type.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using ::testing::HasSubstr;
using testing::RawClient;
using ::testing::UnorderedElementsAreArray;

model::TrackPoint GeoPoint(const std::string& member, int64_t t,
                           double lat = 38.115556, double lon = 13.361389) {
  model::TrackPoint p;
  p.entity = member;
  p.loc_time_ms = t;
  p.lat = lat;
  p.lon = lon;
  return p;
}

// Makes `key` a GEO key with one member on both servers, whose clients are
// in database `db`:
// GEOADD on Redis, the collection directly on trackdb (GEO commands are
// another family's).
void AddGeo(Differential& d, const std::string& key, int db = 0) {
  ASSERT_EQ(d.redis().Call({"GEOADD", key, "13.361389", "38.115556", "m"}),
            ":1\r\n");
  ASSERT_TRUE(d.trackdb_server()
                  .store()
                  .AddPoints(types::KeyName(db, key), {GeoPoint("m", 1)})
                  .ok());
}

// The bulk strings of a flat RESP2 array reply ("*n" then n "$len" items).
std::vector<std::string> BulkItems(const std::string& reply, size_t* pos) {
  std::vector<std::string> items;
  const size_t eol = reply.find("\r\n", *pos);
  const int n = std::stoi(reply.substr(*pos + 1, eol - *pos - 1));
  *pos = eol + 2;
  for (int i = 0; i < n; ++i) {
    const size_t e = reply.find("\r\n", *pos);
    const size_t len = std::stoul(reply.substr(*pos + 1, e - *pos - 1));
    items.push_back(reply.substr(e + 2, len));
    *pos = e + 2 + len + 2;
  }
  return items;
}

std::vector<std::string> ArrayItems(const std::string& reply) {
  size_t pos = 0;
  return BulkItems(reply, &pos);
}

// Runs a whole SCAN iteration with `options`; returns every key returned,
// repeats included, and how many calls it took.
std::vector<std::string> ScanAll(RawClient& c,
                                 const std::vector<std::string>& options,
                                 int* calls = nullptr,
                                 const std::string& first_cursor = "0") {
  std::vector<std::string> keys;
  std::string cursor = first_cursor;
  int n = 0;
  do {
    std::vector<std::string> cmd = {"SCAN", cursor};
    cmd.insert(cmd.end(), options.begin(), options.end());
    const std::string reply = c.Call(cmd);
    EXPECT_EQ(reply.substr(0, 4), "*2\r\n") << reply;
    if (reply.substr(0, 4) != "*2\r\n") break;
    size_t pos = 4;
    const size_t e = reply.find("\r\n", pos);
    const size_t len = std::stoul(reply.substr(pos + 1, e - pos - 1));
    cursor = reply.substr(e + 2, len);
    pos = e + 2 + len + 2;
    for (std::string& k : BulkItems(reply, &pos)) keys.push_back(std::move(k));
    ++n;
  } while (cursor != "0" && n < 100000);
  if (calls) *calls = n;
  return keys;
}

std::set<std::string> AsSet(const std::vector<std::string>& v) {
  return {v.begin(), v.end()};
}

TEST(KeyCommandsTest, DelUnlinkExistsTouchType) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"MSET", "a", "1", "b", "2", "c", "3"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "a", "a", "nokey", "b"});
  EXPECT_SAME_REPLY(d, {"TOUCH", "a", "a", "nokey"});
  EXPECT_SAME_REPLY(d, {"TYPE", "a"});
  EXPECT_SAME_REPLY(d, {"TYPE", "nokey"});
  EXPECT_SAME_REPLY(d, {"DEL", "a", "a", "nokey", "b"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "a", "b", "c"});
  EXPECT_SAME_REPLY(d, {"UNLINK", "c", "c"});
  EXPECT_SAME_REPLY(d, {"DEL", "c"});
  EXPECT_SAME_REPLY(d, {"DEL"});
  EXPECT_SAME_REPLY(d, {"EXISTS"});
  EXPECT_SAME_REPLY(d, {"UNLINK"});
  EXPECT_SAME_REPLY(d, {"TYPE"});
  EXPECT_SAME_REPLY(d, {"TYPE", "a", "b"});
  const std::string binary("\0\xff\r\n", 4);
  EXPECT_SAME_REPLY(d, {"SET", binary, "v"});
  EXPECT_SAME_REPLY(d, {"EXISTS", binary});
  EXPECT_SAME_REPLY(d, {"DEL", binary});
  EXPECT_SAME_REPLY(d, {"EXISTS", binary});
}

TEST(KeyCommandsTest, GeoKeysAreSeenByKeyCommands) {
  Differential d;
  AddGeo(d, "g");
  AddGeo(d, "h");
  EXPECT_SAME_REPLY(d, {"SET", "s", "v"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "g", "g", "s", "nokey"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g"});
  EXPECT_SAME_REPLY(d, {"TTL", "g"});
  EXPECT_SAME_REPLY(d, {"PTTL", "g"});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", "g"});
  EXPECT_SAME_REPLY(d, {"PERSIST", "g"});
  EXPECT_SAME_REPLY(d, {"EXPIRE", "g", "100", "XX"});
  EXPECT_SAME_REPLY(d, {"EXPIRE", "g", "100", "GT"});
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
  EXPECT_THAT(
      ArrayItems(d.trackdb().Call({"KEYS", "*"})),
      UnorderedElementsAreArray(ArrayItems(d.redis().Call({"KEYS", "*"}))));
  EXPECT_EQ(AsSet(ScanAll(d.trackdb(), {"TYPE", "zset"})),
            AsSet(ScanAll(d.redis(), {"TYPE", "zset"})));
  EXPECT_SAME_REPLY(d, {"DEL", "g", "g", "s", "nokey"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "g"});
  EXPECT_EQ(*d.trackdb_server().store().CollectionSize("g"), 0);
  // A time already past deletes a GEO key, as it does any key.
  EXPECT_SAME_REPLY(d, {"EXPIRE", "h", "-1"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "h"});
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
}

// A GEO key expires as a whole, as any Redis key: TTL, the conditions, and
// PERSIST as Redis answers them; once due it is gone, and a GEOADD after
// that starts a new key with none of the old members.
TEST(KeyCommandsTest, GeoKeysExpireAsAWhole) {
  Differential d;
  AddGeo(d, "g");
  EXPECT_SAME_REPLY(d, {"EXPIRE", "g", "100", "XX"});
  EXPECT_SAME_REPLY(d, {"EXPIRE", "g", "100", "NX"});
  EXPECT_SAME_REPLY(d, {"EXPIRE", "g", "200", "LT"});
  EXPECT_SAME_REPLY(d, {"EXPIRE", "g", "50", "LT"});
  EXPECT_SAME_REPLY(d, {"TTL", "g"});
  EXPECT_SAME_REPLY(d, {"EXPIRE", "g", "10", "GT"});
  EXPECT_SAME_REPLY(d, {"PERSIST", "g"});
  EXPECT_SAME_REPLY(d, {"PERSIST", "g"});
  EXPECT_SAME_REPLY(d, {"TTL", "g"});
  EXPECT_SAME_REPLY(d, {"EXPIREAT", "g", "99999999999"});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", "g"});
  // Redis's avg_ttl is a sample its expire cycle may not have taken yet;
  // keys and expires are exact on both, and trackdb's avg_ttl is the mean.
  const std::regex avg_ttl("avg_ttl=[0-9]+");
  const std::regex bulk_length("^\\$[0-9]+");
  const auto masked = [&](const std::string& info) {
    return std::regex_replace(std::regex_replace(info, bulk_length, "$$?"),
                              avg_ttl, "avg_ttl=?");
  };
  const auto info = d.Call({"INFO", "keyspace"});
  EXPECT_EQ(masked(info.trackdb), masked(info.redis));
  EXPECT_SAME_REPLY(d, {"SET", "s", "v", "EX", "100"});
  const int64_t ttl_ms =
      (99999999999 - absl::ToUnixSeconds(absl::Now())) * int64_t{1000};
  std::smatch m;
  const std::string trackdb_info = d.trackdb().Call({"INFO", "keyspace"});
  ASSERT_TRUE(std::regex_search(trackdb_info, m,
                                std::regex("expires=2,avg_ttl=([0-9]+)")))
      << trackdb_info;
  EXPECT_NEAR(std::stod(m[1]), (ttl_ms + 100000) / 2.0, 5000.0);
  EXPECT_SAME_REPLY(d, {"DEL", "s"});

  // RENAME keeps the TTL; DEL takes it with the key.
  EXPECT_SAME_REPLY(d, {"RENAME", "g", "g2"});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", "g2"});
  EXPECT_SAME_REPLY(d, {"DEL", "g2"});
  AddGeo(d, "g2");
  EXPECT_SAME_REPLY(d, {"TTL", "g2"});

  EXPECT_SAME_REPLY(d, {"PEXPIRE", "g2", "100"});
  absl::SleepFor(absl::Milliseconds(250));
  EXPECT_SAME_REPLY(d, {"EXISTS", "g2"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g2"});
  EXPECT_SAME_REPLY(d, {"ZCARD", "g2"});
  EXPECT_SAME_REPLY(d, {"TTL", "g2"});
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
  EXPECT_SAME_REPLY(d, {"KEYS", "*"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "g2", "13.5", "38.5", "fresh"});
  EXPECT_SAME_REPLY(d, {"ZCARD", "g2"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "g2", "m", "fresh"});
  EXPECT_SAME_REPLY(d, {"TTL", "g2"});
}

// ZREM of a GEO key's last member removes the key and its expiry.
TEST(KeyCommandsTest, AnEmptiedGeoKeyLosesItsExpiry) {
  Differential d;
  AddGeo(d, "g");
  EXPECT_SAME_REPLY(d, {"EXPIRE", "g", "100"});
  EXPECT_SAME_REPLY(d, {"ZREM", "g", "m"});
  AddGeo(d, "g");
  EXPECT_SAME_REPLY(d, {"TTL", "g"});
}

// A name has one type: points for a name that holds a string are refused
// by the store itself (not only by GEOADD's check), and DEL then removes
// the one thing it holds.
TEST(KeyCommandsTest, AStringsNameTakesNoPointsAndDelRemovesIt) {
  testing::TrackdbResp server;
  RawClient c(server.port());
  ASSERT_EQ(c.Call({"SET", "both", "v"}), "+OK\r\n");
  const absl::Status s = server.store().AddPoints("both", {GeoPoint("m", 1)});
  EXPECT_TRUE(storage::IsWrongType(s)) << s;
  EXPECT_EQ(c.Call({"TYPE", "both"}), "+string\r\n");
  EXPECT_EQ(*server.store().CollectionSize("both"), 0);
  EXPECT_EQ(c.Call({"DEL", "both", "both"}), ":1\r\n");
  EXPECT_EQ(c.Call({"EXISTS", "both"}), ":0\r\n");
}

TEST(KeyCommandsTest, KeysPatterns) {
  Differential d;
  const std::vector<std::string> keys = {"hello",
                                         "hallo",
                                         "hxllo",
                                         "hllo",
                                         "heeeello",
                                         "h*llo",
                                         "h?llo",
                                         "h[llo",
                                         "user:1",
                                         "user:2",
                                         "user:10",
                                         "USER:3",
                                         "",
                                         std::string("bin\0ary", 7),
                                         std::string("\xff\x00x", 3),
                                         "a\\b"};
  for (const std::string& k : keys) {
    EXPECT_SAME_REPLY(d, {"SET", k, "v"});
  }
  AddGeo(d, "hgeo");
  const std::vector<std::string> patterns = {"*",
                                             "h?llo",
                                             "h*llo",
                                             "h[ae]llo",
                                             "h[^e]llo",
                                             "h[a-f]llo",
                                             "h\\*llo",
                                             "h\\?llo",
                                             "user:*",
                                             "user:?",
                                             "*:1*",
                                             "USER*",
                                             "nomatch",
                                             "",
                                             "h[llo",
                                             "h\\[llo",
                                             "a\\\\b",
                                             "*\xff*",
                                             std::string("bin\0*", 5),
                                             "[",
                                             "h[z-a]llo",
                                             "*o"};
  for (const std::string& p : patterns) {
    EXPECT_THAT(
        ArrayItems(d.trackdb().Call({"KEYS", p})),
        UnorderedElementsAreArray(ArrayItems(d.redis().Call({"KEYS", p}))))
        << "pattern " << p;
  }
  EXPECT_SAME_REPLY(d, {"KEYS"});
  EXPECT_SAME_REPLY(d, {"KEYS", "a", "b"});
}

TEST(KeyCommandsTest, ScanReturnsEveryKeyOnce) {
  Differential d;
  std::vector<std::string> all;
  for (int i = 0; i < 200; ++i) {
    const std::string k = absl::StrCat(i % 3 == 0 ? "user:" : "item:", i);
    all.push_back(k);
    EXPECT_SAME_REPLY(d, {"SET", k, "v"});
  }
  for (int i = 0; i < 5; ++i) AddGeo(d, absl::StrCat("geo:", i));
  for (const std::vector<std::string>& options :
       std::vector<std::vector<std::string>>{
           {},
           {"COUNT", "7"},
           {"COUNT", "1"},
           {"COUNT", "1000"},
           {"MATCH", "user:*"},
           {"MATCH", "*1*", "COUNT", "3"},
           {"TYPE", "string", "COUNT", "50"},
           {"type", "ZSET", "count", "2"},
           {"TYPE", "zset", "MATCH", "geo:[0-2]"},
           {"TYPE", "hash"},
           {"TYPE", "bogus"},
           {"MATCH", "*", "MATCH", "item:1*"},
       }) {
    const std::vector<std::string> got = ScanAll(d.trackdb(), options);
    // trackdb's cursor is a position in name order: no repeats.
    EXPECT_EQ(got.size(), AsSet(got).size());
    EXPECT_EQ(AsSet(got), AsSet(ScanAll(d.redis(), options)))
        << ::testing::PrintToString(options);
  }
  // COUNT bounds the keys examined per call.
  int calls = 0;
  EXPECT_EQ(ScanAll(d.trackdb(), {"COUNT", "10"}, &calls).size(), 205u);
  EXPECT_GE(calls, 21);
  EXPECT_LE(calls, 22);
}

TEST(KeyCommandsTest, ScanErrors) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  for (const char* cursor :
       {"abc", " 1", "1 ", "1.5", "0x10", "99999999999999999999999",
        "18446744073709551616"}) {
    EXPECT_SAME_REPLY(d, {"SCAN", cursor});
  }
  EXPECT_SAME_REPLY(d, {"SCAN", "0", "COUNT", "0"});
  EXPECT_SAME_REPLY(d, {"SCAN", "0", "COUNT", "-1"});
  EXPECT_SAME_REPLY(d, {"SCAN", "0", "COUNT", "x"});
  EXPECT_SAME_REPLY(d, {"SCAN", "0", "COUNT"});
  EXPECT_SAME_REPLY(d, {"SCAN", "0", "MATCH"});
  EXPECT_SAME_REPLY(d, {"SCAN", "0", "TYPE"});
  EXPECT_SAME_REPLY(d, {"SCAN", "0", "BOGUS", "x"});
  EXPECT_SAME_REPLY(d, {"SCAN", "x", "BOGUS", "x"});  // the cursor first
  EXPECT_SAME_REPLY(d, {"SCAN"});
  // Cursors Redis accepts as strtoul does: "+0", "" and "0" with a NUL
  // tail all mean 0.
  EXPECT_SAME_REPLY(d, {"SCAN", "+0"});
  EXPECT_SAME_REPLY(d, {"SCAN", ""});
  EXPECT_SAME_REPLY(d, {"SCAN", std::string("0\0x", 3)});
  EXPECT_SAME_REPLY(d, {"SCAN", "0", "COUNT", "5", "MATCH", "k"});
}

TEST(KeyCommandsTest, UnknownScanCursorStartsAgain) {
  testing::TrackdbResp server;
  RawClient c(server.port());
  std::set<std::string> expected;
  for (int i = 0; i < 30; ++i) {
    const std::string k = absl::StrCat("k", i);
    expected.insert(k);
    ASSERT_EQ(c.Call({"SET", k, "v"}), "+OK\r\n");
  }
  // A cursor trackdb never issued (Redis would continue from that hash
  // position): the walk restarts, so every key is still returned.
  for (const char* cursor : {"123456789", "18446744073709551615", "-1"}) {
    EXPECT_EQ(AsSet(ScanAll(c, {"COUNT", "7"}, nullptr, cursor)), expected)
        << cursor;
  }
  // A cursor issued for another database is unknown to this one.
  const std::string reply = c.Call({"SCAN", "0", "COUNT", "5"});
  const std::string cursor = reply.substr(
      reply.find("\r\n", 4) + 2, reply.find("\r\n", reply.find("\r\n", 4) + 2) -
                                     reply.find("\r\n", 4) - 2);
  ASSERT_NE(cursor, "0");
  ASSERT_EQ(c.Call({"SELECT", "1"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"SET", "only-in-1", "v"}), "+OK\r\n");
  EXPECT_EQ(AsSet(ScanAll(c, {}, nullptr, cursor)),
            std::set<std::string>{"only-in-1"});
}

TEST(KeyCommandsTest, ScanSeesEveryKeyPresentThroughoutDespiteChanges) {
  testing::TrackdbResp server;
  RawClient c(server.port()), writer(server.port());
  std::set<std::string> stable;
  for (int i = 0; i < 100; ++i) {
    const std::string k = absl::StrCat("stable:", i);
    stable.insert(k);
    ASSERT_EQ(c.Call({"SET", k, "v"}), "+OK\r\n");
  }
  std::set<std::string> seen;
  std::string cursor = "0";
  int step = 0;
  do {
    const std::string reply = c.Call({"SCAN", cursor, "COUNT", "6"});
    size_t pos = 4;
    const size_t e = reply.find("\r\n", pos);
    const size_t len = std::stoul(reply.substr(pos + 1, e - pos - 1));
    cursor = reply.substr(e + 2, len);
    pos = e + 2 + len + 2;
    for (const std::string& k : BulkItems(reply, &pos)) seen.insert(k);
    // Keys come and go on every side of the cursor meanwhile.
    writer.Call({"SET", absl::StrCat("a-new:", step), "v"});
    writer.Call({"SET", absl::StrCat("z-new:", step), "v"});
    writer.Call({"DEL", absl::StrCat("a-new:", step - 1)});
    ++step;
  } while (cursor != "0");
  for (const std::string& k : stable) EXPECT_TRUE(seen.count(k)) << k;
}

// The key a RANDOMKEY reply names; "" for nil (and a failure for anything
// but a bulk string or nil).
std::string RandomKeyOf(RawClient& c) {
  const std::string reply = c.Call({"RANDOMKEY"});
  if (reply == "$-1\r\n" || reply == "_\r\n") return "";
  const size_t eol = reply.find("\r\n");
  if (reply.empty() || reply[0] != '$' || eol == std::string::npos) {
    ADD_FAILURE() << "not a bulk string: " << reply;
    return "";
  }
  return reply.substr(eol + 2, reply.size() - eol - 4);
}

TEST(KeyCommandsTest, RandomKeyOfAnEmptyOrOneKeyDatabase) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"RANDOMKEY"});
  EXPECT_SAME_REPLY(d, {"RANDOMKEY", "extra"});
  EXPECT_SAME_REPLY(d, {"HSET", "only", "f", "v"});
  for (int i = 0; i < 3; ++i) EXPECT_SAME_REPLY(d, {"RANDOMKEY"});
  EXPECT_SAME_REPLY(d, {"SET", "gone", "v", "PX", "1"});
  EXPECT_SAME_REPLY(d, {"DEL", "only"});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_SAME_REPLY(d, {"RANDOMKEY"});
  d.Call({"HELLO", "3"});  // client ids differ: the reply is not compared
  EXPECT_SAME_REPLY(d, {"RANDOMKEY"});
}

// Every type of key comes out, each about as often as any other over whole
// walks of the keyspace; expired keys and other databases' keys never do.
TEST(KeyCommandsTest, RandomKeyReachesEveryKeyEvenly) {
  testing::TrackdbResp server;
  RawClient c(server.port());
  std::map<std::string, int> picked;
  ASSERT_EQ(c.Call({"SET", "a-string", "v"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"HSET", "a-hash", "f", "v"}), ":1\r\n");
  ASSERT_EQ(c.Call({"RPUSH", "a-list", "e"}), ":1\r\n");
  ASSERT_EQ(c.Call({"SADD", "a-set", "m"}), ":1\r\n");
  ASSERT_EQ(c.Call({"ZADD", "a-zset", "1", "m"}), ":1\r\n");
  ASSERT_EQ(c.Call({"GEOADD", "a-geo", "13.4", "52.5", "car"}), ":1\r\n");
  for (int i = 0; i < 294; ++i) {
    ASSERT_EQ(c.Call({"SET", absl::StrCat("k", 1000 + i), "v"}), "+OK\r\n");
  }
  for (int i = 0; i < 5; ++i) {
    c.Call({"SET", absl::StrCat("expired", i), "v", "PX", "1"});
  }
  ASSERT_EQ(c.Call({"SELECT", "1"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"SET", "elsewhere", "v"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"SELECT", "0"}), "+OK\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  constexpr int kCalls = 6000;
  for (int i = 0; i < kCalls; ++i) ++picked[RandomKeyOf(c)];
  EXPECT_EQ(picked.size(), 300u);
  for (const char* key :
       {"a-string", "a-hash", "a-list", "a-set", "a-zset", "a-geo"}) {
    EXPECT_GT(picked[key], 0) << key;
  }
  int fewest = kCalls, most = 0;
  for (const auto& [key, n] : picked) {
    EXPECT_EQ(key.rfind("expired", 0), std::string::npos) << key;
    EXPECT_NE(key, "elsewhere");
    fewest = std::min(fewest, n);
    most = std::max(most, n);
  }
  // 20 picks a key on average.
  EXPECT_GE(fewest, 3);
  EXPECT_LE(most, 60);
}

TEST(KeyCommandsTest, RenameStrings) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"RENAME", "nokey", "x"});
  EXPECT_SAME_REPLY(d, {"RENAMENX", "nokey", "x"});
  EXPECT_SAME_REPLY(d, {"RENAME", "nokey", "nokey"});
  EXPECT_SAME_REPLY(d, {"SET", "a", "1", "EXAT", "4102444800"});
  EXPECT_SAME_REPLY(d, {"RENAME", "a", "a"});
  EXPECT_SAME_REPLY(d, {"RENAMENX", "a", "a"});
  EXPECT_SAME_REPLY(d, {"RENAME", "a", "b"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "a"});
  EXPECT_SAME_REPLY(d, {"GET", "b"});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", "b"});  // the expiry moves too
  EXPECT_SAME_REPLY(d, {"SET", "c", "3"});
  EXPECT_SAME_REPLY(d, {"RENAMENX", "b", "c"});
  EXPECT_SAME_REPLY(d, {"RENAMENX", "b", "d"});
  EXPECT_SAME_REPLY(d, {"RENAME", "d", "c"});
  EXPECT_SAME_REPLY(d, {"GET", "c"});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", "c"});
  EXPECT_SAME_REPLY(d, {"SET", "e", "5"});
  EXPECT_SAME_REPLY(d, {"RENAME", "c", "e"});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", "e"});
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
  EXPECT_SAME_REPLY(d, {"RENAME", "e"});
  EXPECT_SAME_REPLY(d, {"RENAME", "e", "f", "g"});
  // Onto a GEO key: the GEO key is replaced.
  AddGeo(d, "g");
  EXPECT_SAME_REPLY(d, {"RENAMENX", "e", "g"});
  EXPECT_SAME_REPLY(d, {"RENAME", "e", "g"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g"});
  EXPECT_SAME_REPLY(d, {"GET", "g"});
  EXPECT_EQ(*d.trackdb_server().store().CollectionSize("g"), 0);
}

TEST(KeyCommandsTest, RenameGeoKeysCopiesTheCollection) {
  Differential d;
  storage::TrackStore& store = d.trackdb_server().store();
  AddGeo(d, "src");
  // More history than one GetTrack page, and a second member.
  std::vector<model::TrackPoint> history;
  for (int t = 2; t <= 12000; ++t) {
    history.push_back(GeoPoint("m", t, 38.0 + t * 1e-6, 13.0));
  }
  history.push_back(GeoPoint("other", 5, 10, 20));
  ASSERT_TRUE(store.AddPoints("src", history).ok());
  d.redis().Call({"GEOADD", "src", "20", "10", "other"});
  auto latest_before = store.GetLatest("src", "m");
  ASSERT_TRUE(latest_before.ok());

  EXPECT_SAME_REPLY(d, {"RENAME", "src", "src"});
  EXPECT_SAME_REPLY(d, {"RENAMENX", "src", "src"});
  EXPECT_SAME_REPLY(d, {"SET", "str", "v"});
  EXPECT_SAME_REPLY(d, {"RENAMENX", "src", "str"});
  EXPECT_SAME_REPLY(d, {"RENAME", "src", "dst"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "src", "dst"});
  EXPECT_SAME_REPLY(d, {"TYPE", "dst"});
  EXPECT_EQ(*store.CollectionSize("src"), 0);
  EXPECT_EQ(*store.CollectionSize("dst"), 2);
  EXPECT_EQ(*store.GetLatest("dst", "m"), *latest_before);
  storage::TrackQuery q;
  q.collection = "dst";
  q.entity = "m";
  q.limit = 20000;
  EXPECT_EQ(store.GetTrack(q)->points.size(), 12000u);  // history kept

  // Onto a string, and onto another GEO key: both replaced.
  EXPECT_SAME_REPLY(d, {"RENAME", "dst", "str"});
  EXPECT_SAME_REPLY(d, {"TYPE", "str"});
  EXPECT_SAME_REPLY(d, {"GET", "str"});
  AddGeo(d, "other-geo");
  EXPECT_SAME_REPLY(d, {"RENAMENX", "str", "other-geo"});
  EXPECT_SAME_REPLY(d, {"RENAME", "str", "other-geo"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "str", "other-geo"});
  EXPECT_EQ(*store.CollectionSize("other-geo"), 2);
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
}

// RENAMENX that NX refuses leaves both keys as they were, whatever each
// holds (it once deleted a GEO destination while answering 0).
TEST(KeyCommandsTest, RefusedRenamenxChangesNothing) {
  Differential d;
  AddGeo(d, "g");
  EXPECT_SAME_REPLY(d, {"SET", "s", "v"});
  EXPECT_SAME_REPLY(d, {"RENAMENX", "s", "g"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g"});
  EXPECT_SAME_REPLY(d, {"ZCARD", "g"});
  EXPECT_SAME_REPLY(d, {"GET", "s"});
  AddGeo(d, "g2");
  EXPECT_SAME_REPLY(d, {"RENAMENX", "g", "g2"});
  EXPECT_SAME_REPLY(d, {"ZCARD", "g"});
  EXPECT_SAME_REPLY(d, {"ZCARD", "g2"});
  EXPECT_SAME_REPLY(d, {"SET", "s2", "w"});
  EXPECT_SAME_REPLY(d, {"RENAMENX", "s", "s2"});
  EXPECT_SAME_REPLY(d, {"MGET", "s", "s2"});
  EXPECT_SAME_REPLY(d, {"RENAMENX", "g", "s"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g"});
  EXPECT_SAME_REPLY(d, {"GET", "s"});
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
}

// Makes `key` hold `kind` in the current database of both servers:
// "none", "string", "ttl" (a string with an expiry) or "geo".
void MakeKey(Differential& d, const std::string& key, const std::string& kind,
             int db) {
  if (kind == "string") {
    EXPECT_SAME_REPLY(d, {"SET", key, "v-" + key});
  } else if (kind == "ttl") {
    EXPECT_SAME_REPLY(d, {"SET", key, "t-" + key, "EXAT", "4102444800"});
  } else if (kind == "geo") {
    AddGeo(d, key, db);
  }
}

// What a key holds, as both servers answer it.
void ExpectSameKey(Differential& d, const std::string& key) {
  EXPECT_SAME_REPLY(d, {"TYPE", key});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", key});
  const std::string type = d.redis().Call({"TYPE", key});
  if (type == "+string\r\n") EXPECT_SAME_REPLY(d, {"GET", key});
  if (type == "+zset\r\n") {
    EXPECT_SAME_REPLY(d, {"ZCARD", key});
    EXPECT_SAME_REPLY(d, {"GEOPOS", key, "m"});
  }
}

// RENAME, RENAMENX, COPY (with and without REPLACE) and MOVE of every kind
// of key onto every kind of key: the same replies, and the same keys after.
TEST(KeyCommandsTest, RenameCopyMoveOntoEveryKindOfKey) {
  Differential d;
  const std::vector<std::string> kinds = {"none", "string", "ttl", "geo"};
  const std::vector<std::vector<std::string>> commands = {
      {"RENAME"}, {"RENAMENX"}, {"COPY"}, {"COPY", "REPLACE"}, {"MOVE"}};
  int n = 0;
  for (const auto& command : commands) {
    for (const std::string& src_kind : kinds) {
      for (const std::string& dst_kind : kinds) {
        const std::string src = absl::StrCat("src", n);
        const std::string dst = absl::StrCat("dst", n++);
        const bool move = command[0] == "MOVE";
        SCOPED_TRACE(
            absl::StrCat(command[0], " ", src_kind, " onto ", dst_kind));
        MakeKey(d, src, src_kind, 0);
        if (move) EXPECT_SAME_REPLY(d, {"SELECT", "1"});
        MakeKey(d, move ? src : dst, dst_kind, move ? 1 : 0);
        if (move) EXPECT_SAME_REPLY(d, {"SELECT", "0"});
        std::vector<std::string> cmd = {command[0], src,
                                        move ? std::string("1") : dst};
        cmd.insert(cmd.end(), command.begin() + 1, command.end());
        EXPECT_SAME_REPLY(d, cmd);
        ExpectSameKey(d, src);
        ExpectSameKey(d, dst);
        if (move) {
          EXPECT_SAME_REPLY(d, {"SELECT", "1"});
          ExpectSameKey(d, src);
          EXPECT_SAME_REPLY(d, {"SELECT", "0"});
        }
      }
    }
  }
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
}

TEST(KeyCommandsTest, CopyAndMoveErrors) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  AddGeo(d, "g");
  const std::vector<std::vector<std::string>> cmds = {
      {"COPY", "k", "k"},
      {"COPY", "g", "g"},
      {"COPY", "k", "k", "DB", "0"},
      {"COPY", "k", "k", "DB", "1"},
      {"COPY", "k", "x", "DB", "16"},
      {"COPY", "k", "x", "DB", "-1"},
      {"COPY", "k", "x", "DB", "abc"},
      {"COPY", "k", "x", "DB", "99999999999"},
      {"COPY", "k", "x", "DB"},
      {"COPY", "k", "x", "NOPE"},
      {"COPY", "k"},
      {"COPY", "g", "g2", "DB", "2", "REPLACE"},
      {"MOVE", "k", "0"},
      {"MOVE", "k", "16"},
      {"MOVE", "k", "x"},
      {"MOVE", "nokey", "3"},
      {"MOVE", "g", "2"},
      {"MOVE", "k"},
      {"EXISTS", "k", "g", "x"},
      {"SELECT", "2"},
      {"TYPE", "g"},
      {"TYPE", "g2"},
      {"ZCARD", "g2"},
      {"DBSIZE"},
  };
  for (const auto& cmd : cmds) EXPECT_SAME_REPLY(d, cmd);
}

// SET, SET with options and MSET over a GEO key replace it, and DEL and
// GEOSEARCHSTORE replace or remove any key, each as one write.
TEST(KeyCommandsTest, StringsAndStoresReplaceGeoKeys) {
  Differential d;
  AddGeo(d, "g1");
  AddGeo(d, "g2");
  AddGeo(d, "g3");
  AddGeo(d, "g4");
  const std::vector<std::vector<std::string>> cmds = {
      {"SET", "g1", "a"},
      {"TYPE", "g1"},
      {"SET", "g2", "b", "GET"},
      {"SET", "g2", "b", "EX", "100", "NX"},
      {"SET", "g2", "b", "PXAT", "4102444800000", "XX"},
      {"TYPE", "g2"},
      {"EXPIRETIME", "g2"},
      {"MSET", "g3", "c", "s", "d"},
      {"MGET", "g3", "s"},
      {"MSETNX", "g4", "e"},
      {"TYPE", "g4"},
      {"GEOSEARCHSTORE", "s", "g4", "FROMLONLAT", "13.36", "38.11", "BYRADIUS",
       "100", "km"},
      {"TYPE", "s"},
      {"ZCARD", "s"},
      {"GEOSEARCHSTORE", "s", "g4", "FROMLONLAT", "0", "0", "BYRADIUS", "1",
       "m"},
      {"TYPE", "s"},
      {"DEL", "g4", "g1", "g4", "nokey"},
      {"DBSIZE"},
  };
  for (const auto& cmd : cmds) EXPECT_SAME_REPLY(d, cmd);
}

TEST(KeyCommandsTest, ExpireOptionsAndErrors) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"EXPIRE", "nokey", "100"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  const std::vector<std::vector<std::string>> cmds = {
      {"EXPIRE", "k", "100", "XX"},
      {"EXPIRE", "k", "100", "GT"},
      {"EXPIREAT", "k", "4102444800", "NX"},
      {"EXPIRETIME", "k"},
      {"EXPIREAT", "k", "4102444900", "NX"},
      {"EXPIREAT", "k", "4102444900", "XX"},
      {"EXPIRETIME", "k"},
      {"EXPIREAT", "k", "4102444800", "GT"},
      {"EXPIREAT", "k", "4102445000", "GT"},
      {"EXPIRETIME", "k"},
      {"EXPIREAT", "k", "4102445000", "LT"},
      {"EXPIREAT", "k", "4102444000", "lt"},
      {"PEXPIRETIME", "k"},
      {"PEXPIREAT", "k", "4102444000500", "XX", "LT"},
      {"PEXPIRETIME", "k"},
      {"EXPIRETIME", "k"},
      {"EXPIRE", "k", "100", "NX", "XX"},
      {"EXPIRE", "k", "100", "NX", "GT"},
      {"EXPIRE", "k", "100", "LT", "NX"},
      {"EXPIRE", "k", "100", "GT", "LT"},
      {"EXPIRE", "k", "100", "XX", "XX", "GT"},
      {"EXPIRE", "k", "100", "BOGUS"},
      {"EXPIRE", "k", "100", std::string("NX\0tail", 7)},
      {"EXPIRE", "k", "100", std::string("bad\0tail", 8)},
      {"EXPIRE", "k", "100", "bad\r\nline"},
      {"EXPIRE", "k", "x"},
      {"EXPIRE", "k", "1.5"},
      {"EXPIRE", "k", "x", "BOGUS"},  // options are checked first
      {"EXPIRE", "k", "9223372036854776"},
      {"EXPIRE", "k", "-9223372036854776"},
      {"EXPIRE", "k", "9223372036854775"},
      {"PEXPIRE", "k", "9223372036854775807"},
      {"EXPIREAT", "k", "9223372036854775"},
      {"EXPIRETIME", "k"},
      {"PEXPIREAT", "k", "9223372036854775807"},
      {"PEXPIRETIME", "k"},
      {"EXPIRETIME", "k"},
      {"PEXPIREAT", "k", "9223372036854775306"},
      {"EXPIRETIME", "k"},
      {"PEXPIREAT", "k", "9223372036854775307"},
      {"EXPIRETIME", "k"},
      {"PERSIST", "k"},
      {"PERSIST", "k"},
      {"TTL", "k"},
      {"PERSIST", "nokey"},
      {"EXPIRE", "k"},
      {"EXPIREAT", "k"},
      {"TTL"},
      {"PERSIST"},
      {"EXPIRETIME", "nokey"},
      {"PEXPIRETIME", "nokey"},
      // Times already past delete the key, whatever the unit.
      {"EXPIRE", "k", "0"},
      {"EXISTS", "k"},
      {"SET", "k", "v"},
      {"PEXPIRE", "k", "-1"},
      {"EXISTS", "k"},
      {"SET", "k", "v"},
      {"EXPIREAT", "k", "1"},
      {"EXISTS", "k"},
      {"SET", "k", "v"},
      {"PEXPIREAT", "k", "-9223372036854775808"},
      {"EXISTS", "k"},
      {"SET", "k", "v"},
      {"EXPIRE", "k", "-1", "GT"},  // no expiry counts as infinite
      {"EXPIRE", "k", "-1", "LT"},
      {"EXISTS", "k"},
      {"SET", "k", "v"},
      {"EXPIRE", "k", "-1", "XX"},
      {"EXPIRE", "k", "-9223372036854775", "NX"},
      {"EXISTS", "k"},
  };
  for (const auto& cmd : cmds) EXPECT_SAME_REPLY(d, cmd);
}

TEST(KeyCommandsTest, TtlAndShortExpiries) {
  Differential d;
  // TTL/PTTL values depend on when each server answers: compared as
  // ranges. What happens after expiry is compared byte for byte.
  EXPECT_SAME_REPLY(d, {"TTL", "nokey"});
  EXPECT_SAME_REPLY(d, {"PTTL", "nokey"});
  EXPECT_SAME_REPLY(d, {"SET", "forever", "v"});
  EXPECT_SAME_REPLY(d, {"TTL", "forever"});
  EXPECT_SAME_REPLY(d, {"PTTL", "forever"});
  for (auto* c : {&d.redis(), &d.trackdb()}) {
    ASSERT_EQ(c->Call({"SET", "a", "v", "PX", "100"}), "+OK\r\n");
    ASSERT_EQ(c->Call({"SET", "b", "v"}), "+OK\r\n");
    ASSERT_EQ(c->Call({"PEXPIRE", "b", "150"}), ":1\r\n");
    ASSERT_EQ(c->Call({"SET", "c", "v", "EX", "100"}), "+OK\r\n");
    const std::string pttl = c->Call({"PTTL", "a"});
    EXPECT_GT(std::stoi(pttl.substr(1)), 0) << pttl;
    EXPECT_LE(std::stoi(pttl.substr(1)), 100) << pttl;
    EXPECT_EQ(c->Call({"TTL", "a"}), ":0\r\n");  // (ms + 500) / 1000 rounds
    EXPECT_EQ(c->Call({"TTL", "c"}), ":100\r\n");
    const std::string c_pttl = c->Call({"PTTL", "c"});
    EXPECT_GT(std::stoi(c_pttl.substr(1)), 99000) << c_pttl;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  for (const char* k : {"a", "b"}) {
    EXPECT_SAME_REPLY(d, {"TTL", k});
    EXPECT_SAME_REPLY(d, {"PTTL", k});
    EXPECT_SAME_REPLY(d, {"EXISTS", k});
    EXPECT_SAME_REPLY(d, {"TYPE", k});
    EXPECT_SAME_REPLY(d, {"PERSIST", k});
    EXPECT_SAME_REPLY(d, {"EXPIRE", k, "100"});
    EXPECT_SAME_REPLY(d, {"RENAME", k, "z"});
    EXPECT_SAME_REPLY(d, {"DEL", k});
  }
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
  EXPECT_THAT(
      ArrayItems(d.trackdb().Call({"KEYS", "*"})),
      UnorderedElementsAreArray(ArrayItems(d.redis().Call({"KEYS", "*"}))));
  EXPECT_EQ(AsSet(ScanAll(d.trackdb(), {})), AsSet(ScanAll(d.redis(), {})));
  // PERSIST saves a key from expiring.
  for (auto* c : {&d.redis(), &d.trackdb()}) {
    ASSERT_EQ(c->Call({"SET", "p", "v", "PX", "100"}), "+OK\r\n");
  }
  EXPECT_SAME_REPLY(d, {"PERSIST", "p"});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_SAME_REPLY(d, {"GET", "p"});
  EXPECT_SAME_REPLY(d, {"TTL", "p"});
}

TEST(KeyCommandsTest, DatabasesKeepKeysApart) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SET", "k", "db0"});
  EXPECT_SAME_REPLY(d, {"SET", std::string(1, '\xff'), "db0-escaped"});
  EXPECT_SAME_REPLY(d, {"SELECT", "1"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "k", std::string(1, '\xff')});
  EXPECT_SAME_REPLY(d, {"SET", "k", "db1"});
  EXPECT_SAME_REPLY(d, {"SET", "only1", "x", "EX", "100"});
  EXPECT_THAT(
      ArrayItems(d.trackdb().Call({"KEYS", "*"})),
      UnorderedElementsAreArray(ArrayItems(d.redis().Call({"KEYS", "*"}))));
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
  EXPECT_SAME_REPLY(d, {"SELECT", "15"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "db15"});
  AddGeo(d, "k15geo", 15);
  EXPECT_SAME_REPLY(d, {"TYPE", "k15geo"});
  EXPECT_SAME_REPLY(d, {"SCAN", "0", "TYPE", "zset"});
  EXPECT_SAME_REPLY(d, {"SELECT", "0"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"GET", std::string(1, '\xff')});
  EXPECT_SAME_REPLY(d, {"EXISTS", "only1", "k15geo"});
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
  EXPECT_THAT(
      ArrayItems(d.trackdb().Call({"KEYS", "*"})),
      UnorderedElementsAreArray(ArrayItems(d.redis().Call({"KEYS", "*"}))));
  EXPECT_SAME_REPLY(d, {"RENAME", "k", "moved"});
  EXPECT_SAME_REPLY(d, {"SELECT", "1"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"DEL", "k", "moved"});
  EXPECT_SAME_REPLY(d, {"SELECT", "15"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"DEL", "k15geo"});
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
}

TEST(KeyCommandsTest, CompactionDropsExpiredStrings) {
  testing::TrackdbResp server;
  RawClient c(server.port());
  ASSERT_EQ(c.Call({"SET", "short", "v", "PX", "50"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"SET", "long", "v", "EX", "1000"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"SET", "forever", "v"}), "+OK\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  ASSERT_EQ(c.Call({"EXISTS", "short"}), ":0\r\n");

  storage::TrackStore& store = server.store();
  auto raw_keys = [&] {
    std::vector<std::string> keys;
    for (const auto& [key, value] :
         storage::testing::ReadRaw(store, storage::ColumnFamily::kKv)) {
      keys.push_back(key);
    }
    return keys;
  };
  // Reads hide the expired value; it is still stored until compaction.
  EXPECT_THAT(raw_keys(), ::testing::ElementsAre("forever", "long", "short"));
  ASSERT_TRUE(
      storage::testing::FlushAndCompact(store, storage::ColumnFamily::kKv)
          .ok());
  EXPECT_THAT(raw_keys(), ::testing::ElementsAre("forever", "long"));
  EXPECT_EQ(c.Call({"GET", "long"}), "$1\r\nv\r\n");
}

}  // namespace
}  // namespace trackdb::resp
