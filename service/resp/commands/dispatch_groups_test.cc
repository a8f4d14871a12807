// DispatchGroups: several clients' pipelined runs on one key, handed on
// together by a key lane, served as one transaction and one RocksDB write
// where they can be, each client replied to exactly as if its run had been
// served alone, after the ones before it.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/dispatch/command.h"
#include "storage/replication/replication.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::resp {
namespace {

using Calls = std::vector<std::vector<std::string>>;

class DispatchGroupsTest : public ::testing::Test {
 protected:
  DispatchGroupsTest()
      : store_(storage::testing::OpenStore(storage::testing::NewDataDir())),
        role_(store_.get(), v1::ReplicationConfig()),
        state_(store_.get(), v1::TrackdbConfig(), &role_) {}

  // A client with its replies, and the run it has waiting.
  struct Client {
    ClientState state;
    std::string out;
    std::unique_ptr<Reply> reply;
    Calls calls;
  };
  std::unique_ptr<Client> NewClient(Calls calls) {
    auto c = std::make_unique<Client>();
    c->state.id = ++ids_;
    c->state.authenticated = true;
    c->reply = std::make_unique<Reply>(&c->out);
    c->calls = std::move(calls);
    return c;
  }
  PendingGroup Pending(Client& c) {
    PendingGroup g;
    g.spec = state_.commands().Find(c.calls[0][0]);
    g.client = &c.state;
    g.calls = c.calls;
    g.reply = c.reply.get();
    return g;
  }
  // The RocksDB write batches committed since sequence `since`.
  size_t BatchesSince(uint64_t since) {
    auto batches = storage::ReadUpdatesSince(*store_, since + 1, 1 << 20);
    EXPECT_TRUE(batches.ok()) << batches.status();
    return batches.ok() ? batches->size() : 0;
  }
  std::string Run(const std::vector<std::string>& argv) {
    ClientState client;
    client.authenticated = true;
    std::string out;
    Reply reply(&out);
    Dispatch(state_, client, argv, reply);
    return out;
  }

  std::unique_ptr<storage::TrackStore> store_;
  replication::NodeRole role_;
  ServerState state_;
  int64_t ids_ = 0;
};

TEST_F(DispatchGroupsTest, RunsOfSeveralClientsAreOneWriteRepliedInOrder) {
  // (A new key takes a write of its own: its version, typed_codec.h.)
  ASSERT_EQ(Run({"RPUSH", "q", "z0"}), ":1\r\n");
  auto a = NewClient({{"LPUSH", "q", "a1"}, {"LPUSH", "q", "a2"}});
  auto b = NewClient({{"RPUSH", "q", "b1"}});
  auto c = NewClient({{"LPOP", "q"}, {"LLEN", "q"}, {"RPUSH", "q", "c1"}});
  const uint64_t before = storage::LatestSequence(*store_);
  const std::vector<PendingGroup> groups = {Pending(*a), Pending(*b),
                                            Pending(*c)};
  DispatchGroups(state_, groups);

  EXPECT_EQ(a->out, ":2\r\n:3\r\n");
  EXPECT_EQ(b->out, ":4\r\n");
  EXPECT_EQ(c->out, "$2\r\na2\r\n:3\r\n:4\r\n");
  EXPECT_EQ(BatchesSince(before), 1u);
  EXPECT_EQ(Run({"LRANGE", "q", "0", "-1"}),
            "*4\r\n$2\r\na1\r\n$2\r\nz0\r\n$2\r\nb1\r\n$2\r\nc1\r\n");
  EXPECT_EQ(a->state.last_command, "lpush");
  EXPECT_EQ(c->state.last_command, "rpush");
}

TEST_F(DispatchGroupsTest, AClientInMultiPartsTheRunsAndQueuesItsCalls) {
  ASSERT_EQ(Run({"SADD", "s", "w"}), ":1\r\n");
  auto a = NewClient({{"SADD", "s", "x"}, {"SADD", "s", "y"}});
  auto m = NewClient({{"SADD", "s", "m"}});
  auto b = NewClient({{"SADD", "s", "x"}, {"SCARD", "s"}});
  auto c = NewClient({{"SADD", "s", "z"}});
  std::string multi_out;
  Reply multi_reply(&multi_out);
  Dispatch(state_, m->state, {"MULTI"}, multi_reply);
  ASSERT_EQ(multi_out, "+OK\r\n");

  const uint64_t before = storage::LatestSequence(*store_);
  const std::vector<PendingGroup> groups = {Pending(*a), Pending(*m),
                                            Pending(*b), Pending(*c)};
  DispatchGroups(state_, groups);

  EXPECT_EQ(a->out, ":1\r\n:1\r\n");
  EXPECT_EQ(m->out, "+QUEUED\r\n");
  EXPECT_EQ(b->out, ":0\r\n:3\r\n");
  EXPECT_EQ(c->out, ":1\r\n");
  // a alone; b and c together (b writes nothing: its member is there).
  EXPECT_EQ(BatchesSince(before), 2u);
  EXPECT_EQ(Run({"SCARD", "s"}), ":4\r\n");
}

TEST_F(DispatchGroupsTest, RunsTogetherHoldAtMostTheMostCallsServedTogether) {
  ASSERT_EQ(Run({"RPUSH", "big", "first"}), ":1\r\n");
  // Three runs of 40% of the bound each: the first two together, the
  // third alone.
  const size_t per_run = kMaxCallsServedTogether * 2 / 5;
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<PendingGroup> groups;
  for (int c = 0; c < 3; ++c) {
    Calls calls;
    for (size_t i = 0; i < per_run; ++i) {
      calls.push_back({"RPUSH", "big", absl::StrCat(c, ":", i)});
    }
    clients.push_back(NewClient(std::move(calls)));
  }
  for (auto& c : clients) groups.push_back(Pending(*c));
  const uint64_t before = storage::LatestSequence(*store_);
  DispatchGroups(state_, groups);

  EXPECT_EQ(BatchesSince(before), 2u);
  EXPECT_EQ(Run({"LLEN", "big"}), absl::StrCat(":", 1 + 3 * per_run, "\r\n"));
  // The last reply of each run counts the elements pushed before it.
  for (int c = 0; c < 3; ++c) {
    EXPECT_TRUE(absl::EndsWith(
        clients[c]->out, absl::StrCat(":", 1 + (c + 1) * per_run, "\r\n")))
        << "client " << c;
  }
}

TEST_F(DispatchGroupsTest, ARunThatCannotJoinMakesEachCallRunAlone) {
  // c's second call is on another key: the one transaction cannot serve
  // it, so every call runs alone, with the same replies.
  auto a = NewClient({{"HSET", "h", "f", "1"}});
  auto b = NewClient({{"HSET", "h", "g", "2"}, {"HLEN", "h"}});
  Run({"SET", "str", "v"});
  auto c = NewClient({{"HSET", "h", "f", "3"}, {"HSET", "str", "f", "1"}});
  const std::vector<PendingGroup> groups = {Pending(*a), Pending(*b),
                                            Pending(*c)};
  DispatchGroups(state_, groups);

  EXPECT_EQ(a->out, ":1\r\n");
  EXPECT_EQ(b->out, ":1\r\n:2\r\n");
  EXPECT_EQ(c->out,
            ":0\r\n-WRONGTYPE Operation against a key holding the wrong kind "
            "of value\r\n");
  EXPECT_EQ(Run({"HGET", "h", "f"}), "$1\r\n3\r\n");
}

}  // namespace
}  // namespace trackdb::resp
