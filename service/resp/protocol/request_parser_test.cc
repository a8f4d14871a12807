#include "service/resp/protocol/request_parser.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::resp {
namespace {

// A literal's bytes, NULs included, without its terminator: counting them
// by hand once read past the end of a literal.
template <size_t N>
std::string Bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using R = RequestParser::Result;

std::vector<std::vector<std::string>> ParseAll(
    RequestParser& p, const ParserLimits& limits = {}) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> argv;
  std::string error;
  while (p.Next(limits, &argv, &error) == R::kCommand) out.push_back(argv);
  return out;
}

TEST(RequestParserTest, MultibulkPipelineInOneFeed) {
  RequestParser p;
  const char wire[] =
      "*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$3\r\na\0b\r\n"
      "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n";
  p.Feed(absl::string_view(wire, sizeof(wire) - 1));
  auto cmds = ParseAll(p);
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_THAT(cmds[0], ElementsAre("PING"));
  EXPECT_THAT(cmds[1], ElementsAre("GET", Bytes("a\0b")));
  EXPECT_THAT(cmds[2], ElementsAre("SET", "k", ""));
  EXPECT_EQ(p.buffered(), 0u);
}

// A 4 MiB argument's buffer is released once the command is taken, so an
// idle connection does not keep it; while it arrives in pieces, its room
// stays reserved (no copy per piece).
TEST(RequestParserTest, ALargeRequestsBufferIsReleasedAfterIt) {
  RequestParser p;
  const std::string value(4 << 20, 'x');
  const std::string wire = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" +
                           std::to_string(value.size()) + "\r\n" + value +
                           "\r\n";
  std::vector<std::string> argv;
  std::string error;
  size_t held_while_arriving = 0;
  for (size_t at = 0; at < wire.size(); at += 64 * 1024) {
    p.Feed(absl::string_view(wire).substr(at, 64 * 1024));
    if (at + 64 * 1024 < wire.size()) {
      ASSERT_EQ(p.Next(ParserLimits(), &argv, &error),
                RequestParser::Result::kNeedMore);
      held_while_arriving = std::max(held_while_arriving, p.held_bytes());
    }
  }
  ASSERT_EQ(p.Next(ParserLimits(), &argv, &error),
            RequestParser::Result::kCommand);
  EXPECT_EQ(argv[2].size(), value.size());
  EXPECT_GE(held_while_arriving, value.size());
  EXPECT_LT(p.held_bytes(), 128u * 1024);
}

TEST(RequestParserTest, ACommandSplitAtEveryByteArrivesWhole) {
  const std::string wire = "*2\r\n$4\r\nECHO\r\n$12\r\nhello\r\nworld\r\n";
  RequestParser p;
  std::vector<std::string> argv;
  std::string error;
  for (size_t i = 0; i + 1 < wire.size(); ++i) {
    p.Feed(wire.substr(i, 1));
    ASSERT_EQ(p.Next({}, &argv, &error), R::kNeedMore) << "at byte " << i;
  }
  p.Feed(wire.substr(wire.size() - 1));
  ASSERT_EQ(p.Next({}, &argv, &error), R::kCommand);
  EXPECT_THAT(argv, ElementsAre("ECHO", "hello\r\nworld"));
}

TEST(RequestParserTest, InlineCommandsWithQuotes) {
  RequestParser p;
  p.Feed("SET k \"a b\\x41\\n\"\r\nGET k\n\r\n   \r\nPING\r\n");
  auto cmds = ParseAll(p);
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_THAT(cmds[0], ElementsAre("SET", "k", "a bA\n"));
  EXPECT_THAT(cmds[1], ElementsAre("GET", "k"));
  EXPECT_THAT(cmds[2], ElementsAre("PING"));
}

TEST(RequestParserTest, InlineSplitMatchesRedisRules) {
  std::vector<std::string> args;
  ASSERT_TRUE(SplitInlineArgs("  a  'b c'  \"d\\te\"  ", &args));
  EXPECT_THAT(args, ElementsAre("a", "b c", "d\te"));
  ASSERT_TRUE(SplitInlineArgs("x'y z'", &args));  // quote inside a word
  EXPECT_THAT(args, ElementsAre("xy z"));
  ASSERT_TRUE(SplitInlineArgs("'it\\'s'", &args));
  EXPECT_THAT(args, ElementsAre("it's"));
  ASSERT_TRUE(SplitInlineArgs("", &args));
  EXPECT_THAT(args, IsEmpty());
  EXPECT_FALSE(SplitInlineArgs("\"unterminated", &args));
  EXPECT_FALSE(SplitInlineArgs("'a'b", &args));
  EXPECT_FALSE(SplitInlineArgs("\"a\"b", &args));
}

TEST(RequestParserTest, EmptyRequestsAreSkipped) {
  RequestParser p;
  p.Feed("\r\n*0\r\n*-1\r\n\n*1\r\n$4\r\nPING\r\n");
  auto cmds = ParseAll(p);
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_THAT(cmds[0], ElementsAre("PING"));
}

