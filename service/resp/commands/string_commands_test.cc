// String commands, compared byte for byte with a real redis-server 7.0
// started beside trackdb's RESP server: every command, its options and its
// errors, GEO keys (WRONGTYPE, or replaced by SET), and a randomized
// workload over a few keys with binary keys and values.
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/track_point.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/resp_test_client.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

using testing::Differential;

// Makes `key` a GEO key with one member on both servers, whose clients are
// in database `db`: GEOADD on Redis, the collection directly on trackdb
// (GEO commands are another family's).
void AddGeo(Differential& d, const std::string& key, int db = 0) {
  ASSERT_EQ(d.redis().Call({"GEOADD", key, "13.361389", "38.115556", "m"}),
            ":1\r\n");
  model::TrackPoint p;
  p.entity = "m";
  p.loc_time_ms = 1;
  p.lat = 38.115556;
  p.lon = 13.361389;
  ASSERT_TRUE(
      d.trackdb_server().store().AddPoints(types::KeyName(db, key), {p}).ok());
}

TEST(StringCommandsTest, GetSetBasics) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", ""});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  const std::string binary("\0\r\n\xff\x01 x", 7);
  EXPECT_SAME_REPLY(d, {"SET", binary, binary});
  EXPECT_SAME_REPLY(d, {"GET", binary});
  EXPECT_SAME_REPLY(d, {"SET", std::string(1, '\xff'), "escaped"});
  EXPECT_SAME_REPLY(d, {"GET", std::string(1, '\xff')});
  EXPECT_SAME_REPLY(d, {"GET", "k", "extra"});
  EXPECT_SAME_REPLY(d, {"GET"});
  EXPECT_SAME_REPLY(d, {"SET", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "big", std::string(100000, 'b')});
  EXPECT_SAME_REPLY(d, {"GET", "big"});
}

TEST(StringCommandsTest, SetOptions) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "NX"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "w", "NX"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "w", "XX"});
  EXPECT_SAME_REPLY(d, {"SET", "missing", "w", "XX"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "x", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "new", "x", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "y", "nx", "get"});
  EXPECT_SAME_REPLY(d, {"SET", "k2", "y", "NX", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "z", "XX", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "nope", "z", "XX", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "GET", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "NX", "XX"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "XX", "NX"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "NX", "NX"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "10", "PX", "100"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "10", "EX", "20"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "KEEPTTL", "EX", "10"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "10", "KEEPTTL"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "PXAT", "1", "EXAT", "1"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "PERSIST"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "BOGUS"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", ""});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", std::string("NX\0junk", 7)});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "abc"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "0"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "-5"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "PX", "0"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EXAT", "0"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "PXAT", "-1"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "9223372036854775"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "9223372036854776"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "PX", "9223372036854775807"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "9223372036854775808"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", " 10"});
  // An expiry error wins over GET's WRONGTYPE and NX.
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "NX", "EX", "0"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EX", "1000"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "w", "KEEPTTL"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "w"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EXAT", "4102444800"});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "PXAT", "4102444800123"});
  EXPECT_SAME_REPLY(d, {"PEXPIRETIME", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "exat", "4102444800", "get"});
  // A time already past: OK, and the key is gone.
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "PXAT", "1"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "EXAT", "1", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "KEEPTTL", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "KEEPTTL", "XX", "GET", "KEEPTTL"});
}

TEST(StringCommandsTest, SetnxSetexPsetexGetset) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SETNX", "k", "v"});
  EXPECT_SAME_REPLY(d, {"SETNX", "k", "w"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"SETNX", "k"});
  EXPECT_SAME_REPLY(d, {"SETEX", "k", "100", "v2"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"SETEX", "k", "0", "v"});
  EXPECT_SAME_REPLY(d, {"SETEX", "k", "-1", "v"});
  EXPECT_SAME_REPLY(d, {"SETEX", "k", "x", "v"});
  EXPECT_SAME_REPLY(d, {"SETEX", "k", "9223372036854776", "v"});
  EXPECT_SAME_REPLY(d, {"SETEX", "k", "v"});
  EXPECT_SAME_REPLY(d, {"PSETEX", "k", "100000", "v3"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});
  EXPECT_SAME_REPLY(d, {"PSETEX", "k", "0", "v"});
  EXPECT_SAME_REPLY(d, {"PSETEX", "k", "9223372036854775807", "v"});
  EXPECT_SAME_REPLY(d, {"PSETEX", "k", "1.5", "v"});
  EXPECT_SAME_REPLY(d, {"GETSET", "k", "v4"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});  // GETSET drops the expiry
  EXPECT_SAME_REPLY(d, {"GETSET", "new", "v"});
  EXPECT_SAME_REPLY(d, {"GET", "new"});
  EXPECT_SAME_REPLY(d, {"GETSET", "new"});
}

