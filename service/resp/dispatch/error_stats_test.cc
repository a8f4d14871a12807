#include "service/resp/dispatch/error_stats.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::resp {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(ErrorStatsTest, CountsEachKindUpToTheLimit) {
  ErrorStats stats;
  stats.Note(std::vector<std::string>{"ERR", "WRONGTYPE", "ERR"});
  stats.Note("NOAUTH");
  EXPECT_THAT(stats.Counts(), ElementsAre(Pair("ERR", 2), Pair("NOAUTH", 1),
                                          Pair("WRONGTYPE", 1)));
  for (size_t i = 0; i < ErrorStats::kMaxKinds; ++i) {
    stats.Note("K" + std::to_string(i));
  }
  EXPECT_EQ(stats.Counts().size(), ErrorStats::kMaxKinds);
  stats.Note("ERR");  // a known kind still counts
  EXPECT_THAT(stats.Counts().front(), Pair("ERR", 3));
  stats.Reset();
  EXPECT_TRUE(stats.Counts().empty());
}

}  // namespace
}  // namespace trackdb::resp
