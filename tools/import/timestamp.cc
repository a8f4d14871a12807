#include "tools/import/timestamp.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace trackdb::import {
namespace {

constexpr int64_t kMsPerDay = 86400000;
constexpr double kAutoMsThreshold = 1e11;

absl::Status Bad(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("time '", text, "' is not ISO 8601 or Unix time: ", why));
}

// Reads exactly `n` digits at *pos.
bool Digits(absl::string_view s, size_t* pos, int n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30,
                                  31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// "Z" | ("+"|"-") HH [[":"] MM], from *pos to the end.
bool ParseZone(absl::string_view s, size_t* pos, int* minutes) {
  if (*pos < s.size() && (s[*pos] == 'Z' || s[*pos] == 'z')) {
    ++*pos;
    *minutes = 0;
    return true;
  }
  if (*pos >= s.size() || (s[*pos] != '+' && s[*pos] != '-')) return false;
  const int sign = s[*pos] == '-' ? -1 : 1;
  ++*pos;
  int hh = 0, mm = 0;
  if (!Digits(s, pos, 2, &hh)) return false;
  if (*pos < s.size()) {
    if (s[*pos] == ':') ++*pos;
    if (!Digits(s, pos, 2, &mm)) return false;
  }
  if (hh > 23 || mm > 59) return false;
  *minutes = sign * (hh * 60 + mm);
  return true;
}

absl::StatusOr<int64_t> ParseIso(absl::string_view s,
                                 const TimeOptions& options) {
  size_t pos = 0;
  int year = 0, month = 0, day = 0;
  if (!Digits(s, &pos, 4, &year) || pos >= s.size() || s[pos++] != '-' ||
      !Digits(s, &pos, 2, &month) || pos >= s.size() || s[pos++] != '-' ||
      !Digits(s, &pos, 2, &day)) {
    return Bad(s, "expected YYYY-MM-DD");
  }
  if (month < 1 || month > 12) return Bad(s, "month out of range");
  if (day < 1 || day > DaysInMonth(year, month)) {
    return Bad(s, "day out of range");
  }
  int hour = 0, minute = 0, second = 0, millis = 0;
  int offset = options.utc_offset_minutes;
  if (pos < s.size()) {
    if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') {
      return Bad(s, "expected 'T' or ' ' after the date");
    }
    ++pos;
    if (!Digits(s, &pos, 2, &hour) || pos >= s.size() || s[pos++] != ':' ||
        !Digits(s, &pos, 2, &minute)) {
      return Bad(s, "expected hh:mm after the date");
    }
    if (pos < s.size() && s[pos] == ':') {
      ++pos;
      if (!Digits(s, &pos, 2, &second)) return Bad(s, "expected seconds");
      if (pos < s.size() && s[pos] == '.') {
        ++pos;
        int scale = 100, digits = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
          millis += (s[pos] - '0') * scale;
          scale /= 10;
          ++pos;
          ++digits;
        }
        if (digits == 0) return Bad(s, "expected digits after '.'");
      }
    }
    if (hour > 23 || minute > 59 || second > 60) {
      return Bad(s, "time of day out of range");
    }
    if (pos < s.size() && !ParseZone(s, &pos, &offset)) {
      return Bad(s, "bad zone (expected Z, +hh:mm, +hhmm or +hh)");
    }
    if (pos != s.size()) return Bad(s, "unexpected text after the time");
  }
  const int64_t days = DaysFromCivil(year, month, day);
  return days * kMsPerDay +
         ((hour * 60 + minute - offset) * 60 + second) * int64_t{1000} + millis;
}

absl::StatusOr<int64_t> ParseUnix(absl::string_view s, TimeUnit unit) {
  size_t pos = 0;
  bool negative = false;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) {
    negative = s[pos] == '-';
    ++pos;
  }
  int64_t whole = 0;
  int whole_digits = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
    if (++whole_digits > 18) return Bad(s, "number too large");
    whole = whole * 10 + (s[pos] - '0');
    ++pos;
  }
  // Milliseconds of a fraction of a second (digits past ms dropped).
  int frac_ms = 0, frac_digits = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int scale = 100;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      frac_ms += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
      ++frac_digits;
    }
  }
  if (pos != s.size() || (whole_digits == 0 && frac_digits == 0)) {
    return Bad(s, "expected a number or YYYY-MM-DD...");
  }
  if (unit == TimeUnit::kAuto) {
    unit = whole >= kAutoMsThreshold ? TimeUnit::kMilliseconds
                                     : TimeUnit::kSeconds;
  }
  int64_t ms = 0;
  if (unit == TimeUnit::kMilliseconds) {
    ms = whole;  // a fraction of a millisecond is dropped
  } else {
    if (whole > INT64_MAX / 1000 - 1) return Bad(s, "number too large");
    ms = whole * 1000 + frac_ms;
  }
  return negative ? -ms : ms;
}

}  // namespace

int64_t DaysFromCivil(int64_t y, int m, int d) {
  // Howard Hinnant's days_from_civil.
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

absl::StatusOr<int64_t> ParseTimestampMs(absl::string_view text,
                                         const TimeOptions& options) {
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return Bad(text, "empty");
  // An ISO date starts with four digits and a '-'.
  if (text.size() >= 5 && text[4] == '-' && text[0] != '-') {
    return ParseIso(text, options);
  }
  return ParseUnix(text, options.unit);
}

absl::StatusOr<int> ParseUtcOffset(absl::string_view text) {
  if (text == "UTC" || text == "utc" || text == "Z" || text.empty()) return 0;
  size_t pos = 0;
  int minutes = 0;
  if (!ParseZone(text, &pos, &minutes) || pos != text.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "UTC offset '", text, "' is not Z, UTC, +hh:mm, +hhmm or +hh"));
  }
  return minutes;
}

absl::StatusOr<TimeUnit> ParseTimeUnit(absl::string_view text) {
  if (text == "auto") return TimeUnit::kAuto;
  if (text == "s") return TimeUnit::kSeconds;
  if (text == "ms") return TimeUnit::kMilliseconds;
  return absl::InvalidArgumentError(
      absl::StrCat("time unit '", text, "' is not auto, s or ms"));
}

}  // namespace trackdb::import
