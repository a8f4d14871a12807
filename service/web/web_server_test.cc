#include "service/web/web_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::web {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, n);
  return out;
}

std::string Get(int port, const std::string& request) {
  const int fd = Connect(port);
  EXPECT_TRUE(http::WriteAll(fd, request, 1000));
  std::string out = ReadAll(fd);
  close(fd);
  return out;
}

WebAnswer Echo(const http::HttpRequest& r) {
  if (r.path == "/stream") {
    WebAnswer a;
    a.answer.content_type = "text/event-stream";
    a.stream = [](EventStream& out) {
      for (int i = 0; i < 3; ++i)
        out.Send("data: " + std::to_string(i) + "\n\n");
      while (!out.stopping()) absl::SleepFor(absl::Milliseconds(5));
    };
    return a;
  }
  auto it = r.query.find("q");
  return {{200, "text/plain",
           r.path + "|" + (it == r.query.end() ? "" : it->second)},
          {}};
}

TEST(WebServerTest, AnswersWholeAndRefusesOtherMethods) {
  auto server = WebServer::Start("127.0.0.1", 0, Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  const int port = (*server)->port();
  EXPECT_THAT(Get(port, "GET /a%20b?q=x+y HTTP/1.1\r\n\r\n"),
              testing::AllOf(StartsWith("HTTP/1.1 200 OK"),
                             HasSubstr("Content-Length: 8"),
                             testing::EndsWith("/a b|x y")));
  EXPECT_THAT(Get(port, "POST / HTTP/1.1\r\n\r\n"), StartsWith("HTTP/1.1 405"));
  EXPECT_THAT(Get(port, "nonsense\r\n\r\n"), StartsWith("HTTP/1.1 400"));
  EXPECT_THAT(Get(port, "HEAD /x HTTP/1.1\r\n\r\n"),
              testing::EndsWith("\r\n\r\n"));
}

TEST(WebServerTest, StreamsUntilTheClientLeavesOrTheServerStops) {
  auto server = WebServer::Start("127.0.0.1", 0, Echo);
  ASSERT_TRUE(server.ok());
  const int port = (*server)->port();
  // A client that leaves: its thread ends without anything more sent.
  int fd = Connect(port);
  ASSERT_TRUE(http::WriteAll(fd, "GET /stream HTTP/1.1\r\n\r\n", 1000));
  std::string got;
  char buf[1024];
  while (got.find("data: 2") == std::string::npos) {
    const ssize_t n = read(fd, buf, sizeof buf);
    ASSERT_GT(n, 0);
    got.append(buf, n);
  }
  EXPECT_THAT(got,
              StartsWith("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream"));
  EXPECT_THAT(got, testing::Not(HasSubstr("Content-Length")));
  EXPECT_EQ((*server)->connections(), 1);
  close(fd);
  for (int i = 0; i < 200 && (*server)->connections() > 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ((*server)->connections(), 0);
  // A client that stays: the server's stop ends its stream.
  fd = Connect(port);
  ASSERT_TRUE(http::WriteAll(fd, "GET /stream HTTP/1.1\r\n\r\n", 1000));
  while ((*server)->connections() == 0) absl::SleepFor(absl::Milliseconds(5));
  const absl::Time start = absl::Now();
  server->reset();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  close(fd);
}

TEST(WebServerTest, AtMostMaxConnectionsAtOnce) {
  auto server = WebServer::Start("127.0.0.1", 0, Echo);
  ASSERT_TRUE(server.ok());
  const int port = (*server)->port();
  std::vector<int> idle;
  for (int i = 0; i < WebServer::kMaxConnections; ++i)
    idle.push_back(Connect(port));
  while ((*server)->connections() < WebServer::kMaxConnections) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_THAT(Get(port, "GET / HTTP/1.1\r\n\r\n"),
              testing::AllOf(StartsWith("HTTP/1.1 503"),
                             HasSubstr("more than 64 connections")));
  for (int fd : idle) close(fd);
}

TEST(WebServerTest, AnAddressInUseIsNamed) {
  auto first = WebServer::Start("127.0.0.1", 0, Echo);
  ASSERT_TRUE(first.ok());
  auto second = WebServer::Start("127.0.0.1", (*first)->port(), Echo);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(),
              HasSubstr("cannot serve the map page on 127.0.0.1:"));
}

}  // namespace
}  // namespace trackdb::web