struct ErrorCase {
  std::string input;
  std::string error;
};

TEST(RequestParserTest, ProtocolErrorsUseRedisWords) {
  ParserLimits small;
  small.max_bulk_len = 10;
  small.max_multibulk_len = 5;
  const ErrorCase cases[] = {
      {"*x\r\n", "Protocol error: invalid multibulk length"},
      {"*6\r\n", "Protocol error: invalid multibulk length"},
      {"*1\r\n+PING\r\n", "Protocol error: expected '$', got '+'"},
      {"*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$11\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$abc\r\n", "Protocol error: invalid bulk length"},
      {"SET \"a\r\n", "Protocol error: unbalanced quotes in request"},
      {std::string(70000, 'a'), "Protocol error: too big inline request"},
      {"*" + std::string(70000, '1'),
       "Protocol error: too big mbulk count string"},
  };
  for (const ErrorCase& c : cases) {
    RequestParser p;
    p.Feed(c.input);
    std::vector<std::string> argv;
    std::string error;
    EXPECT_EQ(p.Next(small, &argv, &error), R::kError) << c.input.substr(0, 40);
    EXPECT_EQ(error, c.error) << c.input.substr(0, 40);
  }
}

// Lengths are read as Redis's string2ll reads them: digits after an
// optional '-', no sign, space or leading zero, and within int64.
TEST(RequestParserTest, LengthsAreReadAsRedisReadsThem) {
  const std::string refused[] = {"+3",
                                 " 3",
                                 "3 ",
                                 "03",
                                 "-0",
                                 "-",
                                 "",
                                 "3a",
                                 "9223372036854775808",
                                 "99999999999999999999"};
  for (const std::string& length : refused) {
    RequestParser bulk;
    bulk.Feed("*1\r\n$" + length + "\r\n");
    std::vector<std::string> argv;
    std::string error;
    EXPECT_EQ(bulk.Next(ParserLimits(), &argv, &error), R::kError) << length;
    EXPECT_EQ(error, "Protocol error: invalid bulk length") << length;
    RequestParser count;
    count.Feed("*" + length + "\r\n");
    EXPECT_EQ(count.Next(ParserLimits(), &argv, &error), R::kError) << length;
  }
  RequestParser p;
  p.Feed(
      "*-9223372036854775808\r\n*0\r\n*2\r\n$3\r\nGET\r\n$"
      "10\r\n0123456789\r\n");
  std::vector<std::string> argv;
  std::string error;
  ASSERT_EQ(p.Next(ParserLimits(), &argv, &error), R::kCommand) << error;
  EXPECT_EQ(argv, (std::vector<std::string>{"GET", "0123456789"}));
}

// Redis finds header and inline line ends with strchr: a NUL before the
// end leaves the request waiting for more input, until it is too big.
TEST(RequestParserTest, ANulHidesTheLineEndAsInRedis) {
  const std::string inputs[] = {
      Bytes("PI\0NG\r\n"),
      Bytes("*1\0\r\n$4\r\nPING\r\n"),
      Bytes("*1\r\n$4\0\r\nPING\r\n"),
  };
  const char* too_big[] = {"Protocol error: too big inline request",
                           "Protocol error: too big mbulk count string",
                           "Protocol error: too big bulk count string"};
  for (int i = 0; i < 3; ++i) {
    RequestParser p;
    std::vector<std::string> argv;
    std::string error;
    p.Feed(inputs[i]);
    EXPECT_EQ(p.Next(ParserLimits{}, &argv, &error), R::kNeedMore) << i;
    p.Feed(std::string(70000, 'x') + "\r\n");
    EXPECT_EQ(p.Next(ParserLimits{}, &argv, &error), R::kError) << i;
    EXPECT_EQ(error, too_big[i]);
  }
  // In a bulk payload a NUL is just a byte.
  RequestParser p;
  p.Feed(Bytes("*2\r\n$4\r\nECHO\r\n$3\r\na\0b\r\n"));
  std::vector<std::string> argv;
  std::string error;
  ASSERT_EQ(p.Next(ParserLimits{}, &argv, &error), R::kCommand);
  EXPECT_THAT(argv, ElementsAre("ECHO", Bytes("a\0b")));
}

TEST(RequestParserTest, UnauthenticatedClientsGetSmallLimits) {
  ParserLimits limits;
  limits.authenticated = false;
  std::vector<std::string> argv;
  std::string error;
  RequestParser p;
  p.Feed("*11\r\n");
  EXPECT_EQ(p.Next(limits, &argv, &error), R::kError);
  EXPECT_EQ(error, "Protocol error: unauthenticated multibulk length");
  RequestParser q;
  q.Feed("*1\r\n$16385\r\n");
  EXPECT_EQ(q.Next(limits, &argv, &error), R::kError);
  EXPECT_EQ(error, "Protocol error: unauthenticated bulk length");
}

}  // namespace
}  // namespace trackdb::resp
