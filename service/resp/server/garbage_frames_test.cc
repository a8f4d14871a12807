// Garbage on the wire, beside a real redis-server 7.0: seeded random bytes
// and mutations of a valid pipeline (bytes flipped, lengths made negative
// or huge, quotes unbalanced, frames cut short), each on a fresh connection
// to both servers. The replies must be Redis's, byte for byte, in order;
// a protocol error closes the connection as in Redis; and the server goes
// on serving other clients.
#include <functional>
#include <future>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::RawClient;

// Only commands whose replies are the same on both servers.
const char kValidPipeline[] =
    "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n"
    "*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n"
    "ECHO \"two words\" 'x'\r\n"
    "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
    "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n"
    "PING\r\n";

// One garbage input from `rng`.
std::string Garbage(std::mt19937& rng) {
  auto pick = [&](int n) {
    return std::uniform_int_distribution<int>(0, n - 1)(rng);
  };
  std::string s = kValidPipeline;
  switch (pick(6)) {
    case 0: {  // random bytes
      s.resize(1 + pick(200));
      for (char& c : s) c = static_cast<char>(pick(256));
      return s;
    }
    case 1:  // a length made negative, zero or huge
      s.insert(s.find_first_of("*$", pick(static_cast<int>(s.size()))) + 1,
               pick(2) ? "-" : "99999999999");
      break;
    case 2:  // an unbalanced quote in the inline command
      s.insert(s.find("ECHO \"") + 6 + pick(9), pick(2) ? "\"" : "'");
      break;
    case 3:  // the pipeline cut short, then a PING
      s.resize(pick(static_cast<int>(s.size())));
      s += "\r\nPING\r\n";
      break;
    default:  // a few bytes replaced
      for (int i = 1 + pick(4); i > 0; --i) {
        const char alphabet[] = "*$-+:\r\n\"' 0123456789\\x\0\xff";
        s[pick(static_cast<int>(s.size()))] =
            alphabet[pick(sizeof(alphabet) - 1)];
      }
  }
  return s;
}

// Every reply to `input` until the server stops answering, then whether it
// closed the connection.
std::vector<std::string> Replies(int port, const std::string& input) {
  RawClient c(port);
  c.Send(input);
  std::vector<std::string> replies;
  while (auto r = c.ReadReply(/*timeout_ms=*/200)) replies.push_back(*r);
  replies.push_back(c.Closed(/*timeout_ms=*/50) ? "<closed>" : "<open>");
  return replies;
}

TEST(GarbageFramesTest, RepliesAndClosesAsRedisAndKeepsServing) {
  Differential d;
  std::mt19937 rng(20261123);
  for (int i = 0; i < 60; ++i) {
    const std::string input = Garbage(rng);
    const std::string shown = absl::CHexEscape(input);
    // Both at once: each waits out a silence to see that nothing follows.
    auto redis = std::async(std::launch::async, Replies, d.redis_port(),
                            std::cref(input));
    EXPECT_EQ(Replies(d.trackdb_server().port(), input), redis.get())
        << "input " << i << ": " << shown;
    // The keyspace is what the accepted commands made it, on both.
    const auto after = d.Call({"GET", "k"});
    EXPECT_EQ(after.trackdb, after.redis) << shown;
    d.Call({"DEL", "k"});
  }
  RawClient other(d.trackdb_server().port());
  EXPECT_EQ(other.Call({"PING"}), "+PONG\r\n");
}

}  // namespace
}  // namespace trackdb::resp
