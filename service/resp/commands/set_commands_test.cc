// Set commands compared with a real redis-server 7.0 started beside
// trackdb's RESP server: byte for byte where Redis defines the order, as
// sorted member lists where it does not (SMEMBERS, the set algebra,
// SSCAN), and by count and membership where the reply is random (SPOP,
// SRANDMEMBER). Wrong types (strings, GEO keys), errors, missing keys,
// RESP3, STORE into every kind of destination, and SSCAN's paging.
#include <algorithm>
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using ::testing::IsSubsetOf;
using testing::RawClient;
using ::testing::UnorderedElementsAreArray;

using Argv = std::vector<std::string>;

// One RESP reply, parsed: its type byte, its line or bulk payload, and an
// aggregate's elements.
struct Node {
  char type = 0;
  std::string text;
  std::vector<Node> children;
};

// Parses the reply at `pos`; false if it is malformed.
bool Parse(const std::string& r, size_t* pos, Node* out) {
  const size_t eol = r.find("\r\n", *pos);
  if (eol == std::string::npos || eol == *pos) return false;
  out->type = r[*pos];
  const std::string line = r.substr(*pos + 1, eol - *pos - 1);
  *pos = eol + 2;
  int64_t n = 0;
  switch (out->type) {
    case '$':
      if (!absl::SimpleAtoi(line, &n)) return false;
      if (n < 0) return true;
      out->text = r.substr(*pos, n);
      *pos += n + 2;
      return *pos <= r.size();
    case '*':
    case '~':
      if (!absl::SimpleAtoi(line, &n)) return false;
      for (int64_t i = 0; i < n; ++i) {
        out->children.emplace_back();
        if (!Parse(r, pos, &out->children.back())) return false;
      }
      return true;
    default:
      out->text = line;
      return true;
  }
}

Node ParseReply(const std::string& r) {
  Node node;
  size_t pos = 0;
  EXPECT_TRUE(Parse(r, &pos, &node) && pos == r.size()) << r;
  return node;
}

// The bulk strings of a flat aggregate reply.
std::vector<std::string> Elements(const Node& node) {
  std::vector<std::string> out;
  for (const Node& c : node.children) {
    EXPECT_EQ(c.type, '$');
    out.push_back(c.text);
  }
  return out;
}
std::vector<std::string> Elements(const std::string& reply) {
  return Elements(ParseReply(reply));
}

// The reply with every aggregate of bulk strings sorted: what is left to
// compare when Redis leaves the order unspecified.
std::string Canonical(const Node& node) {
  if (node.type == '$') {
    return absl::StrCat("$", node.text.size(), "\r\n", node.text, "\r\n");
  }
  if (node.type != '*' && node.type != '~') {
    return absl::StrCat(std::string(1, node.type), node.text, "\r\n");
  }
  std::vector<std::string> parts;
  bool all_bulk = true;
  for (const Node& c : node.children) {
    parts.push_back(Canonical(c));
    all_bulk = all_bulk && c.type == '$';
  }
  if (all_bulk) std::sort(parts.begin(), parts.end());
  std::string out =
      absl::StrCat(std::string(1, node.type), node.children.size(), "\r\n");
  for (const std::string& p : parts) out += p;
  return out;
}
std::string Canonical(const std::string& reply) {
  if (reply.empty() || reply[0] == '-') return reply;
  return Canonical(ParseReply(reply));
}

#define EXPECT_SAME_MEMBERS(diff, ...)                                \
  do {                                                                \
    auto _r = (diff).Call(__VA_ARGS__);                               \
    EXPECT_EQ(Canonical(_r.trackdb), Canonical(_r.redis))             \
        << "command: " << ::testing::PrintToString(Argv(__VA_ARGS__)) \
        << "\n trackdb: " << _r.trackdb << " redis: " << _r.redis;    \
  } while (0)

const std::string kBinary("b\0in", 4);
const std::string kHigh("\xff", 1);

