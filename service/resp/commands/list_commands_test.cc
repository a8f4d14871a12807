// List commands, compared byte for byte with a real redis-server 7.0
// started beside trackdb's RESP server: every command, its options and
// errors, WRONGTYPE against strings and GEO keys, RESP3's nulls, blocking
// pops served at once, woken by a push from another connection, or timed
// out, and a randomized workload over a few lists compared after every
// command.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/clock.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/format/typed_values.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::EncodeCommand;
using testing::RawClient;
using testing::TrackdbResp;
using Argv = std::vector<std::string>;

constexpr char kNullArray[] = "*-1\r\n";

// Seconds since `start`.
double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(ListCommandsTest, PushAndPop) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             {"LPUSH", "l", "a"},
             {"LPUSH", "l", "b", "c"},
             {"RPUSH", "l", "x", "y", "z"},
             {"LRANGE", "l", "0", "-1"},
             {"LPUSHX", "l", "p"},
             {"RPUSHX", "l", "q", "r"},
             {"LPUSHX", "nokey", "p"},
             {"RPUSHX", "nokey", "p"},
             {"EXISTS", "nokey"},
             {"LRANGE", "l", "0", "-1"},
             {"LLEN", "l"},
             {"LLEN", "nokey"},
             {"LPOP", "l"},
             {"RPOP", "l"},
             {"LPOP", "l", "2"},
             {"RPOP", "l", "2"},
             {"LPOP", "l", "0"},
             {"RPOP", "l", "0"},
             {"LRANGE", "l", "0", "-1"},
             {"LPOP", "l", "100"},
             {"EXISTS", "l"},
             {"LPOP", "l"},
             {"RPOP", "l"},
             {"LPOP", "l", "1"},
             {"RPOP", "l", "0"},
             {"RPUSH", "l", "a", "b", "c"},
             {"RPOP", "l", "5"},
             {"EXISTS", "l"},
             {"RPUSH", "l", "only"},
             {"RPOP", "l"},
             {"EXISTS", "l"},
             {"RPUSH", "l", "", std::string("\0\r\n\xff", 4)},
             {"LRANGE", "l", "0", "-1"},
             {"LPOP", "l", "-1"},
             {"LPOP", "l", "abc"},
             {"RPOP", "l", "1.5"},
             {"LPOP", "l", "99999999999999999999"},
             {"LPOP", "l", "1", "2"},
             {"RPOP", "l", "1", "2"},
             {"LPOP", "nokey", "-1"},
             {"LPUSH", "l"},
             {"LPOP"},
             {"TYPE", "l"},
         });
}

TEST(ListCommandsTest, IndexSetAndRange) {
  Differential d;
  testing::ExpectSameReplies(d, {{"RPUSH", "l", "a", "b", "c", "d", "e"}});
  for (const char* i : {"0", "4", "5", "-1", "-5", "-6", "9223372036854775807",
                        "-9223372036854775808"}) {
    EXPECT_SAME_REPLY(d, {"LINDEX", "l", i});
  }
  const char* ends[] = {"0",
                        "1",
                        "2",
                        "4",
                        "5",
                        "100",
                        "-1",
                        "-2",
                        "-5",
                        "-6",
                        "-100",
                        "9223372036854775807",
                        "-9223372036854775808"};
  for (const char* start : ends) {
    for (const char* end : ends)
      EXPECT_SAME_REPLY(d, {"LRANGE", "l", start, end});
  }
  testing::ExpectSameReplies(d, {
                                    {"LINDEX", "l", "abc"},
                                    {"LINDEX", "l", "1.0"},
                                    {"LINDEX", "nokey", "abc"},
                                    {"LINDEX", "nokey", "0"},
                                    {"LSET", "l", "0", "A"},
                                    {"LSET", "l", "-1", "E"},
                                    {"LSET", "l", "2", ""},
                                    {"LSET", "l", "5", "x"},
                                    {"LSET", "l", "-6", "x"},
                                    {"LSET", "l", "abc", "x"},
                                    {"LSET", "nokey", "0", "x"},
                                    {"LSET", "nokey", "abc", "x"},
                                    {"EXISTS", "nokey"},
                                    {"LRANGE", "l", "0", "-1"},
                                    {"LRANGE", "l", "a", "1"},
                                    {"LRANGE", "l", "0", "b"},
                                    {"LRANGE", "nokey", "0", "-1"},
                                    {"LRANGE", "nokey", "x", "-1"},
                                    {"LINDEX", "l"},
                                    {"LSET", "l", "0"},
                                    {"LRANGE", "l", "0"},
                                });
}

// Ranges and counted pops past the loop's small sizes (run on a worker).
TEST(ListCommandsTest, LongLists) {
  Differential d;
  Argv push = {"RPUSH", "long"};
  for (int i = 0; i < 500; ++i) push.push_back(absl::StrCat("e", i));
  testing::ExpectSameReplies(d,
                             {
                                 push,
                                 {"LRANGE", "long", "0", "-1"},
                                 {"LRANGE", "long", "10", "300"},
                                 {"LRANGE", "long", "-400", "-2"},
                                 {"LINDEX", "long", "250"},
                                 {"LPOP", "long", "150"},
                                 {"RPOP", "long", "150"},
                                 {"LLEN", "long"},
                                 {"LRANGE", "long", "0", "-1"},
                                 {"LTRIM", "long", "50", "-50"},
                                 {"LRANGE", "long", "0", "-1"},
                                 {"LPOS", "long", "e300"},
                                 {"LREM", "long", "0", "e250"},
                                 {"LINSERT", "long", "BEFORE", "e251", "new"},
                                 {"LRANGE", "long", "0", "-1"},
                             });
}

