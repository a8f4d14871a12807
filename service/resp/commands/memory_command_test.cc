// MEMORY USAGE beside a real redis-server 7.0: options and errors (checked
// before the key), nil for missing and expired keys, an integer for a key
// of every type, byte for byte where Redis's answer is not its allocator's;
// and trackdb's own figures: the bytes each key's entries take, scaled from
// SAMPLES members, growing with what the key holds.
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::ExpectSameReplies;
using Argv = std::vector<std::string>;

// The value of an integer reply; -1 (and a failure) for anything else.
int64_t IntegerOf(const std::string& reply) {
  int64_t n = -1;
  if (reply.size() < 4 || reply[0] != ':' ||
      !absl::SimpleAtoi(reply.substr(1, reply.size() - 3), &n)) {
    ADD_FAILURE() << "not an integer: " << reply;
    return -1;
  }
  return n;
}

int64_t Usage(Differential& d, const std::string& key,
              const std::string& samples = "5") {
  return IntegerOf(
      d.trackdb().Call({"MEMORY", "USAGE", key, "SAMPLES", samples}));
}

TEST(MemoryCommandTest, OptionsAndMissingKeysAsRedis) {
  Differential d;
  ExpectSameReplies(d, {{"SET", "k", "v"},
                        {"MEMORY", "USAGE", "nosuch"},
                        {"MEMORY", "USAGE", "nosuch", "SAMPLES", "3"},
                        {"MEMORY", "USAGE", "k", "SAMPLES"},
                        {"MEMORY", "USAGE", "k", "SAMPLES", "x"},
                        {"MEMORY", "USAGE", "k", "SAMPLES", "-1"},
                        {"MEMORY", "USAGE", "k", "FOO", "1"},
                        {"MEMORY", "USAGE", "nosuch", "SAMPLES", "x"},
                        {"MEMORY", "USAGE", "nosuch", "samples", "1", "x"},
                        {"MEMORY", "USAGE"},
                        {"MEMORY"},
                        {"COMMAND", "GETKEYS", "MEMORY", "USAGE", "k"}});
  ExpectSameReplies(d, {{"SET", "gone", "v", "PX", "1"},
                        {"RPUSH", "gone_list", "a"},
                        {"PEXPIRE", "gone_list", "1"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // Redis may still hold an expired key it has not evicted; trackdb reads
  // it as absent, as every other command does.
  EXPECT_EQ(d.trackdb().Call({"MEMORY", "USAGE", "gone"}), "$-1\r\n");
  EXPECT_EQ(d.trackdb().Call({"MEMORY", "USAGE", "gone_list"}), "$-1\r\n");
  EXPECT_THAT(d.trackdb().Call({"MEMORY", "STATS"}),
              ::testing::StartsWith("-ERR unknown subcommand 'STATS'. Try "
                                    "MEMORY HELP."));
  EXPECT_THAT(d.trackdb().Call({"MEMORY", "HELP"}),
              ::testing::HasSubstr("USAGE <key> [SAMPLES <count>]"));
}

TEST(MemoryCommandTest, EveryTypeAnswersAnInteger) {
  Differential d;
  ExpectSameReplies(d, {{"SET", "s", "hello"},
                        {"HSET", "h", "f", "v"},
                        {"SADD", "set", "a"},
                        {"ZADD", "z", "1", "a"},
                        {"RPUSH", "l", "a"},
                        {"GEOADD", "geo", "13.4", "52.5", "car1"}});
  for (const char* key : {"s", "h", "set", "z", "l", "geo"}) {
    const auto replies = d.Call({"MEMORY", "USAGE", key});
    EXPECT_GT(IntegerOf(replies.redis), 0) << key;
    EXPECT_GT(IntegerOf(replies.trackdb), 0) << key;
  }
}

TEST(MemoryCommandTest, GrowsWithWhatTheKeyHolds) {
  Differential d;
  const std::string value(1000, 'v');
  ExpectSameReplies(d, {{"SET", "small", "x"}, {"SET", "big", value}});
  EXPECT_GE(Usage(d, "big") - Usage(d, "small"), 990);
  for (const char* type : {"hash", "set", "zset", "list"}) {
    for (int n : {10, 1000}) {
      const std::string key = absl::StrCat(type, n);
      Argv add;
      if (std::string(type) == "hash") add = {"HSET", key};
      if (std::string(type) == "set") add = {"SADD", key};
      if (std::string(type) == "zset") add = {"ZADD", key};
      if (std::string(type) == "list") add = {"RPUSH", key};
      for (int i = 0; i < n; ++i) {
        if (std::string(type) == "zset") add.push_back(absl::StrCat(i));
        add.push_back(absl::StrCat("member-", 100000 + i, "-", value));
        if (std::string(type) == "hash") add.push_back("v");
      }
      EXPECT_SAME_REPLY(d, add);
    }
    const std::string small = absl::StrCat(type, 10);
    const std::string big = absl::StrCat(type, 1000);
    // Members of one size: five samples scale to what all of them take. A
    // sorted set stores each member twice (by member, by score).
    const int64_t copies = std::string(type) == "zset" ? 2 : 1;
    const int64_t all = Usage(d, big, "0");
    EXPECT_GE(all, copies * 1000 * 1000) << type;
    EXPECT_LE(all, copies * 1000 * 1300) << type;
    EXPECT_NEAR(Usage(d, big), all, all / 100) << type;
    EXPECT_GT(all, 50 * Usage(d, small, "0")) << type;
  }
}

TEST(MemoryCommandTest, GeoKeyCountsItsMembers) {
  Differential d;
  Argv geo = {"GEOADD", "fleet"};
  for (int i = 0; i < 200; ++i) {
    geo.insert(geo.end(), {absl::StrCat(13 + i * 0.001), "52.5",
                           absl::StrCat("car-", 1000 + i)});
  }
  EXPECT_SAME_REPLY(d, geo);
  EXPECT_SAME_REPLY(d, {"GEOADD", "one", "13.4", "52.5", "car-1000"});
  const int64_t fleet = Usage(d, "fleet", "0");
  EXPECT_GT(fleet, 100 * Usage(d, "one", "0") / 2);
  EXPECT_NEAR(Usage(d, "fleet"), fleet, fleet / 50);
}

}  // namespace
}  // namespace trackdb::resp