TEST(SetCommandsTest, AddRemoveAndMembership) {
  Differential d;
  const std::vector<Argv> commands = {
      {"SADD", "s", "a", "b", "c"},
      {"SADD", "s", "a", "d"},
      {"SADD", "s", "x", "x", "x"},
      {"SADD", "s", "", kBinary, kHigh},
      {"SCARD", "s"},
      {"SISMEMBER", "s", "a"},
      {"SISMEMBER", "s", "zz"},
      {"SISMEMBER", "s", ""},
      {"SISMEMBER", "s", kBinary},
      {"SISMEMBER", "s", "b", "extra"},
      {"SISMEMBER", "nokey", "a"},
      {"SMISMEMBER", "s", "a", "zz", kBinary, "a", ""},
      {"SMISMEMBER", "nokey", "a", "b"},
      {"SMISMEMBER", "s"},
      {"SCARD", "nokey"},
      {"SCARD", "s", "x"},
      {"SADD", "s"},
      {"SREM", "s"},
      {"SREM", "nokey", "a"},
      {"SREM", "s", "a", "zz", "a"},
      {"SCARD", "s"},
      {"TYPE", "s"},
      {"SREM", "s", "b", "c", "d", "x", "", kBinary},
      {"SISMEMBER", "s", kHigh},
      {"SREM", "s", kHigh},
      // The last member taken: the key is gone.
      {"EXISTS", "s"},
      {"TYPE", "s"},
      {"SCARD", "s"},
      {"SADD", "s", "again"},
      {"SMISMEMBER", "s", "again", "a"},
  };
  for (const Argv& c : commands) EXPECT_SAME_REPLY(d, c);
  testing::Resp3Both(d);
  for (const Argv& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(SetCommandsTest, Smembers) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SADD", "s", "a", "b", "c", "", kBinary, kHigh, "10"});
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "s"});
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "nokey"});
  EXPECT_SAME_REPLY(d, {"SMEMBERS", "s", "x"});
  EXPECT_SAME_REPLY(d, {"SMEMBERS"});
  // Many members, binary ones among them.
  Argv many = {"SADD", "big"};
  for (int i = 0; i < 300; ++i) {
    many.push_back(absl::StrCat("m", i, std::string(1, static_cast<char>(i))));
  }
  EXPECT_SAME_REPLY(d, many);
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "big"});
  EXPECT_SAME_REPLY(d, {"SCARD", "big"});
  testing::Resp3Both(d);
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "s"});
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "nokey"});
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "big"});
}

// Every set command against a string and a GEO key: WRONGTYPE, in Redis's
// order of checks, and nothing written (a STORE's destination included).
TEST(SetCommandsTest, WrongType) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SET", "str", "v"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "geo", "13.361389", "38.115556", "p"});
  EXPECT_SAME_REPLY(d, {"SADD", "s", "a", "b"});
  EXPECT_SAME_REPLY(d, {"SADD", "dst", "z"});
  for (const std::string k : {"str", "geo"}) {
    const std::vector<Argv> commands = {
        {"SADD", k, "a"},
        {"SREM", k, "a"},
        {"SISMEMBER", k, "a"},
        {"SMISMEMBER", k, "a"},
        {"SCARD", k},
        {"SMEMBERS", k},
        {"SPOP", k},
        {"SPOP", k, "0"},
        {"SPOP", k, "-1"},  // the count is checked first
        {"SRANDMEMBER", k},
        {"SRANDMEMBER", k, "-2"},
        {"SRANDMEMBER", k, "x"},
        {"SMOVE", k, "s", "a"},
        {"SMOVE", "s", k, "a"},
        {"SMOVE", "s", k, "nope"},
        {"SMOVE", "nokey", k, "a"},  // a missing source: 0 first
        {"SMOVE", k, k, "a"},
        {"SINTER", "s", k},
        {"SINTER", k, "nokey"},
        {"SINTER", "nokey", k},
        {"SUNION", k},
        {"SUNION", "s", "nokey", k},
        {"SDIFF", "nokey", k},
        {"SDIFF", "s", k},
        {"SINTERSTORE", "dst", "s", k},
        {"SINTERSTORE", "dst", "nokey", k},
        {"SUNIONSTORE", "dst", k},
        {"SDIFFSTORE", "dst", "nokey", k},
        {"SDIFFSTORE", k, k},
        {"SINTERCARD", "2", "nokey", k},
        {"SINTERCARD", "1", k, "LIMIT", "x"},  // options first
        {"SSCAN", k, "0"},
        {"SSCAN", k, "0", "COUNT", "x"},
        {"SSCAN", k, "x"},  // the cursor first
    };
    for (const Argv& c : commands) EXPECT_SAME_REPLY(d, c);
  }
  EXPECT_SAME_REPLY(d, {"GET", "str"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "geo", "p"});
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "s"});
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "dst"});
}

