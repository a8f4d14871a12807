#include "storage/stats/info_section.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(InfoSectionTest, StoreStatsAsRedisInfoLines) {
  storage::StoreStats s;
  s.bulk_load = true;
  s.memory_budget_bytes = 256 << 20;
  s.block_cache_hits = 3;
  s.block_cache_misses = 1;
  s.wal_writes = {10, 4000};
  s.sst_writes = {2, 2000};
  storage::CfStats points;
  points.name = "points";
  points.l0_files = 3;
  points.flushes = 2;
  points.flush_bytes = 3000;
  storage::CfStats latest;
  latest.name = "latest";
  latest.l0_files = 4;
  latest.stop_seconds = 1.5;
  s.column_families = {points, latest};

  const std::string text = FormatInfoSection(s);
  EXPECT_THAT(text, StartsWith("# rocksdb\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\nbulk_load:1\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\nmemory_budget_bytes:268435456\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\nblock_cache_hit_rate:0.7500\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\ndisk_writes:12\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\ndisk_avg_write_bytes:500\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\nl0_files:7\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\nstop_seconds:1.500\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\ncf_points:l0_files=3,"));
  EXPECT_THAT(text, HasSubstr(",avg_flush_bytes=1500,"));
  EXPECT_THAT(text, HasSubstr("\r\ncf_latest:l0_files=4,"));
  EXPECT_THAT(text, HasSubstr("\r\ndisk_status:ok\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\ndisk_writes_refused:0\r\n"));
  // Every line after the header is key:value, the key free of spaces.
  std::vector<std::string> lines = absl::StrSplit(text, "\r\n");
  ASSERT_EQ(lines.back(), "");
  lines.pop_back();
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t colon = lines[i].find(':');
    ASSERT_NE(colon, std::string::npos) << lines[i];
    EXPECT_EQ(lines[i].substr(0, colon).find(' '), std::string::npos);
    EXPECT_EQ(lines[i].find('\n'), std::string::npos);
  }
}

TEST(InfoSectionTest, DiskErrorSaysWhyWritesAreRefused) {
  storage::StoreStats s;
  s.disk_failing = true;
  s.disk_no_space = true;
  s.disk_writes_stopped = true;
  s.disk_error = "IO error: No space left on device: append";
  s.background_errors = 2;
  s.error_recoveries = 1;
  const std::string text = FormatInfoSection(s);
  EXPECT_THAT(text, HasSubstr("\r\ndisk_status:no_space\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\ndisk_writes_refused:1\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\ndisk_error:IO error: No space left on "
                              "device: append\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\nbackground_errors:2\r\n"));
  EXPECT_THAT(text, HasSubstr("\r\nerror_recoveries:1\r\n"));
  s.disk_no_space = false;
  EXPECT_THAT(FormatInfoSection(s), HasSubstr("\r\ndisk_status:io_error\r\n"));
}

}  // namespace
}  // namespace trackdb::storage
