#ifndef TRACKDB_TOOLS_IMPORT_TIMESTAMP_H_
#define TRACKDB_TOOLS_IMPORT_TIMESTAMP_H_

// Timestamps of imported rows, to Unix milliseconds:
//
//   ISO 8601   2008-02-02T15:36:08Z, 2008-02-02 15:36:08,
//              2008-02-02T15:36:08.25+08:00, 2008-02-02T15:36+0800,
//              2008-02-02 (midnight). Digits past milliseconds are
//              dropped. Without a zone, `utc_offset_minutes` applies
//              (trackdb_import --utc_offset, default UTC).
//   Unix time  1202000000 (seconds), 1202000000123 (milliseconds),
//              1202000000.5 (seconds with a fraction), optionally signed.
//              TimeUnit::kAuto takes |value| >= 1e11 as milliseconds and
//              smaller as seconds: right for seconds before the year 5138
//              and milliseconds after 1973-03-03.
//
// ISO times are Abseil's to parse and check (absl::ParseTime, absl civil
// time: proleptic Gregorian, fixed UTC offsets, no locale or TZ database).
// Unix times are read by hand: absl has no parser for a number that is
// seconds or milliseconds by its size.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trackdb::import {

enum class TimeUnit { kAuto, kSeconds, kMilliseconds };

struct TimeOptions {
  TimeUnit unit = TimeUnit::kAuto;
  int utc_offset_minutes = 0;  // for ISO times without a zone
};

// INVALID_ARGUMENT saying what is wrong with `text`.
absl::StatusOr<int64_t> ParseTimestampMs(absl::string_view text,
                                         const TimeOptions& options);

// "Z", "UTC", "+08:00", "+0800", "+08", "-05:30": minutes east of UTC.
absl::StatusOr<int> ParseUtcOffset(absl::string_view text);

// "s", "ms" or "auto".
absl::StatusOr<TimeUnit> ParseTimeUnit(absl::string_view text);

// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12).
int64_t DaysFromCivil(int64_t year, int month, int day);

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_TIMESTAMP_H_
