#include "service/resp/dispatch/slow_log.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::resp {
namespace {

using ::testing::ElementsAre;

TEST(SlowLogTest, ThresholdDecidesWhatIsSlow) {
  SlowLog log;
  EXPECT_FALSE(log.Slow(9999));  // Redis's default: 10 ms
  EXPECT_TRUE(log.Slow(10000));
  log.set_slower_than_us(0);
  EXPECT_TRUE(log.Slow(0));
  log.set_slower_than_us(-1);
  EXPECT_FALSE(log.Slow(1000000000));
}

// Newest first, ids counting on across a reset; the oldest go past
// max_len, at once when it shrinks.
TEST(SlowLogTest, KeepsTheNewestEntries) {
  SlowLog log;
  log.set_max_len(3);
  for (int i = 0; i < 5; ++i) {
    log.Add(100 + i, 10 * i, {"GET", std::to_string(i)}, "1.2.3.4:5", "n");
  }
  EXPECT_EQ(log.size(), 3u);
  std::vector<SlowLog::Entry> all = log.Newest(-1);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].id, 4);
  EXPECT_EQ(all[0].unix_s, 104);
  EXPECT_EQ(all[0].duration_us, 40);
  EXPECT_THAT(all[0].argv, ElementsAre("GET", "4"));
  EXPECT_EQ(all[0].addr, "1.2.3.4:5");
  EXPECT_EQ(all[0].name, "n");
  EXPECT_EQ(all[2].id, 2);
  EXPECT_EQ(log.Newest(1).size(), 1u);
  EXPECT_EQ(log.Newest(0).size(), 0u);
  log.set_max_len(1);
  EXPECT_EQ(log.Newest(10).at(0).id, 4);
  log.Reset();
  EXPECT_EQ(log.size(), 0u);
  log.Add(1, 1, {"PING"}, "", "");
  EXPECT_EQ(log.Newest(1).at(0).id, 5);
}

// As Redis's slowlogCreateEntry: 32 arguments at most, the last saying
// how many more; an argument over 128 bytes cut, saying how many more.
TEST(SlowLogTest, CutsLongCallsAsRedis) {
  SlowLog log;
  std::vector<std::string> argv = {"MSET"};
  for (int i = 0; i < 40; ++i) argv.push_back("k");
  argv[1] = std::string(130, 'x');
  log.Add(1, 1, argv, "", "");
  const std::vector<std::string> logged = log.Newest(1).at(0).argv;
  ASSERT_EQ(logged.size(), 32u);
  EXPECT_EQ(logged[1], std::string(128, 'x') + "... (2 more bytes)");
  EXPECT_EQ(logged[30], "k");
  EXPECT_EQ(logged[31], "... (10 more arguments)");
}

}  // namespace
}  // namespace trackdb::resp
