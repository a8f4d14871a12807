// Many connections on several event loops pipelining writes to the same
// few keys: their groups go through the keys' lanes (key_lanes.h), queued
// and served by whichever loop holds the lane, their connections suspended
// meanwhile. Every write must apply exactly once, every reply must come
// back to its own connection in order, and each connection's writes must
// apply in the order it sent them.
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::EncodeCommand;
using testing::RawClient;
using testing::TrackdbResp;

constexpr int kClients = 8;
constexpr int kPipelines = 150;
constexpr int kDepth = 16;  // redis-benchmark's -P 16

// An integer reply's value; fails the test on anything else.
int64_t IntegerOf(const std::string& reply) {
  int64_t value = 0;
  EXPECT_TRUE(reply.size() > 3 && reply[0] == ':' &&
              absl::SimpleAtoi(reply.substr(1, reply.size() - 3), &value))
      << reply;
  return value;
}

// What pipeline `p` of every client writes: RPUSH, HINCRBY or ZINCRBY,
// each pipeline to one key (so that it is served as one group).
enum Kind { kPush = 0, kCount = 1, kScore = 2 };
Kind KindOf(int p) { return static_cast<Kind>(p % 3); }

// One client's run: pipelines to shared keys, each call's reply checked
// against the ones this client saw before (the shared list and counter
// only grow, its own score counts its own calls).
void RunClient(int port, int id, std::vector<std::string>* errors) {
  RawClient client(port);
  int64_t last_length = 0, last_count = 0, own_score = 0, pushed = 0;
  for (int p = 0; p < kPipelines; ++p) {
    std::string batch;
    for (int i = 0; i < kDepth; ++i) {
      switch (KindOf(p)) {
        case kPush:
          batch += EncodeCommand(
              {"RPUSH", "hot:list", absl::StrCat(id, ":", pushed++)});
          break;
        case kCount:
          batch += EncodeCommand({"HINCRBY", "hot:hash", "calls", "1"});
          break;
        case kScore:
          batch += EncodeCommand(
              {"ZINCRBY", "hot:zset", "1", absl::StrCat("client", id)});
      }
    }
    client.Send(batch);
    for (int i = 0; i < kDepth; ++i) {
      std::optional<std::string> reply = client.ReadReply();
      if (!reply) {
        errors->push_back(absl::StrCat("client ", id, ": no reply"));
        return;
      }
      if (KindOf(p) == kPush) {
        const int64_t length = IntegerOf(*reply);
        if (length <= last_length) {
          errors->push_back(absl::StrCat("client ", id, ": list length ",
                                         length, " after ", last_length));
        }
        last_length = length;
      } else if (KindOf(p) == kCount) {
        const int64_t count = IntegerOf(*reply);
        if (count <= last_count) {
          errors->push_back(absl::StrCat("client ", id, ": count ", count,
                                         " after ", last_count));
        }
        last_count = count;
      } else {
        const std::string want = absl::StrCat(++own_score);
        const std::string got = reply->substr(reply->find('\n') + 1);
        if (got != want + "\r\n") {
          errors->push_back(absl::StrCat("client ", id, ": own score ", got,
                                         " where ", want, " was due"));
        }
      }
    }
  }
}

TEST(HotKeyLanesTest, PipelinedWritesToHotKeysFromManyLoopsApplyOnceInOrder) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_resp_threads(4);
  TrackdbResp trackdb(config);
  std::vector<std::vector<std::string>> errors(kClients);
  std::vector<std::thread> clients;
  for (int id = 0; id < kClients; ++id) {
    clients.emplace_back(RunClient, trackdb.port(), id, &errors[id]);
  }
  for (std::thread& t : clients) t.join();
  for (const auto& e : errors) EXPECT_THAT(e, ::testing::IsEmpty());

  RawClient check(trackdb.port());
  const int64_t per_client = int64_t{kPipelines} / 3 * kDepth;
  EXPECT_EQ(check.Call({"LLEN", "hot:list"}),
            absl::StrCat(":", per_client * kClients, "\r\n"));
  EXPECT_EQ(check.Call({"HGET", "hot:hash", "calls"}),
            absl::StrCat("$", absl::StrCat(per_client * kClients).size(),
                         "\r\n", per_client * kClients, "\r\n"));
  EXPECT_EQ(check.Call({"ZCARD", "hot:zset"}),
            absl::StrCat(":", kClients, "\r\n"));
  EXPECT_EQ(check.Call({"ZSCORE", "hot:zset", "client0"}),
            absl::StrCat("$", absl::StrCat(per_client).size(), "\r\n",
                         per_client, "\r\n"));
  // Each client's elements are in the list in the order it pushed them.
  const std::string all = check.Call({"LRANGE", "hot:list", "0", "-1"});
  std::vector<int64_t> next(kClients, 0);
  for (absl::string_view line : absl::StrSplit(all, "\r\n")) {
    if (line.empty() || line[0] == '*' || line[0] == '$') continue;
    std::pair<std::string, std::string> parts = absl::StrSplit(line, ':');
    int id = 0;
    int64_t seq = 0;
    ASSERT_TRUE(absl::SimpleAtoi(parts.first, &id) &&
                absl::SimpleAtoi(parts.second, &seq))
        << line;
    ASSERT_GE(seq, next[id]) << "client " << id << " out of order";
    next[id] = seq + 1;
  }
}

}  // namespace
}  // namespace trackdb::resp
