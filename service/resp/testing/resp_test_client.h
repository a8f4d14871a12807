#ifndef TRACKDB_SERVICE_RESP_TESTING_RESP_TEST_CLIENT_H_
#define TRACKDB_SERVICE_RESP_TESTING_RESP_TEST_CLIENT_H_

// Test support: a raw RESP client that sends bytes and returns each reply's
// exact bytes, and a fixture running a real redis-server beside trackdb's
// RESP server so that tests can compare their replies byte for byte.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "service/resp/server/resp_server.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::resp::testing {

// The length of the first complete RESP2/RESP3 reply in `bytes`, or 0 if it
// is incomplete.
size_t CompleteReplyLength(const std::string& bytes);

class RawClient {
 public:
  // Connects to 127.0.0.1:port; dies on failure.
  explicit RawClient(int port);
  ~RawClient();

  void Send(const std::string& bytes);
  // One reply's bytes; nullopt when the server closed the connection (or
  // nothing came within `timeout_ms`).
  std::optional<std::string> ReadReply(int timeout_ms = 10000);
  // Sends `argv` as a RESP multibulk request and returns the reply.
  std::string Call(const std::vector<std::string>& argv);
  // True if the server has closed the connection (reads EOF).
  bool Closed(int timeout_ms = 2000);

 private:
  int fd_ = -1;
  std::string pending_;
};

std::string EncodeCommand(const std::vector<std::string>& argv);

// A loopback port that nothing listened on a moment ago: a server may bind
// it, and until one does a connection to it is refused.
int FreePort();

// Polls `done` every 10 ms until it holds or `timeout` passes (far more
// than a loaded machine needs); whether it held.
bool Eventually(const std::function<bool()>& done,
                absl::Duration timeout = absl::Seconds(8));

// A real redis-server (Debian's redis-server 7.0, from
// tools/setup/debian-packages.txt) on a free port, with persistence off.
class RedisServerProcess {
 public:
  RedisServerProcess(const std::vector<std::string>& extra_args = {});
  ~RedisServerProcess();
  int port() const { return port_; }

 private:
  int pid_ = -1;
  int port_ = 0;
};

// trackdb's RESP server over a fresh store in the test's temp dir (or over
// config.data_dir, when set).
class TrackdbResp {
 public:
  explicit TrackdbResp(v1::TrackdbConfig config = {});
  ~TrackdbResp();
  int port() const { return server_->port(); }
  storage::TrackStore& store() { return *store_; }
  RespServer& server() { return *server_; }
  const v1::TrackdbConfig& config() const { return config_; }

 private:
  v1::TrackdbConfig config_;
  std::unique_ptr<storage::TrackStore> store_;
  std::unique_ptr<RespServer> server_;
};

// Both servers and a client to each: Compare() sends a command to both and
// returns both replies.
class Differential {
 public:
  explicit Differential(v1::TrackdbConfig config = {},
                        const std::vector<std::string>& redis_args = {});
  struct Replies {
    std::string redis;
    std::string trackdb;
  };
  Replies Call(const std::vector<std::string>& argv);
  Replies SendRaw(const std::string& bytes);  // one reply each
  // Sends `calls` to both as one pipeline (one write, so that the server
  // may serve runs of them as groups) and returns each call's replies.
  std::vector<Replies> Pipeline(
      const std::vector<std::vector<std::string>>& calls);
  RawClient& redis() { return *redis_client_; }
  RawClient& trackdb() { return *trackdb_client_; }
  TrackdbResp& trackdb_server() { return trackdb_; }
  int redis_port() const { return redis_.port(); }

 private:
  RedisServerProcess redis_;
  TrackdbResp trackdb_;
  std::unique_ptr<RawClient> redis_client_;
  std::unique_ptr<RawClient> trackdb_client_;
};

// gtest helper: sends `argv` to both and EXPECTs byte-identical replies.
#define EXPECT_SAME_REPLY(diff, ...)                                        \
  do {                                                                      \
    auto _r = (diff).Call(__VA_ARGS__);                                     \
    EXPECT_EQ(_r.trackdb, _r.redis)                                         \
        << "command: "                                                      \
        << ::testing::PrintToString(std::vector<std::string>(__VA_ARGS__)); \
  } while (0)

// EXPECT_SAME_REPLY of each of `commands`, in order.
inline void ExpectSameReplies(
    Differential& diff, const std::vector<std::vector<std::string>>& commands) {
  for (const std::vector<std::string>& argv : commands) {
    EXPECT_SAME_REPLY(diff, argv);
  }
}

// Sends `blocking_pop` (e.g. BLPOP q 10) to both servers on new
// connections, checks that both wait, then sends `waker` (a command that
// gives the key members) through `diff`: both pops must answer the same,
// well within the waiters' periodic retry (1 s), so that the waker woke
// them. The server needs a worker thread besides the waiter's when the
// waker runs on one.
void ExpectWakesBlockedPop(Differential& diff,
                           const std::vector<std::string>& blocking_pop,
                           const std::vector<std::string>& waker);

}  // namespace trackdb::resp::testing

#endif  // TRACKDB_SERVICE_RESP_TESTING_RESP_TEST_CLIENT_H_