TEST(StringCommandsTest, MgetMsetMsetnx) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"MSET", "a", "1", "b", "2", "a", "3"});
  EXPECT_SAME_REPLY(d, {"MGET", "a", "b", "c", "a"});
  EXPECT_SAME_REPLY(d, {"MSET", "a", "1", "b"});
  EXPECT_SAME_REPLY(d, {"MSET", "a"});
  EXPECT_SAME_REPLY(d, {"MSETNX", "a", "1", "b"});
  EXPECT_SAME_REPLY(d, {"MSETNX", "c", "1", "a", "2"});
  EXPECT_SAME_REPLY(d, {"MGET", "a", "b", "c"});
  EXPECT_SAME_REPLY(d, {"MSETNX", "c", "1", "d", "2", "c", "3"});
  EXPECT_SAME_REPLY(d, {"MGET", "a", "b", "c", "d"});
  EXPECT_SAME_REPLY(d, {"MGET"});
  EXPECT_SAME_REPLY(d, {"SET", "e", "v", "EX", "100"});
  EXPECT_SAME_REPLY(d, {"MSET", "e", "w"});
  EXPECT_SAME_REPLY(d, {"TTL", "e"});  // MSET drops the expiry
}

TEST(StringCommandsTest, GetdelGetex) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  EXPECT_SAME_REPLY(d, {"GETDEL", "k"});
  EXPECT_SAME_REPLY(d, {"GETDEL", "k"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "k"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "EX", "-1"});  // nil: no key first
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "BOGUS"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "EX", "100"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "PERSIST"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "PX", "100000"});
  EXPECT_SAME_REPLY(d, {"TTL", "k"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "EXAT", "4102444800"});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", "k"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "PXAT", "4102444800999"});
  EXPECT_SAME_REPLY(d, {"PEXPIRETIME", "k"});
  EXPECT_SAME_REPLY(d, {"EXPIRETIME", "k"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "EX", "0"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "EX", "x"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "EX", "9223372036854776"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "PX", "9223372036854775807"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "EX", "1", "PX", "1"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "PERSIST", "EX", "1"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "EX", "1", "PERSIST"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "KEEPTTL"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "NX"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "GET"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "EX"});
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "PERSIST", "PERSIST"});
  // A past absolute time returns the value and deletes the key.
  EXPECT_SAME_REPLY(d, {"GETEX", "k", "PXAT", "1"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "k"});
  EXPECT_SAME_REPLY(d, {"GETEX"});
  EXPECT_SAME_REPLY(d, {"GETDEL"});
  EXPECT_SAME_REPLY(d, {"GETDEL", "a", "b"});
}