TEST(SetCommandsTest, SpopAndSrandmemberArguments) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SADD", "s", "a", "b", "c"});
  const std::vector<Argv> commands = {
      {"SPOP", "nokey"},
      {"SPOP", "nokey", "3"},
      {"SPOP", "nokey", "0"},
      {"SPOP", "nokey", "-1"},
      {"SPOP", "nokey", "abc"},
      {"SPOP", "s", "-1"},
      {"SPOP", "s", "abc"},
      {"SPOP", "s", "1.5"},
      {"SPOP", "s", "99999999999999999999"},
      {"SPOP", "s", "0"},
      {"SPOP", "s", "1", "2"},
      {"SPOP"},
      {"SRANDMEMBER", "nokey"},
      {"SRANDMEMBER", "nokey", "3"},
      {"SRANDMEMBER", "nokey", "-3"},
      {"SRANDMEMBER", "nokey", "abc"},
      {"SRANDMEMBER", "s", "0"},
      {"SRANDMEMBER", "s", "abc"},
      {"SRANDMEMBER", "s", "-9223372036854775808"},
      {"SRANDMEMBER", "s", "-9223372036854775807x"},
      {"SRANDMEMBER", "s", "1", "2"},
      {"SRANDMEMBER"},
      {"SCARD", "s"},
  };
  for (const Argv& c : commands) EXPECT_SAME_REPLY(d, c);
  testing::Resp3Both(d);
  for (const Argv& c : commands) EXPECT_SAME_REPLY(d, c);
}

std::vector<std::string> Letters(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(std::string(1, 'a' + i));
  return out;
}

Argv Sadd(const std::string& key, const std::vector<std::string>& members) {
  Argv argv = {"SADD", key};
  argv.insert(argv.end(), members.begin(), members.end());
  return argv;
}

// The servers pop different members: each reply is checked for its size
// and membership, and the sizes left are compared.
TEST(SetCommandsTest, SpopTakesMembersOut) {
  Differential d;
  const std::vector<std::string> all = Letters(10);
  EXPECT_SAME_REPLY(d, Sadd("s", all));
  RawClient& t = d.trackdb();
  const Node one = ParseReply(t.Call({"SPOP", "s"}));
  ASSERT_EQ(one.type, '$');
  EXPECT_THAT(std::vector<std::string>{one.text}, IsSubsetOf(all));
  EXPECT_EQ(t.Call({"SISMEMBER", "s", one.text}), ":0\r\n");
  d.redis().Call({"SPOP", "s"});
  EXPECT_SAME_REPLY(d, {"SCARD", "s"});

  const std::string three = t.Call({"SPOP", "s", "3"});
  EXPECT_EQ(three.substr(0, 4), "*3\r\n");
  const std::vector<std::string> popped = Elements(three);
  EXPECT_EQ(std::set<std::string>(popped.begin(), popped.end()).size(), 3u);
  EXPECT_THAT(popped, IsSubsetOf(all));
  for (const std::string& m : popped) {
    EXPECT_EQ(t.Call({"SISMEMBER", "s", m}), ":0\r\n") << m;
  }
  d.redis().Call({"SPOP", "s", "3"});
  EXPECT_SAME_REPLY(d, {"SCARD", "s"});
  EXPECT_SAME_REPLY(d, {"SPOP", "s", "0"});

  // More than there are: every member left, and the key goes.
  const std::vector<std::string> left = Elements(t.Call({"SMEMBERS", "s"}));
  EXPECT_THAT(Elements(t.Call({"SPOP", "s", "100"})),
              UnorderedElementsAreArray(left));
  d.redis().Call({"SPOP", "s", "100"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "s"});
  EXPECT_SAME_REPLY(d, {"SPOP", "s"});
  EXPECT_SAME_REPLY(d, {"SADD", "s", "only"});
  EXPECT_SAME_REPLY(d, {"SPOP", "s"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "s"});
  EXPECT_SAME_REPLY(d, {"SADD", "s", "a", "b"});
  EXPECT_SAME_MEMBERS(d, {"SPOP", "s", "2"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "s"});
}

// Picks are random: over many tries every member comes up (a pick of
// the first or last member only would fail).
TEST(SetCommandsTest, SpopAndSrandmemberPickAtRandom) {
  Differential d;
  RawClient& t = d.trackdb();
  const std::vector<std::string> all = Letters(3);
  std::set<std::string> popped, popped_by_count;
  for (int i = 0; i < 60; ++i) {
    t.Call({"DEL", "s"});
    t.Call(Sadd("s", all));
    popped.insert(ParseReply(t.Call({"SPOP", "s"})).text);
    for (const std::string& m : Elements(t.Call({"SPOP", "s", "1"}))) {
      popped_by_count.insert(m);
    }
  }
  EXPECT_EQ(popped, std::set<std::string>(all.begin(), all.end()));
  EXPECT_EQ(popped_by_count, std::set<std::string>(all.begin(), all.end()));

  const std::vector<std::string> five = Letters(5);
  t.Call(Sadd("r", five));
  std::set<std::string> single, distinct, drawn;
  for (int i = 0; i < 100; ++i) {
    single.insert(ParseReply(t.Call({"SRANDMEMBER", "r"})).text);
    for (const std::string& m : Elements(t.Call({"SRANDMEMBER", "r", "2"}))) {
      distinct.insert(m);
    }
    for (const std::string& m : Elements(t.Call({"SRANDMEMBER", "r", "-2"}))) {
      drawn.insert(m);
    }
  }
  const std::set<std::string> want(five.begin(), five.end());
  EXPECT_EQ(single, want);
  EXPECT_EQ(distinct, want);
  EXPECT_EQ(drawn, want);
}

