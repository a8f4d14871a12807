// MULTI, EXEC, DISCARD, WATCH and UNWATCH against a real redis-server 7.0:
// queued calls of every type (point and worker commands), sent one by one
// and as one pipeline as redis-py sends a transaction, with replies byte
// for byte; queue-time refusals (EXECABORT), run-time errors as elements,
// nesting and the without-MULTI errors, blocking pops and SELECT inside,
// RESP3; WATCH. Then isolation: another client's commands never
// see the middle of an EXEC, whether they run one by one or as pipelined
// groups on a key's lane.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::ExpectSameReplies;
using testing::RawClient;
using Argv = std::vector<std::string>;

void ExpectSamePipeline(Differential& d, const std::vector<Argv>& calls) {
  const auto replies = d.Pipeline(calls);
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(replies[i].trackdb, replies[i].redis)
        << ::testing::PrintToString(calls[i]);
  }
}

const std::vector<Argv>& EveryType() {
  static const auto* calls =
      new std::vector<Argv>{{"MULTI"},
                            {"SET", "s", "1"},
                            {"INCR", "s"},
                            {"GET", "s"},
                            {"HSET", "h", "f", "v", "g", "w"},
                            {"HINCRBY", "h", "n", "5"},
                            {"RPUSH", "l", "a", "b", "c"},
                            {"LRANGE", "l", "0", "-1"},
                            {"SADD", "set", "1", "2"},
                            {"ZADD", "z", "1", "a", "2", "b"},
                            {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
                            {"GEOADD", "g", "13.4", "52.5", "car"},
                            {"GEOPOS", "g", "car"},
                            {"KEYS", "se*"},
                            {"EXPIRE", "s", "100"},
                            {"TTL", "s"},
                            {"DEL", "set"},
                            {"EXEC"}};
  return *calls;
}

TEST(TransactionCommandsTest, QueuedCallsOfEveryTypeOneByOne) {
  Differential d;
  ExpectSameReplies(d, EveryType());
  ExpectSameReplies(d, {{"TYPE", "h"}, {"HGETALL", "h"}, {"EXISTS", "set"}});
}

TEST(TransactionCommandsTest, QueuedCallsOfEveryTypeAsOnePipeline) {
  Differential d;
  ExpectSamePipeline(d, EveryType());
  // Pipelined point calls of one key, which trackd otherwise serves as a
  // group, are each queued.
  std::vector<Argv> run = {{"MULTI"}};
  for (int i = 0; i < 20; ++i) {
    run.push_back({"HSET", "hot", absl::StrCat("f", i % 7), "v"});
  }
  run.push_back({"HLEN", "hot"});
  run.push_back({"EXEC"});
  ExpectSamePipeline(d, run);
}

TEST(TransactionCommandsTest, ErrorsAndAborts) {
  Differential d;
  ExpectSameReplies(d, {{"EXEC"},
                        {"DISCARD"},
                        {"MULTI"},
                        {"MULTI"},  // not nested, and no abort
                        {"WATCH", "k"},
                        {"SET", "k", "1"},
                        {"EXEC"},
                        {"GET", "k"},
                        {"MULTI"},
                        {"SET", "k", "2"},
                        {"NOSUCH", "x"},
                        {"SET", "k"},
                        {"EXEC"},
                        {"GET", "k"},  // nothing ran
                        {"EXEC"},      // the transaction is over
                        {"MULTI"},
                        {"SET", "k", "3"},
                        {"DISCARD"},
                        {"GET", "k"},
                        {"MULTI"},
                        {"EXEC"},  // empty
                        {"MULTI"},
                        {"SET", "t", "x"},
                        {"INCR", "t"},  // fails as it runs; the rest run
                        {"LPUSH", "t", "a"},
                        {"SET", "u", "1"},
                        {"EXEC"},
                        {"GET", "u"},
                        {"MULTI"},
                        {"WATCH"},  // arity: the transaction aborts
                        {"EXEC"},
                        {"UNWATCH"},
                        {"MULTI", "x"},
                        {"EXEC", "x"},  // refused: EXECABORT, even here
                        {"MULTI"},
                        {"SET", "v", "1"},
                        {"EXEC", "x"},  // ends the transaction
                        {"EXEC"},
                        {"GET", "v"}});
}

TEST(TransactionCommandsTest, BlockingPopsAndSelectInside) {
  Differential d;
  ExpectSameReplies(d, {{"RPUSH", "q", "job"},
                        {"MULTI"},
                        {"BLPOP", "empty", "0"},
                        {"BLPOP", "q", "0"},
                        {"BZPOPMIN", "nozset", "0"},
                        {"WAIT", "0", "0"},
                        {"SELECT", "1"},
                        {"SET", "x", "db1"},
                        {"SELECT", "0"},
                        {"GET", "x"},
                        {"EXEC"},
                        {"SELECT", "1"},
                        {"GET", "x"}});
}

TEST(TransactionCommandsTest, Resp3) {
  Differential d;
  d.Call({"HELLO", "3"});  // client ids differ: the reply is not compared
  ExpectSameReplies(d, {{"MULTI"},
                        {"HSET", "h", "f", "1"},
                        {"HGETALL", "h"},
                        {"ZSCORE", "nosuch", "m"},
                        {"BLPOP", "none", "0"},
                        {"EXEC"},
                        {"EXEC"}});
}

// CLIENT LIST shows a client in MULTI (flags=x) and how many calls it
// queued, as Redis does.
TEST(TransactionCommandsTest, ClientListShowsTheQueue) {
  Differential d;
  ExpectSameReplies(d, {{"MULTI"}, {"SET", "a", "1"}, {"INCR", "a"}});
  RawClient observer(d.trackdb_server().port());
  const std::string list = observer.Call({"CLIENT", "LIST"});
  EXPECT_THAT(list, ::testing::HasSubstr(" flags=x db=0 "));
  EXPECT_THAT(list, ::testing::HasSubstr(" multi=2 "));
  EXPECT_THAT(list, ::testing::HasSubstr(" flags=N db=0 "));  // the observer
  RawClient redis_observer(d.redis_port());
  const std::string redis_list = redis_observer.Call({"CLIENT", "LIST"});
  EXPECT_THAT(redis_list, ::testing::HasSubstr(" flags=x db=0 "));
  EXPECT_THAT(redis_list, ::testing::HasSubstr(" multi=2 "));
  ExpectSameReplies(d, {{"EXEC"}});
  EXPECT_THAT(observer.Call({"CLIENT", "LIST"}),
              ::testing::Not(::testing::HasSubstr("flags=x")));
}

// A watched key changed by another client, in any way (its value, a
// member, its expiry, its creation or removal, its expiring), makes EXEC
// answer nil and run nothing, on both servers; an unchanged one lets it
// run; UNWATCH, DISCARD and EXEC forget the keys.
TEST(TransactionCommandsTest, WatchFailsExecOnChangedKeys) {
  Differential d;
  RawClient redis_other(d.redis_port());
  RawClient trackdb_other(d.trackdb_server().port());
  auto other = [&](const Argv& argv) {
    EXPECT_EQ(trackdb_other.Call(argv), redis_other.Call(argv))
        << ::testing::PrintToString(argv);
  };
  ExpectSameReplies(d, {{"SET", "s", "1"},
                        {"HSET", "h", "f", "v"},
                        {"RPUSH", "l", "a"},
                        {"ZADD", "z", "1", "m"},
                        {"GEOADD", "g", "13.4", "52.5", "car"},
                        {"SET", "ttl", "v"}});
  const std::vector<std::pair<std::string, Argv>> changes = {
      {"s", {"SET", "s", "2"}},
      {"h", {"HSET", "h", "f", "w"}},
      {"l", {"RPUSH", "l", "b"}},
      {"z", {"ZINCRBY", "z", "1", "m"}},
      {"g", {"GEOADD", "g", "13.5", "52.5", "car"}},
      {"ttl", {"EXPIRE", "ttl", "100"}},
      {"new", {"SET", "new", "1"}},
      {"s", {"DEL", "s"}}};
  for (const auto& [key, change] : changes) {
    ExpectSameReplies(d, {{"WATCH", key}, {"MULTI"}, {"INCR", "runs"}});
    other(change);
    ExpectSameReplies(d, {{"EXEC"}, {"GET", "runs"}});
  }
  // Unchanged: EXEC runs; then the keys are forgotten.
  ExpectSameReplies(
      d, {{"WATCH", "h", "nosuch"}, {"MULTI"}, {"INCR", "runs"}, {"EXEC"}});
  other({"HSET", "h", "f", "x"});
  ExpectSameReplies(d, {{"MULTI"}, {"INCR", "runs"}, {"EXEC"}});
  ExpectSameReplies(d, {{"WATCH", "h"}, {"UNWATCH"}});
  other({"HSET", "h", "f", "y"});
  ExpectSameReplies(d, {{"MULTI"}, {"INCR", "runs"}, {"EXEC"}});
  ExpectSameReplies(d, {{"WATCH", "h"}, {"MULTI"}, {"DISCARD"}});
  other({"HSET", "h", "f", "z"});
  ExpectSameReplies(d, {{"MULTI"}, {"INCR", "runs"}, {"EXEC"}});
  // A watched key that expires meanwhile.
  ExpectSameReplies(d, {{"SET", "short", "v", "PX", "30"},
                        {"WATCH", "short"},
                        {"MULTI"},
                        {"INCR", "runs"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  ExpectSameReplies(d, {{"EXEC"}, {"GET", "runs"}});
  d.Call({"HELLO", "3"});
  ExpectSameReplies(d, {{"WATCH", "s"}, {"MULTI"}, {"INCR", "runs"}});
  other({"SET", "s", "3"});
  ExpectSameReplies(d, {{"EXEC"}});
}

// Redis fails EXEC on any write to a watched key; trackdb only when the
// key holds something else than at WATCH (README, transaction_commands.cc).
TEST(TransactionCommandsTest, WatchComparesWhatTheKeyHolds) {
  Differential d;
  RawClient trackdb_other(d.trackdb_server().port());
  RawClient redis_other(d.redis_port());
  ExpectSameReplies(
      d, {{"SET", "k", "1"}, {"WATCH", "k"}, {"MULTI"}, {"INCR", "runs"}});
  EXPECT_EQ(trackdb_other.Call({"SET", "k", "1"}), "+OK\r\n");
  EXPECT_EQ(redis_other.Call({"SET", "k", "1"}), "+OK\r\n");
  const auto exec = d.Call({"EXEC"});
  EXPECT_EQ(exec.redis, "*-1\r\n");
  EXPECT_EQ(exec.trackdb, "*1\r\n:1\r\n");
}

std::string Requests(const std::vector<Argv>& calls) {
  std::string bytes;
  for (const Argv& argv : calls) bytes += testing::EncodeCommand(argv);
  return bytes;
}

// Another client reading a key while an EXEC appends to it 300 times sees
// the key before the EXEC or after it, never in between.
TEST(TransactionCommandsTest, ExecIsIsolatedFromOtherClients) {
  testing::TrackdbResp server;
  RawClient writer(server.port()), reader(server.port());
  std::vector<Argv> transaction = {{"MULTI"}};
  for (int i = 0; i < 300; ++i) transaction.push_back({"APPEND", "k", "x"});
  transaction.push_back({"EXEC"});
  for (int round = 0; round < 5; ++round) {
    ASSERT_EQ(writer.Call({"DEL", "k"}).substr(0, 1), ":");
    std::atomic<bool> done{false};
    std::thread exec([&] {
      writer.Send(Requests(transaction));
      for (size_t i = 0; i < transaction.size(); ++i) writer.ReadReply();
      done = true;
    });
    int reads = 0;
    while (!done.load() || reads == 0) {
      const std::string got = reader.Call({"STRLEN", "k"});
      EXPECT_TRUE(got == ":0\r\n" || got == ":300\r\n") << got;
      ++reads;
    }
    exec.join();
    EXPECT_EQ(reader.Call({"STRLEN", "k"}), ":300\r\n");
  }
}

// Pipelined HINCRBYs of one key (served as groups on the key's lane) run
// before or after an EXEC that reads the key twice, never between.
TEST(TransactionCommandsTest, ExecIsIsolatedFromPipelinedGroups) {
  testing::TrackdbResp server;
  RawClient writer(server.port()), reader(server.port());
  std::vector<Argv> group;
  for (int i = 0; i < 16; ++i) group.push_back({"HINCRBY", "h", "n", "1"});
  std::vector<Argv> transaction = {{"MULTI"}};
  for (int i = 0; i < 50; ++i) transaction.push_back({"HGET", "h", "n"});
  transaction.push_back({"EXEC"});
  std::atomic<bool> stop{false};
  std::thread increments([&] {
    while (!stop.load()) {
      writer.Send(Requests(group));
      for (size_t i = 0; i < group.size(); ++i) writer.ReadReply();
    }
  });
  for (int round = 0; round < 50; ++round) {
    reader.Send(Requests(transaction));
    std::string exec;
    for (size_t i = 0; i < transaction.size(); ++i) {
      exec = reader.ReadReply().value_or("");
    }
    // *50, then 50 copies of one reply: nil before the first HINCRBY, else
    // one count.
    const size_t first = exec.find("\r\n") + 2;
    const bool nil = exec.compare(first, 5, "$-1\r\n") == 0;
    const size_t end =
        nil ? first + 5 : exec.find("\r\n", exec.find("\r\n", first) + 2) + 2;
    const std::string one = exec.substr(first, end - first);
    std::string expected = "*50\r\n";
    for (int i = 0; i < 50; ++i) expected += one;
    EXPECT_EQ(exec, expected);
  }
  stop = true;
  increments.join();
}

}  // namespace
}  // namespace trackdb::resp