TEST(StringCommandsTest, IncrDecrFamily) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"INCR", "n"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n", "41"});
  EXPECT_SAME_REPLY(d, {"DECR", "n"});
  EXPECT_SAME_REPLY(d, {"DECRBY", "n", "-10"});
  EXPECT_SAME_REPLY(d, {"DECRBY", "n", "100"});
  EXPECT_SAME_REPLY(d, {"GET", "n"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n", "x"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n", "1.5"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n", "+1"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n", "01"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n", "9223372036854775808"});
  EXPECT_SAME_REPLY(d, {"DECRBY", "n", "-9223372036854775808"});
  EXPECT_SAME_REPLY(d, {"SET", "n", "9223372036854775807"});
  EXPECT_SAME_REPLY(d, {"INCR", "n"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n", "0"});
  EXPECT_SAME_REPLY(d, {"SET", "n", "-9223372036854775808"});
  EXPECT_SAME_REPLY(d, {"DECR", "n"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n", "-1"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n", "9223372036854775807"});
  for (const char* bad : {"abc", "", " 1", "1 ", "01", "-0", "1.0", "+5",
                          "99999999999999999999", "0x10"}) {
    EXPECT_SAME_REPLY(d, {"SET", "s", bad});
    EXPECT_SAME_REPLY(d, {"INCR", "s"});
  }
  EXPECT_SAME_REPLY(d, {"SET", "t", "10", "EX", "100"});
  EXPECT_SAME_REPLY(d, {"INCR", "t"});
  EXPECT_SAME_REPLY(d, {"TTL", "t"});  // INCR keeps the expiry
  EXPECT_SAME_REPLY(d, {"INCR"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "n"});
  EXPECT_SAME_REPLY(d, {"DECR", "a", "b"});
}

TEST(StringCommandsTest, Incrbyfloat) {
  Differential d;
  const char* increments[] = {"10.5",   "0.1",
                              "-5",     "3.0e3",
                              "1e-5",   "-0",
                              "0.0",    "1e300",
                              "-1e300", "2.5e-10",
                              "5.0e3",  "1.1",
                              "-1.1",   "123456789012345678"};
  for (const char* inc : increments) {
    EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "f", inc});
  }
  EXPECT_SAME_REPLY(d, {"GET", "f"});
  for (const char* bad :
       {"abc", "", " 1", "1 ", "nan", "1e99999", "-1e99999", "1e-99999",
        "1.2.3", "1e-4940", "0x1p-3", "infinity", "-nan", "1e-310"}) {
    EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "f", bad});
  }
  EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "f", "inf"});
  EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "f", "-inf"});
  EXPECT_SAME_REPLY(d, {"SET", "f", "inf"});
  EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "f", "1"});
  for (const char* stored : {"5", "1.5", "abc", "", "0x10", "1e5", " 1", "3.0",
                             "-0.0", "1e-99999", "1.7976931348623157e308"}) {
    EXPECT_SAME_REPLY(d, {"SET", "g", stored});
    EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "g", "1"});
    EXPECT_SAME_REPLY(d, {"GET", "g"});
  }
  EXPECT_SAME_REPLY(d, {"SET", "g", "1.7976931348623157e308"});
  EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "g", "1.7976931348623157e308"});
  EXPECT_SAME_REPLY(d, {"SET", "h", "1", "EX", "100"});
  EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "h", "0.5"});
  EXPECT_SAME_REPLY(d, {"TTL", "h"});
  EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "h"});
}

TEST(StringCommandsTest, AppendStrlenGetrange) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"STRLEN", "k"});
  EXPECT_SAME_REPLY(d, {"APPEND", "k", "Hello"});
  EXPECT_SAME_REPLY(d, {"APPEND", "k", std::string(" W\0rld", 6)});
  EXPECT_SAME_REPLY(d, {"APPEND", "k", ""});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"STRLEN", "k"});
  EXPECT_SAME_REPLY(d, {"APPEND", "e", ""});
  EXPECT_SAME_REPLY(d, {"EXISTS", "e"});
  const std::vector<std::pair<std::string, std::string>> ranges = {
      {"0", "3"},
      {"0", "-1"},
      {"-3", "-1"},
      {"5", "3"},
      {"-1", "-5"},
      {"-100", "2"},
      {"2", "100"},
      {"11", "11"},
      {"20", "30"},
      {"0", "0"},
      {"-1", "-1"},
      {"-100", "-50"},
      {"9223372036854775807", "-9223372036854775808"},
      {"-9223372036854775808", "9223372036854775807"}};
  for (const auto& [a, b] : ranges) {
    EXPECT_SAME_REPLY(d, {"GETRANGE", "k", a, b});
    EXPECT_SAME_REPLY(d, {"SUBSTR", "k", a, b});
    EXPECT_SAME_REPLY(d, {"GETRANGE", "missing", a, b});
    EXPECT_SAME_REPLY(d, {"GETRANGE", "e", a, b});
  }
  EXPECT_SAME_REPLY(d, {"GETRANGE", "k", "x", "1"});
  EXPECT_SAME_REPLY(d, {"GETRANGE", "k", "1", "1.5"});
  EXPECT_SAME_REPLY(d, {"GETRANGE", "k", "1"});
  EXPECT_SAME_REPLY(d, {"SET", "t", "ab", "EX", "100"});
  EXPECT_SAME_REPLY(d, {"APPEND", "t", "cd"});
  EXPECT_SAME_REPLY(d, {"TTL", "t"});  // APPEND keeps the expiry
  EXPECT_SAME_REPLY(d, {"STRLEN"});
  EXPECT_SAME_REPLY(d, {"APPEND", "k"});
}