TEST(ListCommandsTest, Lpos) {
  Differential d;
  testing::ExpectSameReplies(
      d, {{"RPUSH", "l", "a", "b", "c", "a", "b", "a", "c", "a"}});
  const std::vector<Argv> options = {
      {},
      {"RANK", "1"},
      {"RANK", "2"},
      {"RANK", "4"},
      {"RANK", "5"},
      {"RANK", "-1"},
      {"RANK", "-3"},
      {"RANK", "-9"},
      {"RANK", "9223372036854775807"},
      {"RANK", "-9223372036854775808"},
      {"RANK", "-9223372036854775808", "COUNT", "1"},
      {"RANK", "-9223372036854775808", "COUNT", "0"},
      {"COUNT", "0"},
      {"COUNT", "1"},
      {"COUNT", "2"},
      {"COUNT", "10"},
      {"RANK", "2", "COUNT", "2"},
      {"RANK", "-2", "COUNT", "0"},
      {"MAXLEN", "0"},
      {"MAXLEN", "1"},
      {"MAXLEN", "3"},
      {"MAXLEN", "4", "COUNT", "0"},
      {"RANK", "-1", "MAXLEN", "2", "COUNT", "0"},
      {"RANK", "-1", "MAXLEN", "3", "COUNT", "0"},
      {"rank", "1", "count", "1", "maxlen", "9", "RANK", "2"},
      {"RANK", "0"},
      {"RANK", "abc"},
      {"RANK", "1.5"},
      {"COUNT", "-1"},
      {"COUNT", "abc"},
      {"MAXLEN", "-1"},
      {"MAXLEN", "abc"},
      {"RANK"},
      {"COUNT"},
      {"FOO"},
      {"COUNT", "1", "FOO", "1"},
      {"RANK", "0", "COUNT", "-1"},
  };
  for (const char* element : {"a", "b", "c", "z"}) {
    for (const Argv& opts : options) {
      Argv argv = {"LPOS", "l", element};
      argv.insert(argv.end(), opts.begin(), opts.end());
      EXPECT_SAME_REPLY(d, argv);
    }
  }
  testing::ExpectSameReplies(d, {
                                    {"LPOS", "nokey", "a"},
                                    {"LPOS", "nokey", "a", "COUNT", "0"},
                                    {"LPOS", "nokey", "a", "RANK", "0"},
                                    {"LPOS", "l"},
                                });
}

TEST(ListCommandsTest, LremLinsertLtrim) {
  Differential d;
  const Argv fill = {"RPUSH", "l", "a", "b", "a", "c", "a", "b", "a"};
  testing::ExpectSameReplies(
      d, {
             fill,
             {"LREM", "l", "2", "a"},
             {"LRANGE", "l", "0", "-1"},
             {"LREM", "l", "-1", "a"},
             {"LRANGE", "l", "0", "-1"},
             {"LREM", "l", "0", "b"},
             {"LRANGE", "l", "0", "-1"},
             {"LREM", "l", "0", "nothere"},
             {"LREM", "l", "0", "a"},
             {"LREM", "l", "0", "c"},
             {"EXISTS", "l"},
             fill,
             {"LREM", "l", "-9223372036854775808", "a"},
             {"LRANGE", "l", "0", "-1"},
             {"LREM", "l", "9223372036854775807", "b"},
             {"LRANGE", "l", "0", "-1"},
             {"LREM", "l", "x", "a"},
             {"LREM", "nokey", "x", "a"},
             {"LREM", "nokey", "0", "a"},
             {"LINSERT", "l", "BEFORE", "c", "x"},
             {"LINSERT", "l", "AFTER", "c", "y"},
             {"LINSERT", "l", "after", "y", "z"},
             {"LINSERT", "l", "before", "x", "w"},
             {"LRANGE", "l", "0", "-1"},
             {"LINSERT", "l", "BEFORE", "nothere", "v"},
             {"LINSERT", "l", "MIDDLE", "c", "v"},
             {"LINSERT", "nokey", "BEFORE", "c", "v"},
             {"LINSERT", "nokey", "MIDDLE", "c", "v"},
             {"EXISTS", "nokey"},
             {"LRANGE", "l", "0", "-1"},
             {"LTRIM", "l", "1", "-2"},
             {"LRANGE", "l", "0", "-1"},
             {"LTRIM", "l", "-100", "100"},
             {"LRANGE", "l", "0", "-1"},
             {"LTRIM", "l", "1", "1"},
             {"LRANGE", "l", "0", "-1"},
             {"LTRIM", "l", "1", "0"},
             {"EXISTS", "l"},
             fill,
             {"LTRIM", "l", "5", "100"},
             {"LRANGE", "l", "0", "-1"},
             {"LTRIM", "l", "-1", "-1"},
             {"LRANGE", "l", "0", "-1"},
             {"LTRIM", "l", "9223372036854775807", "-9223372036854775808"},
             {"EXISTS", "l"},
             {"LTRIM", "nokey", "0", "1"},
             {"LTRIM", "nokey", "a", "1"},
             {"LTRIM", "l", "0", "b"},
             {"LINSERT", "l", "BEFORE", "c"},
         });
}

