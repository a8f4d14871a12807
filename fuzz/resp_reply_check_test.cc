#include "fuzz/resp_reply_check.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::fuzz {
namespace {

int Count(const std::string& bytes) {
  std::string why;
  return CountReplies(bytes, &why);
}

TEST(RespReplyCheckTest, CountsWellFormedReplies) {
  EXPECT_EQ(Count(""), 0);
  EXPECT_EQ(Count("+OK\r\n"), 1);
  EXPECT_EQ(Count("-ERR no\r\n:12\r\n$-1\r\n*-1\r\n"), 4);
  EXPECT_EQ(Count("$3\r\na\r\n\r\n"), 1);  // a bulk may hold CRLF
  EXPECT_EQ(Count("*2\r\n$1\r\nx\r\n*1\r\n:-3\r\n"), 1);
  EXPECT_EQ(Count("%1\r\n+k\r\n,1.5\r\n_\r\n#t\r\n~0\r\n"), 4);
  EXPECT_EQ(Count("=7\r\ntxt:abc\r\n"), 1);
}

TEST(RespReplyCheckTest, RefusesMalformedReplies) {
  EXPECT_EQ(Count("+OK"), -1);             // no CRLF
  EXPECT_EQ(Count("-ERR a\nb\r\n"), -1);   // LF inside an error line
  EXPECT_EQ(Count("$5\r\nabc\r\n"), -1);   // bulk overruns
  EXPECT_EQ(Count("$3\r\nabcd\r\n"), -1);  // bulk not followed by CRLF
  EXPECT_EQ(Count("*2\r\n:1\r\n"), -1);    // array short of an item
  EXPECT_EQ(Count(":1x\r\n"), -1);         // bad integer
  EXPECT_EQ(Count("?\r\n"), -1);           // unknown type
  EXPECT_EQ(Count("#x\r\n"), -1);          // bad boolean
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "*1\r\n";
  EXPECT_EQ(Count(deep + ":1\r\n"), -1);  // runaway nesting
}

TEST(RespReplyCheckTest, SaysWhy) {
  std::string why;
  EXPECT_EQ(CountReplies("$9\r\nab\r\n", &why), -1);
  EXPECT_THAT(why, ::testing::HasSubstr("overruns"));
}

}  // namespace
}  // namespace trackdb::fuzz