TEST(StringCommandsTest, Setrange) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "5", "abc"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "0", "XY"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "7", "LONGER"});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "100", ""});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "missing", "100", ""});
  EXPECT_SAME_REPLY(d, {"EXISTS", "missing"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "-1", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "x", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "9223372036854775808", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "536870912", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "536870911", "xy"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "missing", "536870912", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "9223372036854775807", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "missing", "-1", ""});
  EXPECT_SAME_REPLY(d, {"GET", "k"});
  EXPECT_SAME_REPLY(d, {"SET", "t", "abc", "EX", "100"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "t", "1", "X"});
  EXPECT_SAME_REPLY(d, {"TTL", "t"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "t", "1"});
}

// LCS's subsequence, length and ranges follow Redis's walk back through
// its table, ties included; its errors come in Redis's order (the keys'
// types before the options).
TEST(StringCommandsTest, Lcs) {
  Differential d;
  const std::vector<std::vector<std::string>> commands = {
      {"MSET", "a", "ohmytext", "b", "mynewtext", "c", "abcabcabc", "d",
       "cbacbacba"},
      {"LCS", "a", "b"},
      {"LCS", "a", "b", "LEN"},
      {"LCS", "a", "b", "IDX"},
      {"LCS", "a", "b", "IDX", "MINMATCHLEN", "4"},
      {"LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"},
      {"LCS", "a", "b", "idx", "withmatchlen", "minmatchlen", "-3"},
      {"LCS", "c", "d"},
      {"LCS", "c", "d", "IDX", "WITHMATCHLEN"},
      {"LCS", "d", "c", "IDX"},
      {"LCS", "a", "a", "IDX", "WITHMATCHLEN"},
      {"LCS", "a", "missing"},
      {"LCS", "missing", "a", "IDX"},
      {"LCS", "missing", "other", "LEN"},
      {"LCS", "a", "b", "LEN", "IDX"},
      {"LCS", "a", "b", "FOO"},
      {"LCS", "a", "b", "MINMATCHLEN"},
      {"LCS", "a", "b", "MINMATCHLEN", "x"},
      {"LCS", "a", "b", "MINMATCHLEN", "1.5", "LEN", "IDX"},
      {"LCS", "a"},
      {"RPUSH", "l", "x"},
      {"LCS", "a", "l"},
      {"LCS", "l", "a", "FOO"},
      {"GEOADD", "g", "13.361389", "38.115556", "palermo"},
      {"LCS", "g", "a", "LEN"},
      {"SET", "e", ""},
      {"LCS", "e", "a", "IDX"},
      {"CONFIG", "SET", "proto-max-bulk-len", "1048576"},
      {"SET", "big", std::string(600, 'x')},
      {"LCS", "big", "big", "LEN"},
      {"LCS", "big", "a", "LEN"},
  };
  for (const auto& argv : commands) EXPECT_SAME_REPLY(d, argv);
}

// Random strings over two or three letters, so that the walk meets many
// ties: each pair's subsequence and ranges are Redis's.
TEST(StringCommandsTest, LcsOfRandomStrings) {
  Differential d;
  std::mt19937 rng(20261129);
  auto random_string = [&] {
    const size_t len = rng() % 13;
    const size_t letters = 2 + rng() % 2;
    std::string s;
    for (size_t i = 0; i < len; ++i) s.push_back('a' + rng() % letters);
    return s;
  };
  for (int i = 0; i < 150; ++i) {
    EXPECT_SAME_REPLY(d, {"MSET", "x", random_string(), "y", random_string()});
    EXPECT_SAME_REPLY(d, {"LCS", "x", "y"});
    EXPECT_SAME_REPLY(d, {"LCS", "x", "y", "IDX", "WITHMATCHLEN"});
    EXPECT_SAME_REPLY(d, {"LCS", "y", "x", "IDX", "MINMATCHLEN", "2"});
  }
}

