// COMMAND LIST and COMMAND COUNT beside a real redis-server 7.0: the list
// names subcommands as "command|subcommand" after their command, as
// Redis's does, and COUNT counts commands only.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using ::testing::Contains;
using testing::Differential;
using ::testing::IsSupersetOf;
using ::testing::UnorderedElementsAreArray;

// The elements of a RESP2 array of bulk strings; empty (and a failure) for
// anything else.
std::vector<std::string> BulkArray(const std::string& reply) {
  std::vector<std::string> out;
  size_t at = reply.find("\r\n");
  int64_t n = 0;
  if (reply.empty() || reply[0] != '*' || at == std::string::npos ||
      !absl::SimpleAtoi(reply.substr(1, at - 1), &n)) {
    ADD_FAILURE() << "not an array: " << reply.substr(0, 80);
    return out;
  }
  at += 2;
  for (int64_t i = 0; i < n; ++i) {
    const size_t eol = reply.find("\r\n", at);
    int64_t len = 0;
    if (eol == std::string::npos || reply[at] != '$' ||
        !absl::SimpleAtoi(reply.substr(at + 1, eol - at - 1), &len)) {
      ADD_FAILURE() << "not a bulk string at " << at;
      return out;
    }
    out.push_back(reply.substr(eol + 2, len));
    at = eol + 2 + len + 2;
  }
  return out;
}

// trackdb's own commands, which Redis lacks: module-style names (FENCE.SET,
// REPL.PULL, TRACK.POSAT) and CLUSTERX.
bool IsOwn(const std::string& name) {
  const std::string command = name.substr(0, name.find('|'));
  return absl::StrContains(command, '.') || command == "clusterx";
}

TEST(CommandListTest, SubcommandsAreListedAsRedisListsThem) {
  Differential d;
  const std::vector<std::string> redis =
      BulkArray(d.redis().Call({"COMMAND", "LIST"}));
  const std::vector<std::string> trackdb =
      BulkArray(d.trackdb().Call({"COMMAND", "LIST"}));
  std::vector<std::string> shared;
  for (const std::string& name : trackdb) {
    if (!IsOwn(name)) shared.push_back(name);
  }
  EXPECT_THAT(redis, IsSupersetOf(shared));
  EXPECT_THAT(trackdb, Contains("object|encoding"));
  EXPECT_THAT(trackdb, Contains("config|get"));
  // Each subcommand follows its command.
  for (size_t i = 0; i < trackdb.size(); ++i) {
    const size_t bar = trackdb[i].find('|');
    if (bar == std::string::npos) continue;
    const std::string command = trackdb[i].substr(0, bar);
    const auto it = std::find(trackdb.begin(), trackdb.end(), command);
    ASSERT_NE(it, trackdb.end()) << trackdb[i];
    EXPECT_LT(it - trackdb.begin(), static_cast<std::ptrdiff_t>(i));
  }
  // COUNT counts the commands, not their subcommands.
  const int64_t commands = std::count_if(
      trackdb.begin(), trackdb.end(),
      [](const std::string& n) { return n.find('|') == std::string::npos; });
  EXPECT_EQ(d.trackdb().Call({"COMMAND", "COUNT"}),
            absl::StrCat(":", commands, "\r\n"));
}

TEST(CommandListTest, PatternsMatchFullNames) {
  Differential d;
  for (const char* pattern : {"object*", "*encoding", "OBJECT|HELP", "hs*"}) {
    const std::vector<std::string> redis = BulkArray(
        d.redis().Call({"COMMAND", "LIST", "FILTERBY", "PATTERN", pattern}));
    EXPECT_THAT(BulkArray(d.trackdb().Call(
                    {"COMMAND", "LIST", "FILTERBY", "PATTERN", pattern})),
                UnorderedElementsAreArray(redis))
        << pattern;
  }
}

}  // namespace
}  // namespace trackdb::resp