TEST(ListCommandsTest, MoveAndRotate) {
  Differential d;
  testing::ExpectSameReplies(d, {
                                    {"RPUSH", "src", "a", "b", "c", "d"},
                                    {"LMOVE", "src", "dst", "LEFT", "LEFT"},
                                    {"LMOVE", "src", "dst", "LEFT", "RIGHT"},
                                    {"LMOVE", "src", "dst", "right", "left"},
                                    {"LRANGE", "src", "0", "-1"},
                                    {"LRANGE", "dst", "0", "-1"},
                                    {"LMOVE", "src", "dst", "RIGHT", "RIGHT"},
                                    {"EXISTS", "src"},
                                    {"LRANGE", "dst", "0", "-1"},
                                    {"LMOVE", "src", "dst", "LEFT", "LEFT"},
                                    {"LMOVE", "dst", "dst", "LEFT", "RIGHT"},
                                    {"LRANGE", "dst", "0", "-1"},
                                    {"LMOVE", "dst", "dst", "RIGHT", "LEFT"},
                                    {"LMOVE", "dst", "dst", "RIGHT", "LEFT"},
                                    {"LRANGE", "dst", "0", "-1"},
                                    {"LMOVE", "dst", "dst", "LEFT", "LEFT"},
                                    {"LMOVE", "dst", "dst", "RIGHT", "RIGHT"},
                                    {"LRANGE", "dst", "0", "-1"},
                                    {"RPOPLPUSH", "dst", "dst"},
                                    {"LRANGE", "dst", "0", "-1"},
                                    {"RPOPLPUSH", "dst", "other"},
                                    {"RPOPLPUSH", "nokey", "other"},
                                    {"LRANGE", "other", "0", "-1"},
                                    {"RPUSH", "one", "x"},
                                    {"RPOPLPUSH", "one", "one"},
                                    {"LRANGE", "one", "0", "-1"},
                                    {"LMOVE", "src", "dst", "UP", "LEFT"},
                                    {"LMOVE", "src", "dst", "LEFT", "DOWN"},
                                    {"LMOVE", "nokey", "dst", "UP", "LEFT"},
                                    {"LMOVE", "dst", "x", "LEFT"},
                                    {"RPOPLPUSH", "dst"},
                                });
}

// A string key (SET) and a GEO key (GEOADD) are the wrong type for every
// list command; a missing source does not look at its destination.
TEST(ListCommandsTest, WrongType) {
  Differential d;
  testing::ExpectSameReplies(d,
                             {
                                 {"SET", "s", "v"},
                                 {"GEOADD", "g", "13.361389", "38.115556", "m"},
                                 {"RPUSH", "l", "a", "b"},
                             });
  for (const char* k : {"s", "g"}) {
    const std::string key = k;
    testing::ExpectSameReplies(d,
                               {
                                   {"LPUSH", key, "a"},
                                   {"RPUSH", key, "a"},
                                   {"LPUSHX", key, "a"},
                                   {"RPUSHX", key, "a"},
                                   {"LPOP", key},
                                   {"RPOP", key, "2"},
                                   {"LPOP", key, "-1"},
                                   {"LLEN", key},
                                   {"LINDEX", key, "0"},
                                   {"LINDEX", key, "x"},
                                   {"LSET", key, "0", "a"},
                                   {"LSET", key, "x", "a"},
                                   {"LRANGE", key, "0", "-1"},
                                   {"LRANGE", key, "x", "-1"},
                                   {"LTRIM", key, "0", "1"},
                                   {"LREM", key, "0", "a"},
                                   {"LINSERT", key, "BEFORE", "a", "b"},
                                   {"LINSERT", key, "MIDDLE", "a", "b"},
                                   {"LPOS", key, "a"},
                                   {"LPOS", key, "a", "RANK", "0"},
                                   {"LMOVE", key, "l", "LEFT", "LEFT"},
                                   {"LMOVE", "l", key, "LEFT", "LEFT"},
                                   {"LMOVE", "nokey", key, "LEFT", "LEFT"},
                                   {"LMOVE", key, key, "LEFT", "LEFT"},
                                   {"RPOPLPUSH", key, "l"},
                                   {"RPOPLPUSH", "l", key},
                                   {"RPOPLPUSH", "nokey", key},
                                   {"BLPOP", key, "0.01"},
                                   {"BLPOP", "nokey", key, "l", "0.01"},
                                   {"BLPOP", "l", key, "0.01"},
                                   {"BRPOP", key, "l", "0.01"},
                                   {"BLMOVE", key, "l", "LEFT", "LEFT", "0.01"},
                                   {"BLMOVE", "l", key, "LEFT", "LEFT", "0.01"},
                                   {"BRPOPLPUSH", key, "l", "0.01"},
                                   {"BRPOPLPUSH", "l", key, "0.01"},
                                   {"BRPOPLPUSH", "nokey", key, "0.01"},
                                   {"LRANGE", "l", "0", "-1"},
                                   {"TYPE", key},
                               });
  }
  EXPECT_SAME_REPLY(d, {"GET", "s"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "g", "m"});
}

// Each database has its own lists.
TEST(ListCommandsTest, Databases) {
  Differential d;
  testing::ExpectSameReplies(d, {
                                    {"RPUSH", "l", "zero"},
                                    {"SELECT", "1"},
                                    {"LRANGE", "l", "0", "-1"},
                                    {"RPUSH", "l", "one", "uno"},
                                    {"LMOVE", "l", "m", "LEFT", "LEFT"},
                                    {"SELECT", "0"},
                                    {"LRANGE", "l", "0", "-1"},
                                    {"LRANGE", "m", "0", "-1"},
                                    {"SELECT", "1"},
                                    {"LRANGE", "m", "0", "-1"},
                                });
}