TEST(SetCommandsTest, SrandmemberCounts) {
  Differential d;
  const std::vector<std::string> all = Letters(5);
  EXPECT_SAME_REPLY(d, Sadd("s", all));
  RawClient& t = d.trackdb();
  const Node one = ParseReply(t.Call({"SRANDMEMBER", "s"}));
  ASSERT_EQ(one.type, '$');
  EXPECT_THAT(std::vector<std::string>{one.text}, IsSubsetOf(all));

  // A positive count: distinct members.
  for (const char* count : {"1", "3", "4"}) {
    const std::vector<std::string> got =
        Elements(t.Call({"SRANDMEMBER", "s", count}));
    EXPECT_EQ(got.size(), static_cast<size_t>(std::stoi(count)));
    EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), got.size());
    EXPECT_THAT(got, IsSubsetOf(all));
  }
  // At least the set's size: the whole set.
  EXPECT_SAME_MEMBERS(d, {"SRANDMEMBER", "s", "5"});
  EXPECT_SAME_MEMBERS(d, {"SRANDMEMBER", "s", "1000"});
  // A negative count: that many draws, repeats allowed.
  for (const char* count : {"-1", "-3", "-5", "-40"}) {
    const std::vector<std::string> got =
        Elements(t.Call({"SRANDMEMBER", "s", count}));
    EXPECT_EQ(got.size(), static_cast<size_t>(-std::stoi(count)));
    EXPECT_THAT(got, ::testing::Each(::testing::AnyOfArray(all)));
  }
  // Nothing taken.
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "s"});
  // A reply is built whole: past 10,000,000 draws trackdb refuses (Redis
  // would stream them), but not from a missing key, whose reply is empty.
  EXPECT_EQ(t.Call({"SRANDMEMBER", "s", "-10000001"}),
            "-ERR value is out of range\r\n");
  EXPECT_EQ(t.Call({"SRANDMEMBER", "s", "-9223372036854775807"}),
            "-ERR value is out of range\r\n");
  EXPECT_SAME_REPLY(d, {"SRANDMEMBER", "nokey", "-10000001"});
  testing::Resp3Both(d);
  EXPECT_EQ(t.Call({"SRANDMEMBER", "s", "2"}).substr(0, 4), "*2\r\n");
  EXPECT_EQ(t.Call({"SRANDMEMBER", "s", "-7"}).substr(0, 4), "*7\r\n");
  EXPECT_SAME_MEMBERS(d, {"SRANDMEMBER", "s", "9"});
  EXPECT_SAME_REPLY(d, {"SRANDMEMBER", "nokey"});
  EXPECT_SAME_REPLY(d, {"SRANDMEMBER", "nokey", "2"});
}

TEST(SetCommandsTest, Smove) {
  Differential d;
  const std::vector<Argv> commands = {
      {"SADD", "a", "x", "y"},
      {"SADD", "b", "z"},
      {"SMOVE", "a", "b", "x"},
      {"SMOVE", "a", "b", "x"},
      {"SMOVE", "a", "b", "nope"},
      {"SMOVE", "nokey", "b", "x"},
      {"SMOVE", "a", "a", "y"},
      {"SMOVE", "a", "a", "nope"},
      {"SMOVE", "nokey", "nokey", "x"},
      {"SCARD", "a"},
      {"SCARD", "b"},
      // The source's last member: the source goes, the destination is
      // created.
      {"SMOVE", "a", "c", "y"},
      {"EXISTS", "a"},
      {"SMISMEMBER", "c", "y", "x"},
      // Already in the destination: still 1, and only the source changes.
      {"SADD", "c", "z"},
      {"SMOVE", "c", "b", "z"},
      {"SCARD", "b"},
      {"SCARD", "c"},
      {"SMISMEMBER", "b", "x", "z", "y"},
      {"SMOVE", "b", "c", "a", "extra"},
      {"SMOVE", "b", "c"},
  };
  for (const Argv& c : commands) EXPECT_SAME_REPLY(d, c);
}

