// Webhooks against a small HTTP server in the test: events POSTed in
// offset order, retried until accepted, counted, and resumed from the
// stored offset by a webhook of the same name after a restart.

#include "service/events/fence_webhook.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "fence/fence_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/events/http_post.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/store_test_util.h"

namespace trackdb::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Accepts POSTs on a loopback port: answers 500 to the first `fail_first`,
// 200 to the rest, and keeps each request's body and status.
class HookServer {
 public:
  explicit HookServer(int fail_first) : fail_first_(fail_first) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 16);
    thread_ = std::thread([this] { Serve(); });
  }
  ~HookServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  std::string url() const {
    return absl::StrCat("http://127.0.0.1:", port_, "/hooks/fence");
  }
  // "<status> <offset>" per request.
  std::vector<std::string> seen() {
    absl::MutexLock lock(&mu_);
    return seen_;
  }
  bool WaitFor(size_t n) {
    absl::MutexLock lock(&mu_);
    auto enough = [&] { return seen_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(30));
  }

 private:
  void Serve() {
    for (;;) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string req;
      char buf[4096];
      size_t want = std::string::npos;
      while (req.size() < want) {
        const ssize_t n = recv(c, buf, sizeof(buf), 0);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
        const size_t end = req.find("\r\n\r\n");
        const size_t cl = req.find("Content-Length: ");
        size_t body = 0;
        if (end != std::string::npos && cl != std::string::npos &&
            absl::SimpleAtoi(
                req.substr(cl + 16, req.find("\r\n", cl) - cl - 16), &body)) {
          want = end + 4 + body;
        }
      }
      absl::MutexLock lock(&mu_);
      const bool fail = static_cast<int>(seen_.size()) < fail_first_;
      const std::string answer = fail ? "HTTP/1.1 500 Oops\r\n\r\n"
                                      : "HTTP/1.1 204 No Content\r\n\r\n";
      send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
      close(c);
      const size_t at = req.find("\"offset\":\"");
      seen_.push_back(absl::StrCat(
          fail ? 500 : 204, " ",
          at == std::string::npos
              ? "?"
              : req.substr(at + 10, req.find('"', at + 10) - at - 10)));
      EXPECT_THAT(req, HasSubstr("POST /hooks/fence HTTP/1.1\r\n"));
      EXPECT_THAT(req, HasSubstr("\"fence\":\"depot\""));
    }
  }

  const int fail_first_;
  int fd_ = -1;
  int port_ = 0;
  absl::Mutex mu_;
  std::vector<std::string> seen_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// `n` fixes of t1, each across the depot's edge from the one before: one
// event each.
void Cross(storage::TrackStore& store, int n, int64_t* t) {
  for (int i = 0; i < n; ++i) {
    *t += 1000;
    const double lat = (*t / 1000) % 2 ? 40.0 : 40.01;
    ASSERT_TRUE(
        store.AddPoints("fleet", {storage::testing::Point("t1", *t, lat, 116)})
            .ok());
  }
}

TEST(FenceWebhookTest, DeliversInOrderRetriesAndResumes) {
  const std::string dir = storage::testing::NewDataDir();
  auto store = storage::testing::OpenStore(dir);
  const v1::Fence depot = fence::testing::CircleFence(40, 116, 500);
  ASSERT_TRUE(store->fences().Put(depot).ok());
  int64_t t = 0;
  Cross(*store, 2, &t);  // offsets 1, 2: before the webhook, not sent
  HookServer server(/*fail_first=*/2);
  v1::FenceWebhook config;
  config.set_name("ops");
  config.set_url(server.url());
  config.set_collection("fleet");
  FenceWebhook::Timing fast;
  fast.first_backoff = absl::Milliseconds(5);
  {
    auto hook = FenceWebhook::Start(store.get(), config, fast);
    ASSERT_TRUE(hook.ok()) << hook.status();
    Cross(*store, 3, &t);  // 3, 4, 5
    ASSERT_TRUE(server.WaitFor(5));
    EXPECT_THAT(server.seen(),
                ElementsAre("500 3", "500 3", "204 3", "204 4", "204 5"));
    // Counted just after the server answered.
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while ((*hook)->counters().delivered < 3 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    const WebhookCounters c = (*hook)->counters();
    EXPECT_EQ(c.delivered, 3u);
    EXPECT_EQ(c.failed, 2u);
    EXPECT_EQ(c.retried, 2u);
  }
  Cross(*store, 1, &t);  // 6, while no webhook runs
  auto again = FenceWebhook::Start(store.get(), config, fast);
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(server.WaitFor(6));
  EXPECT_EQ(server.seen().back(), "204 6") << "resumed after the last one";
  // Saved just after the server answered.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (*store->fences().Cursor("fleet", "ops") != 7u && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(*store->fences().Cursor("fleet", "ops"), 7u);
}

TEST(FenceWebhookTest, BadConfigNamesTheField) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  v1::FenceWebhook config;
  config.set_name("ops");
  config.set_collection("fleet");
  config.set_url("https://example.com/x");
  EXPECT_THAT(FenceWebhook::Start(store.get(), config).status().message(),
              HasSubstr("fence_webhooks.url must start with http://"));
  config.set_url("http://h:99999/x");
  EXPECT_THAT(FenceWebhook::Start(store.get(), config).status().message(),
              HasSubstr("bad port"));
  config.set_url("http://h/x");
  config.set_name("");
  EXPECT_THAT(FenceWebhook::Start(store.get(), config).status().message(),
              HasSubstr("fence_webhooks.name"));
}