TEST(ListCommandsTest, Resp3) {
  Differential d;
  testing::Resp3Both(d);
  testing::ExpectSameReplies(
      d, {
             {"RPUSH", "l", "a", "b", "a"},
             {"LPOP", "nokey"},
             {"RPOP", "nokey", "1"},
             {"LPOP", "nokey", "0"},
             {"LPOP", "l", "0"},
             {"LPOP", "l", "1"},
             {"LINDEX", "l", "9"},
             {"LINDEX", "nokey", "0"},
             {"LRANGE", "nokey", "0", "-1"},
             {"LRANGE", "l", "0", "-1"},
             {"LPOS", "l", "z"},
             {"LPOS", "l", "a"},
             {"LPOS", "l", "z", "COUNT", "0"},
             {"LPOS", "nokey", "z"},
             {"LPOS", "nokey", "z", "COUNT", "1"},
             {"LMOVE", "nokey", "l", "LEFT", "LEFT"},
             {"RPOPLPUSH", "nokey", "l"},
             {"BLPOP", "nokey", "0.01"},
             {"BRPOP", "nokey", "l", "0.01"},
             {"BLMOVE", "nokey", "l", "LEFT", "LEFT", "0.01"},
             {"BRPOPLPUSH", "nokey", "l", "0.01"},
             {"BRPOPLPUSH", "l", "m", "0.01"},
             {"LSET", "nokey", "0", "x"},
         });
}

// Blocking commands that find an element reply at once, as the plain
// pops do: the first non-empty key in argument order wins.
// Workers polling a queue with pipelined LPOPs while another connection
// pushes: pops of the empty list run as reads (typed_command.cc), and one
// that meets a push must pop it exactly once. Every element pushed is
// popped once, none twice.
TEST(ListCommandsTest, PollingPopsRacingPushesLoseAndRepeatNothing) {
  TrackdbResp server;
  constexpr int kPushes = 3000;
  constexpr int kDepth = 16;
  std::atomic<bool> pushed_all{false};
  std::vector<std::vector<std::string>> popped(2);
  std::vector<std::thread> pollers;
  for (int w = 0; w < 2; ++w) {
    pollers.emplace_back([&, w] {
      RawClient client(server.port());
      std::string batch;
      for (int i = 0; i < kDepth; ++i) batch += EncodeCommand({"LPOP", "q"});
      bool drained = false;
      while (!drained) {
        const bool after_last_push = pushed_all.load();
        client.Send(batch);
        int nils = 0;
        for (int i = 0; i < kDepth; ++i) {
          const std::optional<std::string> reply = client.ReadReply();
          ASSERT_TRUE(reply.has_value());
          if (*reply == "$-1\r\n") {
            ++nils;
            continue;
          }
          const size_t body = reply->find("\r\n") + 2;
          popped[w].push_back(reply->substr(body, reply->size() - body - 2));
        }
        drained = after_last_push && nils == kDepth;
      }
    });
  }
  RawClient pusher(server.port());
  for (int i = 0; i < kPushes; ++i) {
    ASSERT_EQ(pusher.Call({"RPUSH", "q", absl::StrCat("e", i)}).substr(0, 1),
              ":");
  }
  pushed_all = true;
  for (std::thread& t : pollers) t.join();
  std::vector<std::string> all = popped[0];
  all.insert(all.end(), popped[1].begin(), popped[1].end());
  std::sort(all.begin(), all.end());
  std::vector<std::string> want;
  for (int i = 0; i < kPushes; ++i) want.push_back(absl::StrCat("e", i));
  std::sort(want.begin(), want.end());
  EXPECT_EQ(all, want);
  EXPECT_EQ(pusher.Call({"EXISTS", "q"}), ":0\r\n");
}

