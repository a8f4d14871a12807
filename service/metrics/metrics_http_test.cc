#include "service/metrics/metrics_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Sends `request` and reads until the server closes.
std::string Exchange(int port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  if (!request.empty()) {
    EXPECT_EQ(send(fd, request.data(), request.size(), 0),
              static_cast<ssize_t>(request.size()));
  }
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, n);
  close(fd);
  return out;
}

std::unique_ptr<MetricsHttpServer> Serve() {
  auto server =
      MetricsHttpServer::Start("127.0.0.1", 0, [](absl::string_view path) {
        if (path == "/metrics") return HttpAnswer{200, "text/plain", "up 1\n"};
        return HttpAnswer{404, "text/plain", "no such page\n"};
      });
  EXPECT_TRUE(server.ok()) << server.status();
  return std::move(*server);
}

TEST(MetricsHttpTest, AnswersGetWithTheHandlersAnswer) {
  auto server = Serve();
  EXPECT_EQ(Exchange(server->port(),
                     "GET /metrics?debug=1 HTTP/1.1\r\nHost: x\r\n\r\n"),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
            "Content-Length: 5\r\nConnection: close\r\n\r\nup 1\n");
  EXPECT_THAT(Exchange(server->port(), "GET /nope HTTP/1.0\r\n\r\n"),
              StartsWith("HTTP/1.1 404 Not Found\r\n"));
}

TEST(MetricsHttpTest, HeadHasNoBody) {
  auto server = Serve();
  const std::string out =
      Exchange(server->port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
  EXPECT_THAT(out, HasSubstr("Content-Length: 5\r\n"));
  EXPECT_EQ(out.substr(out.size() - 4), "\r\n\r\n");
}

TEST(MetricsHttpTest, OtherMethodsAndGarbageAreRefused) {
  auto server = Serve();
  EXPECT_THAT(Exchange(server->port(), "POST /metrics HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 405 Method Not Allowed\r\n"));
  EXPECT_THAT(Exchange(server->port(), "hello\r\n\r\n"),
              StartsWith("HTTP/1.1 400 Bad Request\r\n"));
}

TEST(MetricsHttpTest, ASilentClientIsClosedAndTheNextOneServed) {
  auto server = Serve();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Exchange(server->port(), ""), "");  // closed unanswered
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(450));
  EXPECT_LT(waited, std::chrono::milliseconds(1500));
  EXPECT_THAT(Exchange(server->port(), "GET /metrics HTTP/1.1\r\n\r\n"),
              StartsWith("HTTP/1.1 200 OK\r\n"));
}

// A client that asks and never reads a large answer is left after 2 s:
// the next client is served, and the server stops.
TEST(MetricsHttpTest, AClientThatDoesNotReadIsLeft) {
  const std::string big(64 << 20, 'x');
  auto server =
      MetricsHttpServer::Start("127.0.0.1", 0, [&big](absl::string_view path) {
        if (path == "/big") return HttpAnswer{200, "text/plain", big};
        return HttpAnswer{200, "text/plain", "small\n"};
      });
  ASSERT_TRUE(server.ok());
  const int stuck = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>((*server)->port()));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(connect(stuck, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string ask = "GET /big HTTP/1.1\r\n\r\n";
  ASSERT_EQ(send(stuck, ask.data(), ask.size(), 0),
            static_cast<ssize_t>(ask.size()));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(Exchange((*server)->port(), "GET /small HTTP/1.1\r\n\r\n"),
              HasSubstr("small"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  server->reset();  // stops while `stuck` is still open
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(6));
  close(stuck);
}

TEST(MetricsHttpTest, ABusyPortIsAClearError) {
  auto first = Serve();
  auto second =
      MetricsHttpServer::Start("127.0.0.1", first->port(),
                               [](absl::string_view) { return HttpAnswer{}; });
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("cannot serve metrics on 127.0.0.1:"));
  EXPECT_FALSE(
      MetricsHttpServer::Start("example.com", 0, [](absl::string_view) {
        return HttpAnswer{};
      }).ok());
}

}  // namespace
}  // namespace trackdb::metrics