TEST(FenceWebhooksTest, StatsCountPerEndpointAndPending) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  ASSERT_TRUE(store->fences().Put(fence::testing::CircleFence(40, 116, 500)).ok());
  HookServer server(/*fail_first=*/1);
  v1::ServerConfig config;
  v1::FenceWebhook* ops = config.add_fence_webhooks();
  ops->set_name("ops");
  ops->set_url(server.url());
  ops->set_collection("fleet");
  // An endpoint that refuses connections: nothing delivered, all pending.
  v1::FenceWebhook* down = config.add_fence_webhooks();
  down->set_name("down");
  down->set_url(
      absl::StrCat("http://127.0.0.1:", resp::testing::FreePort(), "/x"));
  down->set_collection("fleet");
  FenceWebhook::Timing fast;
  fast.first_backoff = absl::Milliseconds(5);
  fast.max_backoff = absl::Milliseconds(20);
  auto hooks = FenceWebhooks::Start(store.get(), config, fast);
  ASSERT_TRUE(hooks.ok()) << hooks.status();
  int64_t t = 0;
  Cross(*store, 3, &t);
  ASSERT_TRUE(server.WaitFor(4));
  std::vector<WebhookStats> stats;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  do {
    absl::SleepFor(absl::Milliseconds(5));
    stats = (*hooks)->Stats();
  } while ((stats[0].counters.delivered < 3 || stats[1].counters.failed < 3) &&
           absl::Now() < deadline);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "ops");
  EXPECT_EQ(stats[0].collection, "fleet");
  EXPECT_EQ(stats[0].url, server.url());  // no query to leave out
  EXPECT_EQ(stats[0].counters.delivered, 3u);
  EXPECT_EQ(stats[0].counters.failed, 1u);
  EXPECT_EQ(stats[0].counters.retried, 1u);
  EXPECT_EQ(stats[0].pending, 0u);
  EXPECT_EQ(stats[1].name, "down");
  EXPECT_EQ(stats[1].counters.delivered, 0u);
  EXPECT_GE(stats[1].counters.failed, 3u);
  EXPECT_EQ(stats[1].pending, 3u);
}

TEST(FenceWebhooksTest, RefusesANameUsedTwice) {
  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  v1::ServerConfig config;
  for (int i = 0; i < 2; ++i) {
    v1::FenceWebhook* hook = config.add_fence_webhooks();
    hook->set_name("ops");
    hook->set_url("http://127.0.0.1:1/x");
    hook->set_collection(i == 0 ? "fleet" : "buses");
  }
  const absl::Status s = FenceWebhooks::Start(store.get(), config).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("fence_webhooks.name \"ops\" is used twice"));
  // A bad webhook after a good one: the good one has not started (it has
  // stored no offset).
  config.mutable_fence_webhooks(1)->set_name("later");
  config.mutable_fence_webhooks(1)->set_url("https://example.com/x");
  EXPECT_THAT(FenceWebhooks::Start(store.get(), config).status().message(),
              HasSubstr("http://"));
  EXPECT_FALSE(store->fences().Cursor("fleet", "ops")->has_value());
}

TEST(HttpPostTest, ParsesUrlsAndFailsClearly) {
  auto url = ParseHttpUrl("http://example.com");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "example.com");
  EXPECT_EQ(url->port, "80");
  EXPECT_EQ(url->path, "/");
  url = ParseHttpUrl("http://127.0.0.1:1/a?b=c");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->port, "1");
  EXPECT_EQ(url->path, "/a?b=c");
  // Nothing listens on port 1.
  const absl::Status s = HttpPost(*url, "{}", absl::Seconds(2));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("connecting to 127.0.0.1:1"));
}

}  // namespace
}  // namespace trackdb::service