TEST(ListCommandsTest, BlockingServedAtOnce) {
  Differential d;
  testing::ExpectSameReplies(d,
                             {
                                 {"RPUSH", "b", "b1", "b2"},
                                 {"RPUSH", "c", "c1"},
                                 {"BLPOP", "a", "b", "c", "0"},
                                 {"BRPOP", "a", "b", "c", "0"},
                                 {"BLPOP", "a", "b", "c", "0"},
                                 {"EXISTS", "b"},
                                 {"BLPOP", "c", "c", "0.2"},
                                 {"BLPOP", "a", "b", "c", "0.01"},
                                 {"RPUSH", "src", "x", "y", "z"},
                                 {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"},
                                 {"BLMOVE", "src", "dst", "RIGHT", "LEFT", "1"},
                                 {"BRPOPLPUSH", "src", "dst", "0"},
                                 {"EXISTS", "src"},
                                 {"LRANGE", "dst", "0", "-1"},
                                 {"BLMOVE", "dst", "dst", "LEFT", "RIGHT", "0"},
                                 {"BRPOPLPUSH", "dst", "dst", "0"},
                                 {"LRANGE", "dst", "0", "-1"},
                                 {"BLPOP", "a", "0.01"},
                                 {"BRPOP", "a", "0.01"},
                                 {"BLMOVE", "a", "dst", "LEFT", "LEFT", "0.01"},
                                 {"BRPOPLPUSH", "a", "dst", "0.01"},
                                 {"EXISTS", "a"},
                             });
}

TEST(ListCommandsTest, BlockingArgumentErrors) {
  Differential d;
  testing::ExpectSameReplies(d, {{"RPUSH", "l", "a"}});
  // Each of these is refused, or (the tiny ones) waits 1 ms: ceil(0.1 ms).
  for (const char* timeout :
       {"abc", "-1", "-0.5", "inf", "-inf", "nan", "1e20", "1e5000", "1e-5000",
        "9223372036854775807", "9223372036854776", "0.0001", "1e-400", "", " 1",
        "1 ", "0x", "--1"}) {
    testing::ExpectSameReplies(
        d, {
               {"BLPOP", "nokey", timeout},
               {"BRPOP", "nokey", "l", timeout},
               {"BLMOVE", "nokey", "l", "LEFT", "LEFT", timeout},
               {"BRPOPLPUSH", "nokey", "l", timeout},
           });
  }
  testing::ExpectSameReplies(d, {
                                    {"BLMOVE", "l", "m", "UP", "LEFT", "abc"},
                                    {"BLMOVE", "l", "m", "LEFT", "UP", "-1"},
                                    {"BLMOVE", "l", "m", "LEFT", "LEFT", "-1"},
                                    {"BLMOVE", "nokey", "m", "LEFT", "UP", "0"},
                                    {"BLPOP", "l"},
                                    {"BLMOVE", "l", "m", "LEFT", "LEFT"},
                                    {"BRPOPLPUSH", "l", "m"},
                                    {"LRANGE", "l", "0", "-1"},
                                });
}

TEST(ListCommandsTest, MultiKeyPops) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             {"SET", "str", "v"},
             {"RPUSH", "l", "a", "b", "c", "d"},
             {"LMPOP", "1", "l", "LEFT"},
             {"LMPOP", "2", "nokey", "l", "RIGHT", "COUNT", "2"},
             {"LMPOP", "2", "nokey", "l", "RIGHT", "COUNT", "9"},
             {"EXISTS", "l"},
             {"LMPOP", "2", "nokey", "l", "LEFT"},
             {"RPUSH", "l", "a", "b", "c"},
             {"LMPOP", "2", "str", "l", "LEFT"},
             {"LMPOP", "2", "l", "str", "LEFT"},
             {"BLMPOP", "0", "2", "nokey", "l", "RIGHT", "COUNT", "1"},
             {"BLMPOP", "0.01", "1", "nokey", "LEFT"},
             {"BLMPOP", "0.01", "2", "str", "l", "LEFT"},
             {"BLMPOP", "0.01", "2", "nokey", "l", "LEFT", "COUNT", "5"},
             {"EXISTS", "l"},
         });
  for (const Argv& tail : std::vector<Argv>{
           {"0", "l", "LEFT"},
           {"-1", "l", "LEFT"},
           {"x", "l", "LEFT"},
           {"1", "l"},
           {"2", "l", "LEFT"},
           {"1", "l", "UP"},
           {"1", "l", "LEFT", "COUNT"},
           {"1", "l", "LEFT", "COUNT", "0"},
           {"1", "l", "LEFT", "COUNT", "1", "COUNT", "1"},
           {"1", "l", "LEFT", "junk"},
       }) {
    Argv lmpop = {"LMPOP"};
    lmpop.insert(lmpop.end(), tail.begin(), tail.end());
    EXPECT_SAME_REPLY(d, lmpop);
    Argv blmpop = {"BLMPOP", "0.01"};
    blmpop.insert(blmpop.end(), tail.begin(), tail.end());
    EXPECT_SAME_REPLY(d, blmpop);
  }
  testing::ExpectSameReplies(d, {{"BLMPOP", "x", "1", "l", "LEFT"},
                                 {"BLMPOP", "-1", "0", "l", "LEFT"},
                                 {"LMPOP", "1"}});
}

TEST(ListCommandsTest, BlmpopIsWokenByAPush) {
  Differential d;
  RawClient redis(d.redis_port());
  RawClient trackdb(d.trackdb_server().port());
  const std::string blmpop =
      EncodeCommand({"BLMPOP", "10", "2", "q1", "q2", "RIGHT", "COUNT", "2"});
  redis.Send(blmpop);
  EXPECT_EQ(redis.ReadReply(200), std::nullopt);
  trackdb.Send(blmpop);
  EXPECT_EQ(trackdb.ReadReply(200), std::nullopt);
  const auto pushed = std::chrono::steady_clock::now();
  EXPECT_SAME_REPLY(d, {"RPUSH", "q2", "x", "y", "z"});
  const std::optional<std::string> want = redis.ReadReply();
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(trackdb.ReadReply(), want);
  EXPECT_LT(SecondsSince(pushed), 0.5);
  EXPECT_SAME_REPLY(d, {"LRANGE", "q2", "0", "-1"});
}

// A BLPOP waiting on one connection is served by a push from another, on
// both servers alike.
TEST(ListCommandsTest, BlpopIsWokenByAPushFromAnotherConnection) {
  Differential d;
  RawClient redis(d.redis_port());
  RawClient trackdb(d.trackdb_server().port());
  const std::string blpop = EncodeCommand({"BLPOP", "q1", "q2", "10"});
  // Both are waiting: nothing comes back yet.
  redis.Send(blpop);
  EXPECT_EQ(redis.ReadReply(200), std::nullopt);
  trackdb.Send(blpop);
  EXPECT_EQ(trackdb.ReadReply(200), std::nullopt);
  const auto pushed = std::chrono::steady_clock::now();
  EXPECT_SAME_REPLY(d, {"RPUSH", "q2", "x", "y"});
  const std::optional<std::string> want = redis.ReadReply();
  const std::optional<std::string> got = trackdb.ReadReply();
  // Well within the waiters' periodic retry (1 s): the push woke it.
  EXPECT_LT(SecondsSince(pushed), 0.5);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(*want, "*2\r\n$2\r\nq2\r\n$1\r\nx\r\n");
  EXPECT_EQ(got, want);
  EXPECT_SAME_REPLY(d, {"LRANGE", "q2", "0", "-1"});
}

