#include "service/metrics/call_metrics.h"

#include <memory>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::metrics {
namespace {

using ::testing::HasSubstr;

TEST(CallMetricsTest, RejectedCallsAreErrorsCountedApart) {
  CallMetrics m;
  m.Record("get", 1000, false);
  m.Record("get", 0, true, /*rejected=*/true);
  m.Record("get", 2000, true);
  const std::vector<CallSnapshot> s = m.Snapshot();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].calls, 3u);
  EXPECT_EQ(s[0].errors, 2u);
  EXPECT_EQ(s[0].rejected, 1u);
}

TEST(CallMetricsTest, CountsErrorsAndBuckets) {
  CallMetrics m;
  m.Record("get", 30'000, false);             // 30 µs: the first bucket
  m.Record("get", 2'000'000, true);           // 2 ms: le 0.0025
  m.Record("geoadd", 20'000'000'000, false);  // 20 s: past the last bound
  const std::vector<CallSnapshot> s = m.Snapshot();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "geoadd");
  EXPECT_EQ(s[0].calls, 1u);
  EXPECT_EQ(s[0].buckets.back(), 1u);
  EXPECT_EQ(s[1].name, "get");
  EXPECT_EQ(s[1].calls, 2u);
  EXPECT_EQ(s[1].errors, 1u);
  EXPECT_EQ(s[1].buckets[0], 1u);
  EXPECT_EQ(s[1].buckets[5], 1u);  // 0.0025
  EXPECT_DOUBLE_EQ(s[1].seconds, 0.00203);
}

TEST(CallMetricsTest, ABoundIsInItsOwnBucket) {
  CallMetrics m;
  m.Record("ping", 1'000'000, false);  // exactly 1 ms: le="0.001"
  EXPECT_EQ(m.Snapshot()[0].buckets[4], 1u);
}

TEST(CallMetricsTest, WritesThreeFamilies) {
  CallMetrics m;
  m.Record("set", 100'000, false);
  PrometheusText out;
  m.Write("trackdb_resp_command", "command", "RESP command", out);
  EXPECT_THAT(out.text(),
              HasSubstr("# TYPE trackdb_resp_commands_total counter\n"
                        "trackdb_resp_commands_total{command=\"set\"} 1\n"));
  EXPECT_THAT(
      out.text(),
      HasSubstr("trackdb_resp_command_errors_total{command=\"set\"} 0\n"));
  EXPECT_THAT(
      out.text(),
      HasSubstr("# TYPE trackdb_resp_command_duration_seconds histogram\n"));
  EXPECT_THAT(out.text(),
              HasSubstr("trackdb_resp_command_duration_seconds_bucket{"
                        "command=\"set\",le=\"0.0001\"} 1\n"));
  EXPECT_THAT(out.text(),
              HasSubstr("trackdb_resp_command_duration_seconds_count{"
                        "command=\"set\"} 1\n"));
}

// A thread's cache of names belongs to one CallMetrics: another made where
// the last one was (the same address, perhaps) starts from nothing.
TEST(CallMetricsTest, AThreadsCacheDoesNotOutliveItsMetrics) {
  for (int round = 0; round < 3; ++round) {
    auto m = std::make_unique<CallMetrics>();
    m->Record("get", 1000, false);
    m->Record("get", 1000, false);
    const std::vector<CallSnapshot> s = m->Snapshot();
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].calls, 2u) << "round " << round;
  }
}

TEST(CallMetricsTest, ConcurrentRecordsAreAllCounted) {
  CallMetrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < 10000; ++i) {
        m.Record(t % 2 ? "get" : "set", 1000, i % 10 == 0);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(m.Snapshot().size(), 2u);
  for (const CallSnapshot& s : m.Snapshot()) {
    EXPECT_EQ(s.calls, 20000u) << s.name;
    EXPECT_EQ(s.errors, 2000u) << s.name;
  }
}

}  // namespace
}  // namespace trackdb::metrics