// Sets for the algebra: overlapping, binary, and two big enough for both
// of SDIFF's ways (merging a small set in, looking members up in a big
// one).
void AddAlgebraSets(Differential& d) {
  EXPECT_SAME_REPLY(d, {"SADD", "s1", "a", "b", "c", "d", kBinary});
  EXPECT_SAME_REPLY(d, {"SADD", "s2", "c", "d", "e", kBinary});
  EXPECT_SAME_REPLY(d, {"SADD", "s3", "d", "e", "f", "a", kBinary});
  Argv big = {"SADD", "big"};
  for (int i = 0; i < 200; ++i) big.push_back(absl::StrCat(i));
  EXPECT_SAME_REPLY(d, big);
  Argv small = {"SADD", "small", "x"};
  for (int i = 0; i < 10; ++i) small.push_back(absl::StrCat(i * 7));
  EXPECT_SAME_REPLY(d, small);
}

std::vector<Argv> AlgebraReads() {
  return {
      {"SINTER", "s1"},
      {"SINTER", "s1", "s2"},
      {"SINTER", "s1", "s2", "s3"},
      {"SINTER", "s3", "s2", "s1"},
      {"SINTER", "s1", "nokey"},
      {"SINTER", "nokey", "s1"},
      {"SINTER", "s1", "s1"},
      {"SINTER", "big", "small"},
      {"SINTER", "small", "big", "s1"},
      {"SUNION", "s1", "s2", "s3", "nokey"},
      {"SUNION", "nokey"},
      {"SUNION", "s1", "s1"},
      {"SUNION", "big", "small"},
      {"SDIFF", "s1", "s2"},
      {"SDIFF", "s1", "s2", "s3"},
      {"SDIFF", "s1", "nokey"},
      {"SDIFF", "nokey", "s1"},
      {"SDIFF", "s1", "s1"},
      {"SDIFF", "s2", "s1", "s1"},
      {"SDIFF", "big", "small"},
      {"SDIFF", "small", "big"},
      {"SDIFF", "small", "s1", "big"},
  };
}

TEST(SetCommandsTest, InterUnionDiff) {
  Differential d;
  AddAlgebraSets(d);
  for (const Argv& c : AlgebraReads()) EXPECT_SAME_MEMBERS(d, c);
  EXPECT_SAME_REPLY(d, {"SINTER"});
  EXPECT_SAME_REPLY(d, {"SUNION"});
  EXPECT_SAME_REPLY(d, {"SDIFF"});
  testing::Resp3Both(d);
  for (const Argv& c : AlgebraReads()) EXPECT_SAME_MEMBERS(d, c);
}

// Each STORE's count byte for byte, then what it stored.
TEST(SetCommandsTest, StoreIntoAnyDestination) {
  Differential d;
  AddAlgebraSets(d);
  const std::vector<Argv> stores = {
      {"SINTERSTORE", "d", "s1", "s2"},
      {"SUNIONSTORE", "d", "s1", "s2", "s3"},
      {"SDIFFSTORE", "d", "s1", "s2"},
      {"SDIFFSTORE", "d", "big", "small"},
      {"SINTERSTORE", "d", "big", "small"},
      {"SUNIONSTORE", "d", "d", "s1"},  // the destination is a source
      {"SDIFFSTORE", "s1", "s1", "s2"},
      {"SINTERSTORE", "s2", "s2", "s2"},
      {"SUNIONSTORE", "s3", "s3", "s2", "s3"},
  };
  for (const Argv& c : stores) {
    EXPECT_SAME_REPLY(d, c);
    EXPECT_SAME_MEMBERS(d, {"SMEMBERS", c[1]});
  }
  // An empty result removes the destination.
  EXPECT_SAME_REPLY(d, {"SINTERSTORE", "d", "s1", "nokey"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "d"});
  EXPECT_SAME_REPLY(d, {"SDIFFSTORE", "s1", "s1", "s1"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "s1"});
  EXPECT_SAME_REPLY(d, {"SUNIONSTORE", "d", "nokey"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "d"});
  // A string destination, overwritten or removed.
  EXPECT_SAME_REPLY(d, {"SET", "str", "v"});
  EXPECT_SAME_REPLY(d, {"SUNIONSTORE", "str", "s2", "s3"});
  EXPECT_SAME_REPLY(d, {"TYPE", "str"});
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "str"});
  EXPECT_SAME_REPLY(d, {"SET", "str", "v", "EX", "100"});
  EXPECT_SAME_REPLY(d, {"SINTERSTORE", "str", "s2", "nokey"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "str"});
  EXPECT_SAME_REPLY(d, {"SET", "str", "v", "EX", "100"});
  EXPECT_SAME_REPLY(d, {"SDIFFSTORE", "str", "s2"});
  EXPECT_SAME_REPLY(d, {"TTL", "str"});
  // A GEO key destination, overwritten or removed.
  EXPECT_SAME_REPLY(d, {"GEOADD", "geo", "13.361389", "38.115556", "p"});
  EXPECT_SAME_REPLY(d, {"SDIFFSTORE", "geo", "s3", "s2"});
  EXPECT_SAME_REPLY(d, {"TYPE", "geo"});
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "geo"});
  EXPECT_SAME_REPLY(d, {"DEL", "geo"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "geo", "13.361389", "38.115556", "p"});
  EXPECT_SAME_REPLY(d, {"SINTERSTORE", "geo", "nokey", "s3"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "geo"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "geo", "p"});
  EXPECT_SAME_REPLY(d, {"SINTERSTORE", "d"});
  testing::Resp3Both(d);
  EXPECT_SAME_REPLY(d, {"SUNIONSTORE", "d", "s2", "s3"});
}