// Clients blocked on one key are served first come, first served, on
// both servers alike: a push of three elements feeds the three waiters in
// the order they blocked, and single pushes feed them one by one in order.
TEST(ListCommandsTest, WaitersOnOneKeyAreServedInTheOrderTheyCame) {
  Differential d;
  std::vector<std::unique_ptr<RawClient>> redis, trackdb;
  for (int i = 0; i < 3; ++i) {
    redis.push_back(std::make_unique<RawClient>(d.redis_port()));
    trackdb.push_back(std::make_unique<RawClient>(d.trackdb_server().port()));
    // The first waits on q only; the others on another key first.
    const Argv wait =
        i == 0 ? Argv{"BLPOP", "q", "10"} : Argv{"BLPOP", "other", "q", "10"};
    redis[i]->Send(EncodeCommand(wait));
    EXPECT_EQ(redis[i]->ReadReply(100), std::nullopt);
    trackdb[i]->Send(EncodeCommand(wait));
    EXPECT_EQ(trackdb[i]->ReadReply(100), std::nullopt);
  }
  EXPECT_SAME_REPLY(d, {"RPUSH", "q", "a", "b", "c"});
  for (int i = 0; i < 3; ++i) {
    const std::string want = absl::StrCat("*2\r\n$1\r\nq\r\n$1\r\n",
                                          std::string(1, 'a' + i), "\r\n");
    EXPECT_EQ(redis[i]->ReadReply(), want) << i;
    EXPECT_EQ(trackdb[i]->ReadReply(), want) << i;
  }
  // Single pushes, each woken waiter racing the ones behind it.
  for (int round = 0; round < 4; ++round) {
    for (auto& c : trackdb) {  // each blocked before the next comes
      c->Send(EncodeCommand({"BLPOP", "q", "10"}));
      EXPECT_EQ(c->ReadReply(50), std::nullopt);
    }
    for (int i = 0; i < 3; ++i) {
      const std::string v = absl::StrCat(round, i);
      EXPECT_EQ(d.trackdb().Call({"RPUSH", "q", v}), ":1\r\n");
      EXPECT_EQ(trackdb[i]->ReadReply(),
                absl::StrCat("*2\r\n$1\r\nq\r\n$2\r\n", v, "\r\n"))
          << round << " " << i;
    }
  }
}

TEST(ListCommandsTest, BlmoveAndBrpoplpushAreWokenByPushes) {
  Differential d;
  RawClient redis(d.redis_port());
  RawClient trackdb(d.trackdb_server().port());
  for (const Argv& wait : {Argv{"BLMOVE", "src", "dst", "RIGHT", "LEFT", "0"},
                           Argv{"BRPOPLPUSH", "src", "dst", "10"}}) {
    redis.Send(EncodeCommand(wait));
    EXPECT_EQ(redis.ReadReply(200), std::nullopt);
    trackdb.Send(EncodeCommand(wait));
    EXPECT_EQ(trackdb.ReadReply(200), std::nullopt);
    const auto pushed = std::chrono::steady_clock::now();
    EXPECT_SAME_REPLY(d, {"LPUSH", "src", "a", "b"});
    const std::optional<std::string> want = redis.ReadReply();
    ASSERT_TRUE(want.has_value());
    EXPECT_EQ(trackdb.ReadReply(), want);
    EXPECT_LT(SecondsSince(pushed), 0.5);
    EXPECT_SAME_REPLY(d, {"LRANGE", "src", "0", "-1"});
    EXPECT_SAME_REPLY(d, {"LRANGE", "dst", "0", "-1"});
    EXPECT_SAME_REPLY(d, {"DEL", "src"});
  }
}

// LMOVE's push wakes a waiter on its destination; a waiter whose key holds
// another type keeps waiting (Redis 7.0 serves it only from a list).
TEST(ListCommandsTest, MovesWakeWaitersAndOtherTypesDoNot) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"RPUSH", "from", "m1"});
  RawClient redis(d.redis_port());
  RawClient trackdb(d.trackdb_server().port());
  const std::string brpop = EncodeCommand({"BRPOP", "to", "10"});
  redis.Send(brpop);
  EXPECT_EQ(redis.ReadReply(200), std::nullopt);
  trackdb.Send(brpop);
  EXPECT_EQ(trackdb.ReadReply(200), std::nullopt);
  EXPECT_SAME_REPLY(d, {"SET", "to", "string"});
  // A push elsewhere wakes the waiter, which finds a string and waits on.
  EXPECT_SAME_REPLY(d, {"RPUSH", "elsewhere", "e"});
  EXPECT_EQ(trackdb.ReadReply(200), std::nullopt);
  EXPECT_EQ(redis.ReadReply(200), std::nullopt);
  EXPECT_SAME_REPLY(d, {"DEL", "to"});
  const auto moved = std::chrono::steady_clock::now();
  EXPECT_SAME_REPLY(d, {"LMOVE", "from", "to", "LEFT", "LEFT"});
  const std::optional<std::string> want = redis.ReadReply();
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(*want, "*2\r\n$2\r\nto\r\n$2\r\nm1\r\n");
  EXPECT_EQ(trackdb.ReadReply(), want);
  EXPECT_LT(SecondsSince(moved), 0.5);
  EXPECT_SAME_REPLY(d, {"EXISTS", "to"});
}

TEST(ListCommandsTest, TimeoutRepliesNullInAboutTheTime) {
  TrackdbResp server;
  RawClient c(server.port());
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(c.Call({"BLPOP", "nokey", "0.3"}), kNullArray);
  double took = SecondsSince(start);
  EXPECT_GE(took, 0.29);
  EXPECT_LT(took, 2.0);

  start = std::chrono::steady_clock::now();
  EXPECT_EQ(c.Call({"BLMOVE", "nokey", "x", "LEFT", "LEFT", "0.2"}),
            kNullArray);
  took = SecondsSince(start);
  EXPECT_GE(took, 0.19);
  EXPECT_LT(took, 2.0);

  EXPECT_THAT(c.Call({"HELLO", "3"}), ::testing::StartsWith("%7\r\n"));
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(c.Call({"BRPOPLPUSH", "nokey", "x", "0.2"}), "_\r\n");
  EXPECT_GE(SecondsSince(start), 0.19);
}

