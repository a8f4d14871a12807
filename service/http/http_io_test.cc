#include "service/http/http_io.h"

#include <sys/socket.h>
#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::http {
namespace {

using ::testing::HasSubstr;

TEST(HttpIoTest, ParsesTheLineQueryAndHeaders) {
  absl::StatusOr<HttpRequest> r = ParseRequest(
      "GET /api/track%20x?collection=fleet%2F1&entity=a+b&flag HTTP/1.1\r\n"
      "Host: x\r\nAuthorization:  Basic abc \r\n\r\n");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->method, "GET");
  EXPECT_EQ(r->path, "/api/track x");
  EXPECT_EQ(r->query["collection"], "fleet/1");
  EXPECT_EQ(r->query["entity"], "a b");
  EXPECT_EQ(r->query.count("flag"), 1u);
  EXPECT_EQ(r->header["authorization"], "Basic abc");
}

TEST(HttpIoTest, RefusesWhatIsNotHttp) {
  EXPECT_THAT(ParseRequest("hello\r\n\r\n").status().message(),
              HasSubstr("not an HTTP request line"));
  EXPECT_THAT(ParseRequest("GET /a?x=%4 HTTP/1.1\r\n\r\n").status().message(),
              HasSubstr("bad %-escape"));
  EXPECT_THAT(ParseRequest("GET /%zz HTTP/1.1\r\n\r\n").status().message(),
              HasSubstr("bad %-escape"));
}

TEST(HttpIoTest, PercentDecodeKeepsPlusInPaths) {
  EXPECT_EQ(*PercentDecode("a+b%2b", false), "a+b+");
  EXPECT_EQ(*PercentDecode("a+b%2B", true), "a b+");
  EXPECT_FALSE(PercentDecode("%", true).ok());
  EXPECT_FALSE(PercentDecode("%a", true).ok());
}

TEST(HttpIoTest, AnswerHasItsLengthHeadersAndNoBodyForHead) {
  HttpAnswer a{401, "text/plain", "no\n", "WWW-Authenticate: Basic\r\n"};
  EXPECT_EQ(HttpResponse(a, "GET"),
            "HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\n"
            "Content-Length: 3\r\nConnection: close\r\n"
            "WWW-Authenticate: Basic\r\n\r\nno\n");
  EXPECT_THAT(HttpResponse(a, "HEAD"), testing::EndsWith("Basic\r\n\r\n"));
}

TEST(HttpIoTest, ReadsAHeadOrNothingInTime) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ASSERT_TRUE(WriteAll(fds[0], "GET / HTTP/1.1\r\n\r\n", 1000));
  EXPECT_EQ(ReadRequestHead(fds[1], 1000, 8192), "GET / HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(WriteAll(fds[0], "GET / HTTP/1.1\r\n", 1000));  // never ends
  EXPECT_EQ(ReadRequestHead(fds[1], 50, 8192), "");
  ASSERT_TRUE(WriteAll(fds[0], std::string(10000, 'x'), 1000));
  EXPECT_EQ(ReadRequestHead(fds[1], 1000, 8192), "");  // too long
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace trackdb::http
