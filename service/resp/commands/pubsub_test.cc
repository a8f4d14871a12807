// Pub/sub beside a real redis-server: SUBSCRIBE, PSUBSCRIBE, PUBLISH and
// the subscriber's restricted mode give Redis's bytes, in RESP2 and RESP3;
// and fence events reach "fence:<name>" subscribers as their points are
// written, from either door.
#include <algorithm>
#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using ::testing::HasSubstr;
using testing::RawClient;
using ::testing::StartsWith;
using testing::TrackdbResp;

// Sends `argv` on both subscribers and expects the same `replies` replies.
void ExpectSame(Differential& d, RawClient& redis, RawClient& trackdb,
                const std::vector<std::string>& argv, int replies = 1) {
  redis.Send(testing::EncodeCommand(argv));
  trackdb.Send(testing::EncodeCommand(argv));
  for (int i = 0; i < replies; ++i) {
    EXPECT_EQ(trackdb.ReadReply().value_or("<none>"),
              redis.ReadReply().value_or("<none>"))
        << ::testing::PrintToString(argv) << " reply " << i;
  }
}

void SubscriberSession(bool resp3) {
  Differential d;
  RawClient redis(d.redis_port()), trackdb(d.trackdb_server().port());
  if (resp3) {
    ASSERT_THAT(redis.Call({"HELLO", "3"}), StartsWith("%"));
    ASSERT_THAT(trackdb.Call({"HELLO", "3"}), StartsWith("%"));
  }
  ExpectSame(d, redis, trackdb, {"UNSUBSCRIBE"});
  ExpectSame(d, redis, trackdb, {"SUBSCRIBE", "news", "sport"}, 2);
  ExpectSame(d, redis, trackdb, {"SUBSCRIBE", "news"});
  ExpectSame(d, redis, trackdb, {"PSUBSCRIBE", "n*"});
  ExpectSame(d, redis, trackdb, {"PING"});
  ExpectSame(d, redis, trackdb, {"PING", "hi"});
  ExpectSame(d, redis, trackdb, {"GET", "k"});  // refused in RESP2 only
  ExpectSame(d, redis, trackdb, {"SUBSCRIBE"});
  // Published by another client: a message and a pmessage.
  EXPECT_SAME_REPLY(d, {"PUBLISH", "news", "hello"});
  EXPECT_EQ(trackdb.ReadReply().value_or("<none>"),
            redis.ReadReply().value_or("<none>"));
  EXPECT_EQ(trackdb.ReadReply().value_or("<none>"),
            redis.ReadReply().value_or("<none>"));
  EXPECT_SAME_REPLY(d, {"PUBLISH", "nobody", "x"});
  EXPECT_EQ(trackdb.ReadReply().value_or("<none>"),
            redis.ReadReply().value_or("<none>"));
  EXPECT_SAME_REPLY(d, {"PUBLISH", "elsewhere", "x"});
  ExpectSame(d, redis, trackdb, {"UNSUBSCRIBE", "news"});
  ExpectSame(d, redis, trackdb, {"UNSUBSCRIBE", "sport", "never"}, 2);
  ExpectSame(d, redis, trackdb, {"PUNSUBSCRIBE"});
  ExpectSame(d, redis, trackdb, {"PUNSUBSCRIBE"});
  // Out of subscriber mode: commands again.
  ExpectSame(d, redis, trackdb, {"PING"});
  ExpectSame(d, redis, trackdb, {"GET", "k"});
}

TEST(PubSubTest, SubscriberSessionAsRedisResp2) { SubscriberSession(false); }
TEST(PubSubTest, SubscriberSessionAsRedisResp3) { SubscriberSession(true); }