// Timeout 0 waits past any poll interval, until a push.
TEST(ListCommandsTest, TimeoutZeroWaitsForever) {
  TrackdbResp server;
  RawClient waiter(server.port());
  RawClient pusher(server.port());
  waiter.Send(EncodeCommand({"BLPOP", "q", "0"}));
  EXPECT_EQ(waiter.ReadReply(2500), std::nullopt);  // past two retries
  EXPECT_EQ(pusher.Call({"LPUSH", "q", "v"}), ":1\r\n");
  EXPECT_EQ(waiter.ReadReply(), "*2\r\n$1\r\nq\r\n$1\r\nv\r\n");
}

// A list that arrives without a list push (here written to the store
// directly) is found by the waiter's periodic retry.
TEST(ListCommandsTest, WaiterFindsAListThatArrivedWithoutAPush) {
  TrackdbResp server;
  RawClient waiter(server.port());
  waiter.Send(EncodeCommand({"BLPOP", "q", "10"}));
  EXPECT_EQ(waiter.ReadReply(200), std::nullopt);
  const std::string names[] = {types::KeyName(0, "q")};
  ASSERT_TRUE(server.store()
                  .UpdateTyped(names, NowMs(),
                               [&](storage::TypedTxn& txn) {
                                 storage::TypedMeta meta =
                                     txn.Create(storage::ValueType::kList);
                                 txn.Put(names[0], meta,
                                         storage::ListSubkey(meta.head), "v");
                                 meta.size = 1;
                                 txn.SetMeta(names[0], meta);
                                 return absl::OkStatus();
                               })
                  .ok());
  EXPECT_EQ(waiter.ReadReply(3000), "*2\r\n$1\r\nq\r\n$1\r\nv\r\n");
}

// Waiting clients hold no thread: with one worker and more waiters than
// that, worker commands are answered at once, and pushes serve each waiter.
TEST(ListCommandsTest, WaitersHoldNoWorker) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_worker_threads(1);
  TrackdbResp server(config);
  std::vector<std::unique_ptr<RawClient>> waiters;
  for (int i = 0; i < 6; ++i) {
    waiters.push_back(std::make_unique<RawClient>(server.port()));
    waiters.back()->Send(EncodeCommand({"BLPOP", absl::StrCat("q", i), "0"}));
  }
  EXPECT_EQ(waiters[0]->ReadReply(200), std::nullopt);
  RawClient reader(server.port());
  EXPECT_EQ(reader.Call({"RPUSH", "other", "o"}), ":1\r\n");
  reader.Send(EncodeCommand({"LRANGE", "other", "0", "-1"}));
  EXPECT_EQ(reader.ReadReply(1000), "*1\r\n$1\r\no\r\n");
  reader.Send(EncodeCommand({"KEYS", "*"}));
  EXPECT_EQ(reader.ReadReply(1000), "*1\r\n$5\r\nother\r\n");
  for (int i = 5; i >= 0; --i) {
    const std::string key = absl::StrCat("q", i);
    EXPECT_EQ(reader.Call({"LPUSH", key, "v"}), ":1\r\n");
    EXPECT_EQ(waiters[i]->ReadReply(),
              absl::StrCat("*2\r\n$2\r\n", key, "\r\n$1\r\nv\r\n"));
  }
}

// A waiting client that hangs up leaves the line at once: the next push
// goes to the waiter behind it, not to the closed connection.
TEST(ListCommandsTest, AWaiterThatHangsUpLeavesTheLine) {
  TrackdbResp server;
  RawClient pusher(server.port());
  {
    RawClient gone(server.port());
    gone.Send(EncodeCommand({"BLPOP", "q", "0"}));
    EXPECT_EQ(gone.ReadReply(200), std::nullopt);
  }
  RawClient waiter(server.port());
  waiter.Send(EncodeCommand({"BLPOP", "q", "0"}));
  EXPECT_EQ(waiter.ReadReply(200), std::nullopt);
  EXPECT_EQ(pusher.Call({"RPUSH", "q", "v"}), ":1\r\n");
  EXPECT_EQ(waiter.ReadReply(3000), "*2\r\n$1\r\nq\r\n$1\r\nv\r\n");
  EXPECT_EQ(pusher.Call({"LLEN", "q"}), ":0\r\n");
}

// In a pipeline, the replies before a waiting pop go out while it waits;
// the calls after it are served once it is.
TEST(ListCommandsTest, APipelineWaitsAtItsPop) {
  TrackdbResp server;
  RawClient client(server.port());
  RawClient pusher(server.port());
  client.Send(EncodeCommand({"LPUSH", "a", "1"}) +
              EncodeCommand({"BLPOP", "q", "0"}) + EncodeCommand({"PING"}));
  EXPECT_EQ(client.ReadReply(1000), ":1\r\n");
  EXPECT_EQ(client.ReadReply(300), std::nullopt);
  client.Send(EncodeCommand({"ECHO", "later"}));
  EXPECT_EQ(client.ReadReply(300), std::nullopt);
  EXPECT_EQ(pusher.Call({"RPUSH", "q", "v"}), ":1\r\n");
  EXPECT_EQ(client.ReadReply(), "*2\r\n$1\r\nq\r\n$1\r\nv\r\n");
  EXPECT_EQ(client.ReadReply(), "+PONG\r\n");
  EXPECT_EQ(client.ReadReply(), "$5\r\nlater\r\n");
}