// A STORE replaces a string destination in one batch: a reader never
// finds the key missing while a writer alternates SET and SUNIONSTORE.
TEST(SetCommandsTest, StoreReplacesAStringAtomically) {
  Differential d;
  RawClient writer(d.trackdb_server().port());
  RawClient reader(d.trackdb_server().port());
  ASSERT_EQ(writer.Call({"SADD", "src", "a", "b"}), ":2\r\n");
  ASSERT_EQ(writer.Call({"SET", "k", "v"}), "+OK\r\n");
  std::atomic<bool> done{false};
  std::thread writes([&] {
    for (int i = 0; i < 300; ++i) {
      EXPECT_EQ(writer.Call({"SUNIONSTORE", "k", "src"}), ":2\r\n");
      EXPECT_EQ(writer.Call({"SET", "k", "v"}), "+OK\r\n");
    }
    done = true;
  });
  int reads = 0;
  bool missing = false;
  while (!done && !missing) {
    missing = reader.Call({"SCARD", "k"}) == ":0\r\n";
    ++reads;
  }
  writes.join();
  EXPECT_FALSE(missing) << "missing at read " << reads;
}

TEST(SetCommandsTest, StoreDropsTheDestinationsExpiryAndSaddKeepsIt) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SADD", "t", "x"});
  EXPECT_SAME_REPLY(d, {"EXPIRE", "t", "1000"});
  EXPECT_SAME_REPLY(d, {"SADD", "t", "y"});
  EXPECT_SAME_REPLY(d, {"SREM", "t", "x"});
  EXPECT_SAME_REPLY(d, {"SPOP", "t", "0"});
  EXPECT_SAME_REPLY(d, {"TTL", "t"});
  EXPECT_SAME_REPLY(d, {"SADD", "u", "z"});
  EXPECT_SAME_REPLY(d, {"SMOVE", "u", "t", "z"});
  EXPECT_SAME_REPLY(d, {"TTL", "t"});
  EXPECT_SAME_REPLY(d, {"SUNIONSTORE", "t", "t"});
  EXPECT_SAME_REPLY(d, {"TTL", "t"});
  EXPECT_SAME_MEMBERS(d, {"SMEMBERS", "t"});
}

TEST(SetCommandsTest, Sintercard) {
  Differential d;
  AddAlgebraSets(d);
  EXPECT_SAME_REPLY(d, {"SET", "str", "v"});
  const std::vector<Argv> commands = {
      {"SINTERCARD", "1", "s1"},
      {"SINTERCARD", "2", "s1", "s2"},
      {"SINTERCARD", "3", "s1", "s2", "s3"},
      {"SINTERCARD", "2", "big", "small"},
      {"SINTERCARD", "2", "big", "small", "LIMIT", "3"},
      {"SINTERCARD", "2", "big", "small", "limit", "0"},
      {"SINTERCARD", "2", "big", "small", "LIMIT", "1000"},
      {"SINTERCARD", "2", "s1", "s2", "LIMIT", "1", "LIMIT", "2"},
      {"SINTERCARD", "2", "nokey", "s1"},
      {"SINTERCARD", "1", "nokey", "LIMIT", "5"},
      {"SINTERCARD", "0", "s1"},
      {"SINTERCARD", "-1", "s1"},
      {"SINTERCARD", "abc", "s1"},
      {"SINTERCARD", "9223372036854775808", "s1"},
      {"SINTERCARD", "3", "s1", "s2"},
      {"SINTERCARD", "9223372036854775807", "s1"},
      {"SINTERCARD", "2", "s1", "s2", "LIMIT"},
      {"SINTERCARD", "2", "s1", "s2", "LIMIT", "-1"},
      {"SINTERCARD", "2", "s1", "s2", "LIMIT", "abc"},
      {"SINTERCARD", "2", "s1", "s2", "FOO", "1"},
      {"SINTERCARD", "1", "s1", "s2"},
      {"SINTERCARD", "1", "nokey", "LIMIT", "-1"},
      {"SINTERCARD", "0", "nokey", "LIMIT", "-1"},
      {"SINTERCARD", "2", "s1", "str"},
      {"SINTERCARD", "2", "str", "nokey"},
      {"SINTERCARD", "1"},
  };
  for (const Argv& c : commands) EXPECT_SAME_REPLY(d, c);
  testing::Resp3Both(d);
  for (const Argv& c : commands) EXPECT_SAME_REPLY(d, c);
}

