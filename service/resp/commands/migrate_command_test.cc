// MIGRATE from trackdb and from a real redis-server 7.0, side by side, to a
// third server (another redis-server): the same replies byte for byte
// (OK, NOKEY, the target's errors, lost connections, argument errors),
// the same keys left at the source, the same values at the target; keys
// migrated from Redis into trackdb; and a key written while MIGRATE sends
// it kept at the source rather than lost.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::RawClient;
using testing::RedisServerProcess;
using Argv = std::vector<std::string>;

// Redis migrates into the target's database 1, trackdb into database 2,
// so that the two copies can be compared there.
constexpr char kRedisDb[] = "1";
constexpr char kTrackdbDb[] = "2";

class MigrateTest : public ::testing::Test {
 protected:
  MigrateTest() : target_client_(target_.port()) {}

  // Sends the same MIGRATE from both sources (`db` where the command's
  // destination db goes, `port` for the target's) and expects the same
  // reply; returns it.
  std::string Migrate(const Argv& tail, const std::string& port = "") {
    Argv from_redis = {"MIGRATE", "127.0.0.1",
                       port.empty() ? absl::StrCat(target_.port()) : port};
    Argv from_trackdb = from_redis;
    for (size_t i = 0; i < tail.size(); ++i) {
      const bool db = i == 1 && tail[i] == "<db>";
      from_redis.push_back(db ? kRedisDb : tail[i]);
      from_trackdb.push_back(db ? kTrackdbDb : tail[i]);
    }
    const std::string redis = d_.redis().Call(from_redis);
    EXPECT_EQ(d_.trackdb().Call(from_trackdb), redis)
        << ::testing::PrintToString(from_trackdb);
    return redis;
  }

  // What the target holds under `read` (a read of a key) in each copy.
  void ExpectSameAtTarget(const Argv& read) {
    target_client_.Call({"SELECT", kRedisDb});
    const std::string redis_copy = target_client_.Call(read);
    target_client_.Call({"SELECT", kTrackdbDb});
    EXPECT_EQ(target_client_.Call(read), redis_copy)
        << ::testing::PrintToString(read);
  }

  void FlushTarget() { target_client_.Call({"FLUSHALL"}); }

  Differential d_;
  RedisServerProcess target_;
  RawClient target_client_;
};

TEST_F(MigrateTest, EveryTypeMovesAndLeavesTheSource) {
  testing::ExpectSameReplies(
      d_, {{"SET", "s", "v"},
           {"PEXPIRE", "s", "100000"},
           {"HSET", "h", "f", "1", "g", "2"},
           {"SADD", "set", "a", "b", "3"},
           {"RPUSH", "l", "x", "y", "z"},
           {"ZADD", "z", "1", "a", "-2.5", "b"},
           {"GEOADD", "g", "13.361389", "38.115556", "Palermo"}});
  for (const char* key : {"s", "h", "set", "l", "z", "g"}) {
    EXPECT_EQ(Migrate({key, "<db>", "5000"}), "+OK\r\n") << key;
    EXPECT_SAME_REPLY(d_, {"EXISTS", key});
  }
  ExpectSameAtTarget({"GET", "s"});
  ExpectSameAtTarget({"HMGET", "h", "f", "g"});
  ExpectSameAtTarget({"SORT", "set", "ALPHA"});
  ExpectSameAtTarget({"LRANGE", "l", "0", "-1"});
  ExpectSameAtTarget({"ZRANGE", "z", "0", "-1", "WITHSCORES"});
  ExpectSameAtTarget({"GEOPOS", "g", "Palermo"});
  for (const char* db : {kRedisDb, kTrackdbDb}) {
    target_client_.Call({"SELECT", db});
    const std::string pttl = target_client_.Call({"PTTL", "s"});
    EXPECT_TRUE(absl::StartsWith(pttl, ":9")) << pttl;
  }
}

TEST_F(MigrateTest, CopyReplaceKeysAndTheTargetsErrors) {
  testing::ExpectSameReplies(
      d_, {{"SET", "a", "1"}, {"SET", "b", "2"}, {"RPUSH", "c", "3"}});
  EXPECT_EQ(Migrate({"a", "<db>", "5000", "COPY"}), "+OK\r\n");
  // The target has it now: BUSYKEY, relayed, and the source keeps it.
  Migrate({"a", "<db>", "5000", "COPY"});
  Migrate({"a", "<db>", "5000"});
  EXPECT_SAME_REPLY(d_, {"GET", "a"});
  EXPECT_EQ(Migrate({"a", "<db>", "5000", "REPLACE", "COPY"}), "+OK\r\n");
  EXPECT_SAME_REPLY(d_, {"GET", "a"});
  // Several keys: the missing one is skipped, the rest move.
  EXPECT_EQ(
      Migrate({"", "<db>", "5000", "REPLACE", "KEYS", "a", "nosuch", "c"}),
      "+OK\r\n");
  EXPECT_SAME_REPLY(d_, {"EXISTS", "a", "c", "b"});
  ExpectSameAtTarget({"LRANGE", "c", "0", "-1"});
  // One key busy at the target: its error, the others still move.
  EXPECT_SAME_REPLY(d_, {"SET", "a", "again"});
  EXPECT_SAME_REPLY(d_, {"SET", "d", "4"});
  Migrate({"", "<db>", "5000", "KEYS", "a", "d"});
  EXPECT_SAME_REPLY(d_, {"MGET", "a", "d"});
  Migrate({"nosuch", "<db>", "5000"});
  Migrate({"", "<db>", "5000", "KEYS", "nosuch"});
  // The target refuses the database.
  Migrate({"b", "99", "5000"});
  EXPECT_SAME_REPLY(d_, {"GET", "b"});
}