// CLIENT LIST flags a waiting client "b" and INFO counts it, as Redis
// does, until it is served.
TEST(ListCommandsTest, AWaitingClientShowsAsBlocked) {
  TrackdbResp server;
  RawClient waiter(server.port());
  RawClient observer(server.port());
  waiter.Send(EncodeCommand({"BLPOP", "q", "0"}));
  EXPECT_EQ(waiter.ReadReply(200), std::nullopt);
  EXPECT_THAT(observer.Call({"CLIENT", "LIST"}),
              ::testing::ContainsRegex(" flags=b db=0 .* cmd=blpop "));
  EXPECT_THAT(observer.Call({"INFO", "clients"}),
              ::testing::HasSubstr("blocked_clients:1\r\n"));
  EXPECT_EQ(observer.Call({"RPUSH", "q", "v"}), ":1\r\n");
  EXPECT_EQ(waiter.ReadReply(), "*2\r\n$1\r\nq\r\n$1\r\nv\r\n");
  EXPECT_THAT(observer.Call({"INFO", "clients"}),
              ::testing::HasSubstr("blocked_clients:0\r\n"));
  EXPECT_THAT(observer.Call({"CLIENT", "LIST"}),
              ::testing::Not(::testing::HasSubstr("flags=b")));
}

// Pipelined pushes, served as one group, wake a waiter once the group has
// committed, not at the next recheck.
TEST(ListCommandsTest, AGroupOfPushesWakesAWaiter) {
  TrackdbResp server;
  RawClient waiter(server.port());
  RawClient pusher(server.port());
  waiter.Send(EncodeCommand({"BLPOP", "q", "5"}));
  EXPECT_EQ(waiter.ReadReply(200), std::nullopt);
  pusher.Send(EncodeCommand({"RPUSH", "q", "a"}) +
              EncodeCommand({"RPUSH", "q", "b"}));
  EXPECT_EQ(pusher.ReadReply(), ":1\r\n");
  EXPECT_EQ(pusher.ReadReply(), ":2\r\n");
  EXPECT_EQ(waiter.ReadReply(700), "*2\r\n$1\r\nq\r\n$1\r\na\r\n");
}

// Shutting the server down ends a wait that would last forever.
TEST(ListCommandsTest, ShutdownEndsAWait) {
  auto server = std::make_unique<TrackdbResp>();
  RawClient waiter(server->port());
  waiter.Send(EncodeCommand({"BLPOP", "q", "0"}));
  EXPECT_EQ(waiter.ReadReply(200), std::nullopt);
  const auto start = std::chrono::steady_clock::now();
  server.reset();
  EXPECT_LT(SecondsSince(start), 5.0);
}

// Random pushes, pops, removals, inserts, trims and sets over a few lists
// of a small alphabet (so that LREM, LINSERT and LPOS find matches), each
// list compared after every command.
class ListWorkload {
 public:
  explicit ListWorkload(uint32_t seed) : rng_(seed) {}

  Argv Next() {
    const std::string key = keys_[Int(0, 2)];
    switch (Int(0, 12)) {
      case 0:
      case 1:
        return Push("LPUSH", key);
      case 2:
      case 3:
        return Push("RPUSH", key);
      case 4:
        return Int(0, 1) ? Argv{"LPOP", key}
                         : Argv{"LPOP", key, std::to_string(Int(0, 4))};
      case 5:
        return Int(0, 1) ? Argv{"RPOP", key}
                         : Argv{"RPOP", key, std::to_string(Int(0, 4))};
      case 6:
        return {"LREM", key, std::to_string(Int(-3, 3)), Element()};
      case 7:
      case 8:
        return {"LINSERT", key, Int(0, 1) ? "BEFORE" : "AFTER", Element(),
                Element()};
      case 9:
        return {"LTRIM", key, Index(), Index()};
      case 10:
        return {"LSET", key, Index(), Element()};
      case 11:
        return {"LMOVE", key, keys_[Int(0, 2)], Int(0, 1) ? "LEFT" : "RIGHT",
                Int(0, 1) ? "LEFT" : "RIGHT"};
      default:
        return {"LPOS",  key, Element(), "RANK", Int(0, 1) ? "1" : "-2",
                "COUNT", "0"};
    }
  }
  const std::vector<std::string>& keys() const { return keys_; }
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }

 private:
  Argv Push(const char* command, const std::string& key) {
    Argv argv = {command, key};
    const int n = Int(1, 6);
    for (int i = 0; i < n; ++i) argv.push_back(Element());
    return argv;
  }
  std::string Element() {
    return std::string(1, static_cast<char>('a' + Int(0, 3)));
  }
  // Mostly within the lists' sizes, sometimes past them, either sign.
  std::string Index() { return std::to_string(Int(-25, 25)); }

  std::mt19937 rng_;
  const std::vector<std::string> keys_ = {"l1", "l2", "l3"};
};

TEST(ListCommandsTest, RandomizedWorkloadMatchesRedis) {
  Differential d;
  ListWorkload w(20260517);
  for (int i = 0; i < 1500; ++i) {
    const Argv argv = w.Next();
    EXPECT_SAME_REPLY(d, argv);
    for (const std::string& key : w.keys()) {
      EXPECT_SAME_REPLY(d, {"LRANGE", key, "0", "-1"});
    }
    if (::testing::Test::HasFailure()) {
      FAIL() << "stopped at command " << i;
    }
  }
}

}  // namespace
}  // namespace trackdb::resp
