// SLOWLOG and its CONFIG settings beside a real redis-server: the same
// entries (ids, arguments as Redis cuts them, client names) in the same
// order, with the times and addresses that differ by nature masked.
#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::RawClient;
using testing::TrackdbResp;

// A SLOWLOG GET reply with each entry's time, duration and client address
// masked.
std::string Masked(const std::string& reply) {
  static const std::regex kTimes(R"((\*6\r\n:\d+\r\n):\d+\r\n:\d+\r\n)");
  static const std::regex kAddr(R"(\$\d+\r\n127\.0\.0\.1:\d+\r\n)");
  return std::regex_replace(std::regex_replace(reply, kTimes, "$1:T\r\n:D\r\n"),
                            kAddr, "ADDR\r\n");
}

TEST(SlowlogCommandTest, EntriesAsRedis) {
  Differential d;
  const std::vector<std::vector<std::string>> setup = {
      {"CONFIG", "SET", "slowlog-log-slower-than", "0"},
      {"SLOWLOG", "RESET"},
      {"CLIENT", "SETNAME", "logger"},
      {"SET", "k", "v"},
      {"ECHO", std::string(200, 'x')},
      {"MSET", "a", "1",  "b", "2",  "c", "3",  "d", "4",  "e", "5",  "f",
       "6",    "g", "7",  "h", "8",  "i", "9",  "j", "10", "k", "11", "l",
       "12",   "m", "13", "n", "14", "o", "15", "p", "16", "q", "17"},
      {"GET", "nosuchcommandkey", "extra"},
      {"SLOWLOG", "LEN"},
  };
  for (const auto& call : setup) EXPECT_SAME_REPLY(d, call);
  for (const char* count : {"3", "-1"}) {
    const auto get = d.Call({"SLOWLOG", "GET", count});
    EXPECT_EQ(Masked(get.trackdb), Masked(get.redis)) << count;
    EXPECT_THAT(get.trackdb, ::testing::HasSubstr("more arguments)"));
  }
  for (const auto& call : std::vector<std::vector<std::string>>{
           {"SLOWLOG", "GET", "x"},
           {"SLOWLOG", "GET", "-2"},
           {"SLOWLOG", "GET", "1", "2"},
           {"SLOWLOG", "LEN", "x"},
           {"SLOWLOG", "HELP"},
           {"SLOWLOG", "FOO"},
           // (Redis lists CONFIG GET's matches in its hash table's order.)
           {"CONFIG", "GET", "slowlog-max-len"},
           {"CONFIG", "GET", "slowlog-log-slower-than"},
           {"CONFIG", "SET", "slowlog-max-len", "2"},
           {"SLOWLOG", "LEN"},
           {"CONFIG", "SET", "slowlog-max-len", "-1"},
           {"CONFIG", "SET", "slowlog-log-slower-than", "-2"},
           {"CONFIG", "SET", "slowlog-log-slower-than", "-1"},
           {"SLOWLOG", "RESET"},
           {"SET", "k", "v"},
           {"SLOWLOG", "LEN"},
       }) {
    EXPECT_SAME_REPLY(d, call);
  }
}

// Passwords do not go into the log: AUTH's are redacted (Redis redacts
// them once a password is set).
TEST(SlowlogCommandTest, PasswordsAreRedacted) {
  TrackdbResp server;
  RawClient c(server.port());
  ASSERT_EQ(c.Call({"CONFIG", "SET", "slowlog-log-slower-than", "0"}),
            "+OK\r\n");
  c.Call({"AUTH", "user", "secret"});
  c.Call({"HELLO", "2", "AUTH", "user", "secret"});
  const std::string log = c.Call({"SLOWLOG", "GET", "2"});
  EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("secret")));
  EXPECT_THAT(log,
              ::testing::HasSubstr("*3\r\n$4\r\nAUTH\r\n$10\r\n(redacted)\r\n"
                                   "$10\r\n(redacted)\r\n"));
  EXPECT_THAT(log, ::testing::HasSubstr("$4\r\nAUTH\r\n$10\r\n(redacted)\r\n"
                                        "$10\r\n(redacted)\r\n"));
}

// A pipelined group of point commands runs as one transaction: it is
// timed and logged once, as its first call (Redis logs each call).
TEST(SlowlogCommandTest, APipelinedGroupIsLoggedAsOne) {
  TrackdbResp server;
  RawClient c(server.port());
  ASSERT_EQ(c.Call({"CONFIG", "SET", "slowlog-log-slower-than", "0"}),
            "+OK\r\n");
  ASSERT_EQ(c.Call({"SLOWLOG", "RESET"}), "+OK\r\n");
  c.Send(testing::EncodeCommand({"SADD", "s", "a"}) +
         testing::EncodeCommand({"SADD", "s", "b"}) +
         testing::EncodeCommand({"SADD", "s", "c"}));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(c.ReadReply(), ":1\r\n");
  // SLOWLOG RESET and the group (SLOWLOG LEN is logged after it ran).
  EXPECT_EQ(c.Call({"SLOWLOG", "LEN"}), ":2\r\n");
  EXPECT_THAT(c.Call({"SLOWLOG", "GET", "2"}),
              ::testing::HasSubstr("*3\r\n$4\r\nSADD\r\n$1\r\ns\r\n"
                                   "$1\r\na\r\n"));
}

}  // namespace
}  // namespace trackdb::resp
