#include "tools/import/timestamp.h"

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::import {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kTDriveFirst = 1201966568000;  // 2008-02-02T15:36:08Z

int64_t Ms(absl::string_view text, TimeOptions options = {}) {
  auto t = ParseTimestampMs(text, options);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status();
  return t.ok() ? *t : -1;
}

std::string Error(absl::string_view text, TimeOptions options = {}) {
  auto t = ParseTimestampMs(text, options);
  EXPECT_FALSE(t.ok()) << text;
  return std::string(t.status().message());
}

TEST(TimestampTest, DaysFromCivil) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(2008, 2, 29), 13938);
  EXPECT_EQ(DaysFromCivil(1899, 12, 30), -25569);  // GeoLife's day zero
}

TEST(TimestampTest, IsoForms) {
  EXPECT_EQ(Ms("2008-02-02 15:36:08"), kTDriveFirst);
  EXPECT_EQ(Ms("2008-02-02T15:36:08"), kTDriveFirst);
  EXPECT_EQ(Ms("2008-02-02T15:36:08Z"), kTDriveFirst);
  EXPECT_EQ(Ms("2008-02-02t15:36:08z"), kTDriveFirst);
  EXPECT_EQ(Ms("2008-02-02T15:36:08.250Z"), kTDriveFirst + 250);
  EXPECT_EQ(Ms("2008-02-02T15:36:08.2Z"), kTDriveFirst + 200);
  EXPECT_EQ(Ms("2008-02-02T15:36:08.123456789Z"), kTDriveFirst + 123);
  EXPECT_EQ(Ms("2008-02-02T15:36Z"), kTDriveFirst - 8000);
  EXPECT_EQ(Ms("2008-02-02"), kTDriveFirst - (15 * 3600 + 36 * 60 + 8) * 1000);
  EXPECT_EQ(Ms("  2008-02-02 15:36:08 "), kTDriveFirst);
}

TEST(TimestampTest, ZonesAndDefaultOffset) {
  const int64_t hour = 3600 * 1000;
  EXPECT_EQ(Ms("2008-02-02T23:36:08+08:00"), kTDriveFirst);
  EXPECT_EQ(Ms("2008-02-02T23:36:08+0800"), kTDriveFirst);
  EXPECT_EQ(Ms("2008-02-02T23:36:08+08"), kTDriveFirst);
  EXPECT_EQ(Ms("2008-02-02T10:36:08-05:00"), kTDriveFirst);
  EXPECT_EQ(Ms("2008-02-02T21:06:08+05:30"), kTDriveFirst);
  TimeOptions beijing;
  beijing.utc_offset_minutes = 8 * 60;
  // T-Drive's local times: 8 hours ahead of UTC.
  EXPECT_EQ(Ms("2008-02-02 15:36:08", beijing), kTDriveFirst - 8 * hour);
  // An explicit zone wins over the default offset.
  EXPECT_EQ(Ms("2008-02-02T15:36:08Z", beijing), kTDriveFirst);
}

TEST(TimestampTest, UnixSecondsAndMilliseconds) {
  EXPECT_EQ(Ms("1201966568"), kTDriveFirst);
  EXPECT_EQ(Ms("1201966568000"), kTDriveFirst);
  EXPECT_EQ(Ms("1201966568.25"), kTDriveFirst + 250);
  EXPECT_EQ(Ms("-1.5"), -1500);
  TimeOptions ms;
  ms.unit = TimeUnit::kMilliseconds;
  EXPECT_EQ(Ms("1201966568", ms), 1201966568);
  TimeOptions s;
  s.unit = TimeUnit::kSeconds;
  EXPECT_EQ(Ms("1201966568000", s), kTDriveFirst * 1000);
  // The auto threshold: 1e11 and above are milliseconds.
  EXPECT_EQ(Ms("99999999999"), int64_t{99999999999} * 1000);
  EXPECT_EQ(Ms("100000000000"), 100000000000);
}

TEST(TimestampTest, BadTimesSayWhy) {
  EXPECT_THAT(Error("2008-13-02 00:00:00"), HasSubstr("month out of range"));
  EXPECT_THAT(Error("2007-02-29"), HasSubstr("day out of range"));
  EXPECT_EQ(Ms("2008-02-29"), 1204243200000);  // a leap year
  EXPECT_THAT(Error("2008-02-02 25:00:00"), HasSubstr("time of day"));
  EXPECT_THAT(Error("2008-02-02 15:36:08 PST"), HasSubstr("bad zone"));
  EXPECT_THAT(Error("2008-02-02X15:36"), HasSubstr("'T' or ' '"));
  EXPECT_THAT(Error("2008/02/02"), HasSubstr("expected a number"));
  EXPECT_THAT(Error("yesterday"), HasSubstr("'yesterday'"));
  EXPECT_THAT(Error(""), HasSubstr("empty"));
  EXPECT_THAT(Error("12345678901234567890"), HasSubstr("too large"));
}

TEST(TimestampTest, OffsetsAndUnits) {
  EXPECT_EQ(*ParseUtcOffset("Z"), 0);
  EXPECT_EQ(*ParseUtcOffset("UTC"), 0);
  EXPECT_EQ(*ParseUtcOffset("+08:00"), 480);
  EXPECT_EQ(*ParseUtcOffset("-0530"), -330);
  EXPECT_FALSE(ParseUtcOffset("+8").ok());
  EXPECT_FALSE(ParseUtcOffset("Asia/Shanghai").ok());
  EXPECT_EQ(*ParseTimeUnit("ms"), TimeUnit::kMilliseconds);
  EXPECT_FALSE(ParseTimeUnit("us").ok());
}

// The common forms are read without absl::ParseTime, for speed; they must
// agree with it, across centuries, leap days and times before 1970.
TEST(TimestampTest, CommonFormsAgreeWithAbslParseTime) {
  const absl::Time first =
      absl::FromCivil(absl::CivilSecond(1899, 12, 30), absl::UTCTimeZone());
  for (absl::Time t = first; t < absl::FromUnixSeconds(4200000000);
       t += absl::Hours(1009) + absl::Seconds(7) + absl::Milliseconds(123)) {
    const int64_t ms = absl::ToUnixMillis(t);
    for (const char* format : {"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%E3SZ",
                               "%Y-%m-%dt%H:%M:%E*Sz"}) {
      const std::string text = absl::FormatTime(format, t, absl::UTCTimeZone());
      const int64_t want = std::string(format).find("%S") != std::string::npos
                               ? absl::ToUnixSeconds(t) * 1000
                               : ms;
      ASSERT_EQ(Ms(text), want) << text;
    }
  }
  // The same instant through absl::ParseTime (an offset) and without.
  EXPECT_EQ(Ms("2008-02-02T15:36:08.250+00:00"), Ms("2008-02-02T15:36:08.25Z"));
  EXPECT_EQ(Ms("2008-02-29T23:59:60Z"), Ms("2008-03-01T00:00:00Z"));
}

}  // namespace
}  // namespace trackdb::import