// A set of up to 512 integers is an intset in Redis 7.0, which SSCAN
// replies whole with cursor 0; any other set is paged by COUNT, on both.
TEST(SetCommandsTest, SscanSmallSets) {
  Differential d;
  Argv ints = {"SADD", "n"};
  for (int i = 0; i < 120; ++i) ints.push_back(absl::StrCat(i * 3));
  EXPECT_SAME_REPLY(d, ints);
  EXPECT_SAME_REPLY(d, {"SET", "str", "v"});
  const std::vector<Argv> scans = {
      {"SSCAN", "n", "0"},
      {"SSCAN", "n", "0", "COUNT", "2"},
      {"SSCAN", "n", "0", "MATCH", "1*"},
      {"SSCAN", "n", "0", "match", "*0", "count", "5", "MATCH", "2?"},
      {"SSCAN", "n", "0", "MATCH", "nothing"},
      {"SSCAN", "n", "17"},
      {"SSCAN", "n", "18446744073709551615"},
      {"SSCAN", "n", "-1"},
      {"SSCAN", "n", "+0"},
      {"SSCAN", "nokey", "0"},
  };
  const std::vector<Argv> errors = {
      {"SSCAN", "n", "abc"},
      {"SSCAN", "n", "18446744073709551616"},
      {"SSCAN", "n", " 1"},
      {"SSCAN", "nokey", "abc"},
      {"SSCAN", "nokey", "0", "COUNT", "abc"},  // a missing key: no options
      {"SSCAN", "n", "0", "COUNT", "abc"},
      {"SSCAN", "n", "0", "COUNT", "0"},
      {"SSCAN", "n", "0", "COUNT", "-1"},
      {"SSCAN", "n", "0", "COUNT"},
      {"SSCAN", "n", "0", "MATCH"},
      {"SSCAN", "n", "0", "TYPE", "string"},
      {"SSCAN", "n", "0", "NOVALUES"},
      {"SSCAN", "str", "0"},
      {"SSCAN", "n"},
  };
  for (const Argv& c : scans) EXPECT_SAME_MEMBERS(d, c);
  for (const Argv& c : errors) EXPECT_SAME_REPLY(d, c);
  testing::Resp3Both(d);
  for (const Argv& c : scans) EXPECT_SAME_MEMBERS(d, c);
  for (const Argv& c : errors) EXPECT_SAME_REPLY(d, c);
  // 512 integers are replied whole; a 513th, or a word, makes a set that
  // is paged.
  Argv ints512 = {"SADD", "i512"};
  for (int i = 0; i < 512; ++i) ints512.push_back(absl::StrCat(i - 100));
  Argv ints513 = ints512;
  ints513[1] = "i513";
  ints513.push_back("100000");
  EXPECT_SAME_REPLY(d, ints512);
  EXPECT_SAME_REPLY(d, ints513);
  EXPECT_SAME_REPLY(d, Sadd("w", Letters(12)));
  EXPECT_SAME_MEMBERS(d, {"SSCAN", "i512", "0", "COUNT", "1"});
  for (const char* key : {"i513", "w"}) {
    for (RawClient* c : {&d.redis(), &d.trackdb()}) {
      const Node page = ParseReply(c->Call({"SSCAN", key, "0", "COUNT", "1"}));
      ASSERT_EQ(page.children.size(), 2u);
      EXPECT_NE(page.children[0].text, "0") << key;
    }
  }
}

struct ScanResult {
  std::vector<std::string> members;  // in the order replied
  int pages = 0;
};