TEST_F(MigrateTest, ArgumentErrorsInRedisOrder) {
  EXPECT_SAME_REPLY(d_, {"SET", "k", "v"});
  for (const Argv& tail : std::vector<Argv>{
           {"k", "<db>", "5000", "NOPE"},
           {"k", "<db>", "5000", "AUTH"},
           {"k", "<db>", "5000", "AUTH2", "user"},
           {"k", "<db>", "5000", "KEYS", "k"},
           {"k", "<db>", "x"},
           {"k", "x", "5000"},
           {"k", "x", "5000", "NOPE"},
           {"", "<db>", "5000", "KEYS"},
       }) {
    Migrate(tail);
  }
  EXPECT_SAME_REPLY(d_, {"MIGRATE", "h", "p", "k", "0"});
  EXPECT_SAME_REPLY(d_, {"GET", "k"});
}

TEST_F(MigrateTest, UnreachableTargetAndAuth) {
  EXPECT_SAME_REPLY(d_, {"SET", "k", "v"});
  const std::string closed = absl::StrCat(testing::FreePort());
  Migrate({"k", "<db>", "200"}, closed);
  Migrate({"k", "<db>", "200"}, "not-a-port");
  EXPECT_SAME_REPLY(
      d_, {"MIGRATE", "no-such-host.invalid", "6379", "k", "0", "200"});
  RedisServerProcess guarded({"--requirepass", "sesame"});
  const std::string guarded_port = absl::StrCat(guarded.port());
  Migrate({"k", "<db>", "5000"}, guarded_port);
  Migrate({"k", "<db>", "5000", "AUTH", "wrong"}, guarded_port);
  Migrate({"k", "<db>", "5000", "AUTH2", "default", "wrong"}, guarded_port);
  EXPECT_SAME_REPLY(d_, {"GET", "k"});
  EXPECT_EQ(Migrate({"k", "<db>", "5000", "AUTH", "sesame"}, guarded_port),
            "+OK\r\n");
  EXPECT_SAME_REPLY(d_, {"EXISTS", "k"});
}

// Redis's own MIGRATE, pointed at trackdb, moves keys of every type in.
TEST_F(MigrateTest, FromRedisIntoTrackdb) {
  const std::vector<Argv> make = {
      {"SET", "s", "v"},
      {"HSET", "h", "f", "1"},
      {"SADD", "set", "a", "b"},
      {"RPUSH", "l", "x", "y"},
      {"ZADD", "z", "1", "a", "2", "b"},
  };
  for (const Argv& m : make) d_.redis().Call(m);
  EXPECT_EQ(
      d_.redis().Call({"MIGRATE", "127.0.0.1",
                       absl::StrCat(d_.trackdb_server().port()), "", "0",
                       "5000", "COPY", "KEYS", "s", "h", "set", "l", "z"}),
      "+OK\r\n");
  testing::ExpectSameReplies(d_, {{"GET", "s"},
                                  {"HGETALL", "h"},
                                  {"SORT", "set", "ALPHA"},
                                  {"LRANGE", "l", "0", "-1"},
                                  {"ZRANGE", "z", "0", "-1", "WITHSCORES"}});
}

// A target that answers each command +OK, after running `on_restore` with
// the RESTORE's number (from 1) for a RESTORE: a slow target while other
// clients write.
class FakeTarget {
 public:
  explicit FakeTarget(std::function<void(int)> on_restore)
      : on_restore_(std::move(on_restore)) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(listener_, 1);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeTarget() {
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    thread_.join();
  }
  int port() const { return port_; }
  int restores() const { return restores_.load(); }

 private:
  void Serve() {
    const int fd = accept(listener_, nullptr, nullptr);
    if (fd < 0) return;
    std::string in;
    char buf[4096];
    for (;;) {
      const ssize_t n = read(fd, buf, sizeof(buf));
      if (n <= 0) break;
      in.append(buf, static_cast<size_t>(n));
      while (size_t len = testing::CompleteReplyLength(in)) {
        if (absl::StrContains(in.substr(0, len), "RESTORE")) {
          on_restore_(++restores_);
        }
        in.erase(0, len);
        (void)!write(fd, "+OK\r\n", 5);
      }
    }
    close(fd);
  }

  std::function<void(int)> on_restore_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> restores_{0};
  std::thread thread_;
};

TEST(MigrateWhileWritten, AKeyWrittenMeanwhileIsKept) {
  testing::TrackdbResp trackdb;
  RawClient client(trackdb.port());
  RawClient writer(trackdb.port());
  for (const Argv& make : std::vector<Argv>{
           {"SET", "k", "v"}, {"RPUSH", "l", "a"}, {"SET", "kept", "v"}}) {
    client.Call(make);
  }
  FakeTarget target([&](int restore) {
    if (restore == 1) writer.Call({"APPEND", "k", "+"});
    if (restore == 2) writer.Call({"RPUSH", "l", "b"});
  });
  const std::string reply =
      client.Call({"MIGRATE", "127.0.0.1", absl::StrCat(target.port()), "", "0",
                   "5000", "KEYS", "k", "l", "kept"});
  EXPECT_EQ(target.restores(), 3);
  EXPECT_THAT(reply, ::testing::StartsWith("-ERR keys changed"));
  EXPECT_THAT(reply, ::testing::HasSubstr(": k l\r\n"));
  EXPECT_EQ(client.Call({"GET", "k"}), "$2\r\nv+\r\n");
  EXPECT_EQ(client.Call({"LRANGE", "l", "0", "-1"}),
            "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  // The key left alone moved.
  EXPECT_EQ(client.Call({"EXISTS", "kept"}), ":0\r\n");
}

}  // namespace
}  // namespace trackdb::resp