TEST(PubSubTest, ASubscriberThatLeavesIsForgotten) {
  Differential d;
  {
    RawClient gone(d.trackdb_server().port());
    ASSERT_THAT(gone.Call({"SUBSCRIBE", "news"}), HasSubstr("subscribe"));
  }
  RawClient publisher(d.trackdb_server().port());
  for (int i = 0; i < 100; ++i) {
    if (publisher.Call({"PUBLISH", "news", "x"}) == ":0\r\n") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "the closed subscriber still counts";
}

// The reply's lines, sorted: Redis lists PUBSUB CHANNELS in its hash
// table's order.
std::vector<std::string> SortedLines(const std::string& reply) {
  std::vector<std::string> lines = absl::StrSplit(reply, "\r\n");
  std::sort(lines.begin(), lines.end());
  return lines;
}

// PUBSUB answers who is subscribed to what, as Redis does, in RESP2 and
// RESP3; it changes as subscribers come and go.
TEST(PubSubTest, PubsubCountsSubscribersAsRedis) {
  Differential d;
  RawClient redis_a(d.redis_port()), trackdb_a(d.trackdb_server().port());
  RawClient redis_b(d.redis_port()), trackdb_b(d.trackdb_server().port());
  ExpectSame(d, redis_a, trackdb_a, {"SUBSCRIBE", "news", "sport"}, 2);
  ExpectSame(d, redis_b, trackdb_b, {"SUBSCRIBE", "news"});
  ExpectSame(d, redis_b, trackdb_b, {"PSUBSCRIBE", "n*", "s?ort"}, 2);
  ExpectSame(d, redis_a, trackdb_a, {"PSUBSCRIBE", "n*"});
  // CLIENT LIST's flags and counts of a subscriber, as Redis's.
  auto fields = [](const std::string& list) {
    std::vector<std::string> out;
    static const std::regex kFields(
        R"(flags=(\S+) db=\d+ sub=(\d+) psub=(\d+))");
    for (std::sregex_iterator it(list.begin(), list.end(), kFields), end;
         it != end; ++it) {
      out.push_back((*it)[0]);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(fields(d.trackdb().Call({"CLIENT", "LIST"})),
            fields(d.redis().Call({"CLIENT", "LIST"})));
  EXPECT_THAT(fields(d.trackdb().Call({"CLIENT", "LIST"})),
              ::testing::Contains("flags=P db=0 sub=2 psub=1"));
  const auto all = d.Call({"PUBSUB", "CHANNELS"});
  EXPECT_EQ(SortedLines(all.trackdb), SortedLines(all.redis));
  EXPECT_THAT(all.trackdb, HasSubstr("$4\r\nnews\r\n"));
  for (const auto& call : std::vector<std::vector<std::string>>{
           {"PUBSUB", "CHANNELS", "n*"},
           {"PUBSUB", "channels", "x*"},
           {"PUBSUB", "CHANNELS", "a", "b"},
           {"PUBSUB", "NUMSUB", "news", "sport", "nobody", "news"},
           {"PUBSUB", "NUMSUB"},
           {"PUBSUB", "NUMPAT"},
           {"PUBSUB", "NUMPAT", "x"},
           {"PUBSUB", "SHARDCHANNELS"},
           {"PUBSUB", "SHARDCHANNELS", "a", "b"},
           {"PUBSUB", "SHARDNUMSUB", "news"},
           {"PUBSUB", "HELP"},
           {"PUBSUB", "NOPE"},
           {"PUBSUB"}}) {
    EXPECT_SAME_REPLY(d, call);
  }
  ExpectSame(d, redis_b, trackdb_b, {"UNSUBSCRIBE", "news"});
  ExpectSame(d, redis_a, trackdb_a, {"PUNSUBSCRIBE", "n*"});
  EXPECT_SAME_REPLY(d, {"PUBSUB", "NUMSUB", "news", "sport"});
  EXPECT_SAME_REPLY(d, {"PUBSUB", "NUMPAT"});
  // (HELLO's reply names each server's own client id.)
  ASSERT_THAT(d.redis().Call({"HELLO", "3"}), StartsWith("%7"));
  ASSERT_THAT(d.trackdb().Call({"HELLO", "3"}), StartsWith("%7"));
  EXPECT_SAME_REPLY(d, {"PUBSUB", "NUMSUB", "news", "sport"});
  EXPECT_SAME_REPLY(d, {"PUBSUB", "CHANNELS", "s*"});
  EXPECT_SAME_REPLY(d, {"PUBSUB", "HELP"});
}

// A fence event is published on fence:<name> when its point is written:
// over RESP (GEOADD) and over the store's AddPoints (gRPC's path).
TEST(PubSubTest, FenceEventsArePublished) {
  TrackdbResp server;
  RawClient c(server.port()), one(server.port()), all(server.port());
  ASSERT_EQ(c.Call({"FENCE.SET", "fleet", "depot", "CIRCLE", "13.40", "52.52",
                    "500", "m"}),
            ":1\r\n");
  ASSERT_EQ(one.Call({"SUBSCRIBE", "fence:depot"}),
            "*3\r\n$9\r\nsubscribe\r\n$11\r\nfence:depot\r\n:1\r\n");
  ASSERT_THAT(all.Call({"PSUBSCRIBE", "fence:*"}), HasSubstr("psubscribe"));
  ASSERT_EQ(c.Call({"GEOADD", "fleet", "13.40", "52.52", "truck7"}), ":1\r\n");
  const std::string message = one.ReadReply().value_or("<none>");
  EXPECT_THAT(message,
              StartsWith("*3\r\n$7\r\nmessage\r\n$11\r\nfence:depot\r\n$"));
  EXPECT_THAT(message, HasSubstr("\"offset\":\"1\",\"collection\":\"fleet\","
                                 "\"fence\":\"depot\","
                                 "\"kind\":\"FENCE_EVENT_ENTER\""));
  EXPECT_THAT(message, HasSubstr("\"entityId\":\"truck7\""));
  EXPECT_THAT(all.ReadReply().value_or("<none>"),
              StartsWith("*4\r\n$8\r\npmessage\r\n$7\r\nfence:*\r\n$11\r\n"
                         "fence:depot\r\n"));

  model::TrackPoint away;
  away.entity = "truck7";
  away.loc_time_ms = 4102444800000;  // 2100: newer than GEOADD's point
  away.lat = 52.52;
  away.lon = 13.50;
  ASSERT_TRUE(server.store().AddPoints("fleet", {away}).ok());
  EXPECT_THAT(one.ReadReply().value_or("<none>"),
              HasSubstr("\"offset\":\"2\",\"collection\":\"fleet\","
                        "\"fence\":\"depot\",\"kind\":\"FENCE_EVENT_EXIT\""));
  EXPECT_THAT(all.ReadReply().value_or("<none>"), HasSubstr("EXIT"));
  // A fence in database 1 shows its key.
  ASSERT_EQ(c.Call({"SELECT", "1"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"FENCE.SET", "zone", "depot", "CIRCLE", "13.40", "52.52",
                    "500", "m"}),
            ":1\r\n");
  ASSERT_EQ(c.Call({"GEOADD", "zone", "13.40", "52.52", "bus"}), ":1\r\n");
  EXPECT_THAT(one.ReadReply().value_or("<none>"),
              HasSubstr("\"collection\":\"zone\""));
}

}  // namespace
}  // namespace trackdb::resp