// A whole SSCAN from `cursor` until the server replies cursor 0.
ScanResult FullScan(RawClient& c, const std::string& key, Argv options,
                    std::string cursor = "0", size_t max_page = SIZE_MAX) {
  ScanResult out;
  do {
    Argv argv = {"SSCAN", key, cursor};
    argv.insert(argv.end(), options.begin(), options.end());
    const Node page = ParseReply(c.Call(argv));
    EXPECT_EQ(page.children.size(), 2u);
    if (page.children.size() != 2) break;
    cursor = page.children[0].text;
    const std::vector<std::string> got = Elements(page.children[1]);
    EXPECT_LE(got.size(), max_page);
    out.members.insert(out.members.end(), got.begin(), got.end());
    ++out.pages;
  } while (cursor != "0" && out.pages < 10000);
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(SetCommandsTest, SscanPagesABigSet) {
  Differential d;
  std::vector<std::string> all, ones;
  for (int i = 0; i < 300; ++i) {
    all.push_back(absl::StrFormat("m%03d", i));
    if (i >= 100 && i < 200) ones.push_back(all.back());
  }
  EXPECT_SAME_REPLY(d, Sadd("big", all));
  EXPECT_SAME_REPLY(d, Sadd("big2", all));
  // Every member once, COUNT members a page.
  const ScanResult t = FullScan(d.trackdb(), "big", {"COUNT", "7"}, "0", 7);
  EXPECT_EQ(t.members, Sorted(all));
  EXPECT_EQ(t.pages, 300 / 7 + 1);
  const ScanResult r = FullScan(d.redis(), "big", {"COUNT", "7"});
  EXPECT_EQ(Sorted(r.members), Sorted(all));
  EXPECT_EQ(
      FullScan(d.trackdb(), "big", {"MATCH", "m1*", "COUNT", "20"}).members,
      ones);
  EXPECT_EQ(FullScan(d.trackdb(), "big", {}, "0", 10).pages, 30);

  // A cursor resumes only the key it was given for; another key's, or an
  // unknown one, starts at the first member.
  const Node first =
      ParseReply(d.trackdb().Call({"SSCAN", "big", "0", "COUNT", "50"}));
  const std::string cursor = first.children[0].text;
  ASSERT_NE(cursor, "0");
  EXPECT_EQ(Elements(first.children[1]),
            std::vector<std::string>(all.begin(), all.begin() + 50));
  EXPECT_EQ(FullScan(d.trackdb(), "big", {"COUNT", "50"}, cursor).members,
            std::vector<std::string>(all.begin() + 50, all.end()));
  EXPECT_EQ(FullScan(d.trackdb(), "big2", {"COUNT", "1000"}, cursor).members,
            all);
  EXPECT_EQ(
      FullScan(d.trackdb(), "big", {"COUNT", "1000"}, "987654321").members,
      all);
  // Members added during a scan: those there all along come once.
  const Node part =
      ParseReply(d.trackdb().Call({"SSCAN", "big", "0", "COUNT", "100"}));
  d.trackdb().Call({"SADD", "big", "a-new", "z-new"});
  std::vector<std::string> seen = Elements(part.children[1]);
  const ScanResult rest =
      FullScan(d.trackdb(), "big", {"COUNT", "100"}, part.children[0].text);
  seen.insert(seen.end(), rest.members.begin(), rest.members.end());
  std::vector<std::string> want = all;
  want.push_back("z-new");
  EXPECT_EQ(seen, want);
}

TEST(SetCommandsTest, Resp3SetReplies) {
  Differential d;
  testing::Resp3Both(d);
  EXPECT_SAME_REPLY(d, {"SADD", "s", "a", "b", "c"});
  EXPECT_SAME_REPLY(d, {"SADD", "t", "b", "c", "d"});
  const std::vector<Argv> commands = {
      {"SMEMBERS", "s"},
      {"SMEMBERS", "nokey"},
      {"SINTER", "s", "t"},
      {"SINTER", "nokey", "s"},
      {"SUNION", "s", "t"},
      {"SUNION", "nokey"},
      {"SDIFF", "s", "t"},
      {"SDIFF", "s", "s"},
      {"SPOP", "nokey"},
      {"SPOP", "nokey", "2"},
      {"SPOP", "s", "0"},
      {"SRANDMEMBER", "nokey"},
      {"SRANDMEMBER", "nokey", "2"},
      {"SRANDMEMBER", "s", "0"},
      {"SRANDMEMBER", "s", "3"},
      {"SSCAN", "s", "0"},
      {"SMISMEMBER", "s", "a", "z"},
  };
  for (const Argv& c : commands) EXPECT_SAME_MEMBERS(d, c);
  EXPECT_EQ(d.trackdb().Call({"SPOP", "t", "2"}).substr(0, 4), "~2\r\n");
  EXPECT_SAME_MEMBERS(d, {"SPOP", "s", "10"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "s"});
}

}  // namespace
}  // namespace trackdb::resp