TEST(StringCommandsTest, LcsResp3) {
  Differential d;
  testing::Resp3Both(d);
  EXPECT_SAME_REPLY(d, {"MSET", "a", "ohmytext", "b", "mynewtext"});
  EXPECT_SAME_REPLY(d, {"LCS", "a", "b", "IDX", "WITHMATCHLEN"});
}

TEST(StringCommandsTest, AppendBeyondProtoMaxBulkLen) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"CONFIG", "SET", "proto-max-bulk-len", "1048576"});
  EXPECT_SAME_REPLY(d, {"SET", "k", std::string(1048000, 'a')});
  EXPECT_SAME_REPLY(d, {"APPEND", "k", std::string(576, 'b')});
  EXPECT_SAME_REPLY(d, {"APPEND", "k", "c"});
  EXPECT_SAME_REPLY(d, {"STRLEN", "k"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "1048575", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "k", "1048576", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "n", "1048576", "x"});
}

TEST(StringCommandsTest, GeoKeysAreWrongTypeExceptForSet) {
  Differential d;
  AddGeo(d, "g");
  EXPECT_SAME_REPLY(d, {"GET", "g"});
  EXPECT_SAME_REPLY(d, {"STRLEN", "g"});
  EXPECT_SAME_REPLY(d, {"GETRANGE", "g", "0", "1"});
  EXPECT_SAME_REPLY(d, {"GETRANGE", "g", "x", "1"});
  EXPECT_SAME_REPLY(d, {"MGET", "g", "nokey"});
  EXPECT_SAME_REPLY(d, {"APPEND", "g", "x"});
  EXPECT_SAME_REPLY(d, {"INCR", "g"});
  EXPECT_SAME_REPLY(d, {"INCRBY", "g", "x"});
  EXPECT_SAME_REPLY(d, {"DECRBY", "g", "2"});
  EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "g", "1.5"});
  EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "g", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "g", "0", "x"});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "g", "0", ""});
  EXPECT_SAME_REPLY(d, {"SETRANGE", "g", "-1", "x"});
  EXPECT_SAME_REPLY(d, {"GETDEL", "g"});
  EXPECT_SAME_REPLY(d, {"GETEX", "g"});
  EXPECT_SAME_REPLY(d, {"GETEX", "g", "EX", "0"});
  EXPECT_SAME_REPLY(d, {"GETSET", "g", "v"});
  EXPECT_SAME_REPLY(d, {"SET", "g", "v", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "g", "v", "NX"});
  EXPECT_SAME_REPLY(d, {"SETNX", "g", "v"});
  EXPECT_SAME_REPLY(d, {"MSETNX", "g", "v", "other", "w"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "other"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g"});
  // SET replaces a GEO key, with Redis's semantics.
  EXPECT_SAME_REPLY(d, {"SET", "g", "now a string", "XX"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g"});
  EXPECT_SAME_REPLY(d, {"GET", "g"});
  EXPECT_EQ(*d.trackdb_server().store().CollectionSize("g"), 0);
  AddGeo(d, "g2");
  EXPECT_SAME_REPLY(d, {"SET", "g2", "v", "KEEPTTL"});
  EXPECT_SAME_REPLY(d, {"TTL", "g2"});
  AddGeo(d, "g3");
  AddGeo(d, "g4");
  EXPECT_SAME_REPLY(d, {"MSET", "g3", "a", "g4", "b", "g3", "c"});
  EXPECT_SAME_REPLY(d, {"MGET", "g3", "g4"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g4"});
  AddGeo(d, "g5");
  EXPECT_SAME_REPLY(d, {"SETEX", "g5", "100", "v"});
  EXPECT_SAME_REPLY(d, {"TTL", "g5"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g5"});
  AddGeo(d, "g6");  // plain SET: no old value read
  EXPECT_SAME_REPLY(d, {"SET", "g6", "plain"});
  EXPECT_SAME_REPLY(d, {"TYPE", "g6"});
  EXPECT_SAME_REPLY(d, {"GET", "g6"});
  EXPECT_EQ(*d.trackdb_server().store().CollectionSize("g6"), 0);
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
}

// SET ... KEEPTTL over a key of another type keeps that key's TTL, as
// Redis's setKey does; plain SET over it drops it.
TEST(StringCommandsTest, SetKeepttlOverOtherTypesKeepsTheirTtl) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"HSET", "h", "f", "v"});
  EXPECT_SAME_REPLY(d, {"RPUSH", "l", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "g", "13.36", "38.11", "m"});
  for (const char* key : {"h", "l", "g"}) {
    EXPECT_SAME_REPLY(d, {"PEXPIREAT", key, "4102444800123"});
    EXPECT_SAME_REPLY(d, {"SET", key, "x", "KEEPTTL"});
    EXPECT_SAME_REPLY(d, {"TYPE", key});
    EXPECT_SAME_REPLY(d, {"PEXPIRETIME", key});
  }
  EXPECT_SAME_REPLY(d, {"SADD", "s", "a"});
  EXPECT_SAME_REPLY(d, {"PEXPIREAT", "s", "4102444800123"});
  EXPECT_SAME_REPLY(d, {"SET", "s", "x"});
  EXPECT_SAME_REPLY(d, {"PEXPIRETIME", "s"});
}

TEST(StringCommandsTest, Resp3Nulls) {
  Differential d;
  d.Call({"HELLO", "3"});
  EXPECT_SAME_REPLY(d, {"GET", "nokey"});
  EXPECT_SAME_REPLY(d, {"MGET", "nokey", "x"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "NX", "GET"});
  EXPECT_SAME_REPLY(d, {"SET", "k", "v", "NX"});
  EXPECT_SAME_REPLY(d, {"GETDEL", "nokey"});
  EXPECT_SAME_REPLY(d, {"GETEX", "nokey"});
  EXPECT_SAME_REPLY(d, {"INCRBYFLOAT", "f", "1.5"});
}

TEST(StringCommandsTest, ExpiredStringsAreNeverReturned) {
  Differential d;
  // TTLs are time-dependent: this test compares behaviour after expiry,
  // byte for byte, and PTTL before it only as a range.
  for (auto* c : {&d.redis(), &d.trackdb()}) {
    ASSERT_EQ(c->Call({"SET", "short", "v", "PX", "100"}), "+OK\r\n");
    ASSERT_EQ(c->Call({"SET", "keep", "v"}), "+OK\r\n");
    ASSERT_EQ(c->Call({"SET", "n", "5", "PX", "100"}), "+OK\r\n");
  }
  for (auto* c : {&d.redis(), &d.trackdb()}) {
    const std::string pttl = c->Call({"PTTL", "short"});
    ASSERT_EQ(pttl[0], ':') << pttl;
    const int ms = std::stoi(pttl.substr(1));
    EXPECT_GT(ms, 0);
    EXPECT_LE(ms, 100);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_SAME_REPLY(d, {"GET", "short"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "short", "keep"});
  EXPECT_SAME_REPLY(d, {"TTL", "short"});
  EXPECT_SAME_REPLY(d, {"PTTL", "short"});
  EXPECT_SAME_REPLY(d, {"KEYS", "*"});
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
  EXPECT_SAME_REPLY(d, {"SCAN", "0"});
  EXPECT_SAME_REPLY(d, {"MGET", "short", "keep"});
  EXPECT_SAME_REPLY(d, {"STRLEN", "short"});
  EXPECT_SAME_REPLY(d, {"INCR", "n"});  // starts again from 0
  EXPECT_SAME_REPLY(d, {"TTL", "n"});
  EXPECT_SAME_REPLY(d, {"SET", "short", "w", "XX"});
  EXPECT_SAME_REPLY(d, {"SET", "short", "w", "NX"});
  EXPECT_SAME_REPLY(d, {"TYPE", "short"});
}

TEST(StringCommandsTest, ReadModifyWritesAreAtomicAcrossConnections) {
  testing::TrackdbResp server;  // two event-loop threads
  constexpr int kClients = 4, kEach = 300;
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      testing::RawClient c(server.port());
      for (int i = 0; i < kEach; ++i) {
        c.Call({"INCR", "counter"});
        c.Call({"INCRBYFLOAT", "float", "0.5"});
        c.Call({"APPEND", "log", std::string(1, static_cast<char>('a' + t))});
        // Exactly one client's MSETNX wins each pair of keys.
        c.Call({"MSETNX", absl::StrCat("x", i), absl::StrCat(t),
                absl::StrCat("y", i), absl::StrCat(t)});
      }
    });
  }
  for (auto& t : threads) t.join();
  testing::RawClient c(server.port());
  static_assert(kClients * kEach == 1200);
  EXPECT_EQ(c.Call({"GET", "counter"}), "$4\r\n1200\r\n");
  EXPECT_EQ(c.Call({"GET", "float"}), "$3\r\n600\r\n");
  EXPECT_EQ(c.Call({"STRLEN", "log"}),
            absl::StrCat(":", kClients * kEach, "\r\n"));
  for (int i = 0; i < kEach; ++i) {
    EXPECT_EQ(c.Call({"GET", absl::StrCat("x", i)}),
              c.Call({"GET", absl::StrCat("y", i)}));
  }
}

// A random workload of string commands over a few keys (binary ones
// included) and values (binary, integers, floats, long), compared reply by
// reply. TTL replies are compared as ranges (see CompareTtl); everything
// else byte for byte.
class RandomWorkload {
 public:
  explicit RandomWorkload(uint32_t seed) : rng_(seed) {}

  std::vector<std::string> Next() {
    const std::string k = Key();
    switch (Pick(29)) {
      case 0:
        return {"GET", k};
      case 1:
        return {"SET", k, Value()};
      case 2:
        return Set(k);
      case 3:
        return {"SETNX", k, Value()};
      case 4:
        return {"SETEX", k, Pick(3) == 0 ? "0" : "1000", Value()};
      case 5:
        return {"PSETEX", k, "1000000", Value()};
      case 6:
        return {"MGET", k, Key(), Key()};
      case 7:
        return {"MSET", k, Value(), Key(), Value()};
      case 8:
        return {"MSETNX", k, Value(), Key(), Value()};
      case 9:
        return {"GETSET", k, Value()};
      case 10:
        return {"GETDEL", k};
      case 11:
        return Getex(k);
      case 12:
        return {"INCR", k};
      case 13:
        return {"DECR", k};
      case 14:
        return {"INCRBY", k, Integer()};
      case 15:
        return {"DECRBY", k, Integer()};
      case 16:
        return {"INCRBYFLOAT", k, Float()};
      case 17:
        return {"APPEND", k, Value()};
      case 18:
        return {"STRLEN", k};
      case 19:
        return {"GETRANGE", k, SmallInt(), SmallInt()};
      case 20:
        return {"SETRANGE", k, absl::StrCat(Pick(20)), Value()};
      case 21:
        return {"DEL", k, Key()};
      case 22:
        return {"EXISTS", k, Key(), k};
      case 23:
        return {"TYPE", k};
      case 24:
        return {"TTL", k};
      case 25:
        return {"PERSIST", k};
      case 26: {
        // Absolute times: GT and LT then compare the same numbers on both
        // servers (relative expiries set a millisecond apart would not).
        // They are far beyond the relative ones SET, SETEX and GETEX use.
        static const char* kTimes[] = {"1", "4102444800", "4102444900"};
        return {"EXPIREAT", k, kTimes[Pick(3)], kExpireFlags[Pick(5)]};
      }
      case 27:
        return {"RENAME", k, Key()};
      default:
        return {"#GEOADD", k};  // see the test loop
    }
  }

 private:
  static constexpr const char* kExpireFlags[] = {"NX", "XX", "GT", "LT", "XX"};

  size_t Pick(size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }
  std::string Key() {
    static const std::string keys[] = {
        "a",  "b", "c", std::string("\0k", 2), std::string("\xff\x01", 2),
        "d e"};
    return keys[Pick(std::size(keys))];
  }
  std::string Integer() {
    static const char* ints[] = {"0",
                                 "1",
                                 "-1",
                                 "7",
                                 "-100",
                                 "9223372036854775807",
                                 "-9223372036854775808",
                                 "x",
                                 "1.5",
                                 "+3"};
    return ints[Pick(std::size(ints))];
  }
  std::string SmallInt() {
    return absl::StrCat(static_cast<int>(Pick(21)) - 10);
  }
  std::string Float() {
    static const char* floats[] = {
        "0.1", "-2.5", "1e3", "3", "1e-3", "abc", "1.7976931348623157e308",
        "inf", "-0.3"};
    return floats[Pick(std::size(floats))];
  }
  std::string Value() {
    switch (Pick(6)) {
      case 0:
        return Integer();
      case 1:
        return Float();
      case 2: {
        std::string s(Pick(12), '\0');
        for (char& c : s) c = static_cast<char>(Pick(256));
        return s;
      }
      case 3:
        return std::string(Pick(300), 'v');
      case 4:
        return "";
      default:
        return absl::StrCat("v", Pick(100));
    }
  }
  std::vector<std::string> Set(const std::string& k) {
    std::vector<std::string> cmd = {"SET", k, Value()};
    static const char* opts[] = {"NX", "XX", "GET", "KEEPTTL",
                                 "EX", "PX", "PXAT"};
    for (size_t n = Pick(3); n > 0; --n) {
      const std::string opt = opts[Pick(std::size(opts))];
      cmd.push_back(opt);
      if (opt == "EX") cmd.push_back("1000");
      if (opt == "PX") cmd.push_back("1000000");
      if (opt == "PXAT") cmd.push_back(Pick(2) ? "1" : "4102444800000");
    }
    return cmd;
  }
  std::vector<std::string> Getex(const std::string& k) {
    switch (Pick(4)) {
      case 0:
        return {"GETEX", k};
      case 1:
        return {"GETEX", k, "PERSIST"};
      case 2:
        return {"GETEX", k, "EX", "1000"};
      default:
        return {"GETEX", k, "PXAT", Pick(2) ? "1" : "4102444800000"};
    }
  }

  std::mt19937 rng_;
};

// TTL replies depend on when each server ran the command: equal, or both
// non-negative and within a second of each other.
bool SameTtl(const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (a[0] != ':' || b[0] != ':') return false;
  const long long x = std::stoll(a.substr(1)), y = std::stoll(b.substr(1));
  return x >= 0 && y >= 0 && std::abs(x - y) <= 1;
}

TEST(StringCommandsTest, RandomizedWorkloadMatchesRedis) {
  Differential d;
  RandomWorkload work(20240601);
  int compared = 0;
  std::map<char, int> kinds;  // reply types seen, to show the mix is real
  int geo_replies = 0;
  for (int i = 0; i < 4000; ++i) {
    std::vector<std::string> cmd = work.Next();
    if (cmd[0] == "#GEOADD") {
      // Makes a GEO key of a free key, to mix WRONGTYPE, SET's
      // replacement and RENAME's copy in.
      if (d.redis().Call({"EXISTS", cmd[1]}) == ":0\r\n") AddGeo(d, cmd[1]);
      continue;
    }
    auto r = d.Call(cmd);
    ++kinds[r.redis[0]];
    if (r.redis.find("WRONGTYPE") != std::string::npos) ++geo_replies;
    if (cmd[0] == "TTL") {
      EXPECT_TRUE(SameTtl(r.trackdb, r.redis))
          << "command " << i << ": " << ::testing::PrintToString(cmd)
          << "\nredis: " << r.redis << "\ntrackdb: " << r.trackdb;
    } else {
      EXPECT_EQ(r.trackdb, r.redis)
          << "command " << i << ": " << ::testing::PrintToString(cmd);
    }
    ++compared;
    if (::testing::Test::HasFailure()) break;  // the first divergence says most
  }
  EXPECT_GT(compared, 3500);
  // Mostly successes, with every reply type present, GEO keys included.
  EXPECT_GT(geo_replies, 20);
  EXPECT_LT(kinds['-'], 1000);
  EXPECT_GT(kinds['$'], 500);
  EXPECT_GT(kinds[':'], 1000);
  EXPECT_GT(kinds['*'], 100);
  EXPECT_GT(kinds['+'], 100);
  // The final state, key by key.
  for (const std::string k : {"a", "b", "c", "d e"}) {
    EXPECT_SAME_REPLY(d, {"GET", k});
    EXPECT_SAME_REPLY(d, {"TYPE", k});
  }
  EXPECT_SAME_REPLY(d, {"DBSIZE"});
}

}  // namespace
}  // namespace trackdb::resp
