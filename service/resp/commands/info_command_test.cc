// INFO beside a real redis-server 7.0: which sections each form of the
// command answers (trackdb's own rocksdb, webhooks and retention aside),
// and errorstats and commandstats counting the same calls alike.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using ::testing::HasSubstr;

// The "# Name" headers of an INFO reply, trackdb's own sections left out.
std::vector<std::string> Headers(const std::string& reply) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(reply, "\r\n")) {
    if (!absl::StartsWith(line, "# ")) continue;
    if (line == "# rocksdb" || line == "# Webhooks" || line == "# Retention") {
      continue;
    }
    out.emplace_back(line);
  }
  return out;
}

// The lines of `section` ("# Errorstats") up to the next blank line.
std::string Section(const std::string& reply, const std::string& section) {
  const size_t at = reply.find(section + "\r\n");
  if (at == std::string::npos) return "";
  const size_t end = reply.find("\r\n\r\n", at);
  return reply.substr(at,
                      end == std::string::npos ? std::string::npos : end - at);
}

TEST(InfoCommandTest, SectionsAsRedisNamesThem) {
  Differential d;
  for (const std::vector<std::string>& argv :
       std::vector<std::vector<std::string>>{
           {"INFO"},
           {"INFO", "default"},
           {"INFO", "all"},
           {"INFO", "EVERYTHING"},
           {"INFO", "server", "Clients"},
           {"INFO", "keyspace", "server"},
           {"INFO", "cpu"},
           {"INFO", "modules"},
           {"INFO", "commandstats", "latencystats"},
           {"INFO", "errorstats"},
           {"INFO", "nosuch"},
           {"INFO", "default", "commandstats"},
           {"INFO", "server", "all"}}) {
    const auto r = d.Call(argv);
    EXPECT_EQ(Headers(r.trackdb), Headers(r.redis))
        << ::testing::PrintToString(argv);
  }
  const auto cpu = d.Call({"INFO", "cpu"});
  EXPECT_THAT(cpu.trackdb, HasSubstr("used_cpu_user:"));
  EXPECT_THAT(cpu.trackdb, HasSubstr("used_cpu_sys_children:"));
}

TEST(InfoCommandTest, ErrorAndCommandStatsCountAlike) {
  Differential d;
  d.Call({"CONFIG", "RESETSTAT"});
  d.Call({"SET", "s", "v"});
  d.Call({"GET", "s"});
  d.Call({"GET", "s"});
  d.Call({"LPUSH", "s", "x"});  // WRONGTYPE
  d.Call({"INCR", "s"});        // ERR
  d.Call({"NOSUCHCOMMAND"});    // ERR, rejected
  d.Call({"GET"});              // ERR, wrong arity
  const auto errors = d.Call({"INFO", "errorstats"});
  EXPECT_EQ(Section(errors.trackdb, "# Errorstats"),
            Section(errors.redis, "# Errorstats"));
  EXPECT_THAT(errors.trackdb, HasSubstr("errorstat_WRONGTYPE:count=1"));
  const auto commands = d.Call({"INFO", "commandstats"});
  // GET ran twice and was refused once (its arity); INCR failed.
  for (const char* calls :
       {"cmdstat_get:calls=2,", "rejected_calls=1,failed_calls=0",
        "cmdstat_set:calls=1,", "cmdstat_incr:calls=1,"}) {
    EXPECT_THAT(commands.redis, HasSubstr(calls));
    EXPECT_THAT(commands.trackdb, HasSubstr(calls));
  }
  // Counted from CONFIG RESETSTAT, itself included, as Redis counts.
  EXPECT_THAT(commands.redis, HasSubstr("cmdstat_config|resetstat:calls=1,"));
  EXPECT_THAT(commands.trackdb, HasSubstr("cmdstat_config|resetstat:calls=1,"));
  EXPECT_THAT(d.Call({"INFO", "latencystats"}).trackdb,
              HasSubstr("latency_percentiles_usec_get:p50="));
  // Refused calls take no time and count in no percentile: a command only
  // ever refused has no line, as in Redis.
  d.Call({"SET"});
  d.Call({"SET", "x"});
  d.Call({"CONFIG", "RESETSTAT"});
  d.Call({"LPOP"});
  const auto latency = d.Call({"INFO", "latencystats"});
  EXPECT_THAT(latency.redis,
              ::testing::Not(HasSubstr("latency_percentiles_usec_lpop:")));
  EXPECT_THAT(latency.trackdb,
              ::testing::Not(HasSubstr("latency_percentiles_usec_lpop:")));
  d.Call({"CONFIG", "RESETSTAT"});
  const auto reset = d.Call({"INFO", "errorstats"});
  EXPECT_EQ(Section(reset.trackdb, "# Errorstats"),
            Section(reset.redis, "# Errorstats"));
}

// Pipelined runs are served as groups (one transaction): their errors
// count once each, as Redis counts them.
TEST(InfoCommandTest, ErrorsOfPipelinedRunsCountOnce) {
  Differential d;
  d.Call({"SET", "s", "v"});
  d.Call({"CONFIG", "RESETSTAT"});
  std::vector<std::vector<std::string>> calls;
  for (int i = 0; i < 6; ++i) {
    calls.push_back({"HSET", i % 2 ? "h" : "s", "f", "v"});  // 3 WRONGTYPE
  }
  for (int i = 0; i < 6; ++i) calls.push_back({"SADD", "s", "m"});  // 6 more
  d.Pipeline(calls);
  const auto errors = d.Call({"INFO", "errorstats"});
  EXPECT_THAT(errors.redis, HasSubstr("errorstat_WRONGTYPE:count=9"));
  EXPECT_EQ(Section(errors.trackdb, "# Errorstats"),
            Section(errors.redis, "# Errorstats"));
}

}  // namespace
}  // namespace trackdb::resp
