#include "tools/import/timestamp.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace trackdb::import {
namespace {

constexpr double kAutoMsThreshold = 1e11;
constexpr size_t kDateSize = 10;  // "YYYY-MM-DD"

absl::Status Bad(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("time '", text, "' is not ISO 8601 or Unix time: ", why));
}

// absl::ParseTime formats have no optional parts, so an ISO time's form
// picks one, by [separator is T or t][has seconds][has a zone]. %ET takes
// 'T' or 't'; %E*S any fraction; %Ez Z, z, +hh:mm, +hhmm or +hh.
constexpr const char* kIsoFormats[2][2][2] = {
    {{"%E4Y-%m-%d %H:%M", "%E4Y-%m-%d %H:%M%Ez"},
     {"%E4Y-%m-%d %H:%M:%E*S", "%E4Y-%m-%d %H:%M:%E*S%Ez"}},
    {{"%E4Y-%m-%d%ET%H:%M", "%E4Y-%m-%d%ET%H:%M%Ez"},
     {"%E4Y-%m-%d%ET%H:%M:%E*S", "%E4Y-%m-%d%ET%H:%M:%E*S%Ez"}},
};

struct IsoForm {
  const char* format;
  bool has_zone;
};

absl::StatusOr<IsoForm> FormOf(absl::string_view s) {
  if (s.size() <= kDateSize) return IsoForm{"%E4Y-%m-%d", false};
  const char sep = s[kDateSize];
  if (sep != 'T' && sep != 't' && sep != ' ') {
    return Bad(s, "expected 'T' or ' ' after the date");
  }
  // No '+', '-' or 'Z' can come before a zone in "hh:mm:ss.fff".
  const size_t zone = std::min(s.find_first_of("Zz+-", kDateSize), s.size());
  const bool has_seconds = zone > kDateSize + 6;  // past "Thh:mm"
  const bool has_zone = zone < s.size();
  return IsoForm{kIsoFormats[sep != ' '][has_seconds][has_zone], has_zone};
}

// The n-digit number at s[pos], or -1.
int DigitsAt(absl::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return -1;
  int v = 0;
  for (char c : s.substr(pos, n)) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

// What is wrong with an ISO time's "YYYY-MM-DD", or nullptr if nothing.
const char* DateProblem(absl::string_view s) {
  const int year = DigitsAt(s, 0, 4), month = DigitsAt(s, 5, 2),
            day = DigitsAt(s, 8, 2);
  if (year < 0 || month < 0 || day < 0 || s[7] != '-') {
    return "expected YYYY-MM-DD";
  }
  if (month < 1 || month > 12) return "month out of range";
  if (day < 1 || absl::CivilDay(year, month, day).day() != day) {
    return "day out of range";
  }
  return nullptr;
}

// What is wrong with an ISO time's "hh:mm[:ss[.fff]]" after a valid date,
// or nullptr if nothing.
const char* TimeOfDayProblem(absl::string_view s) {
  const int hour = DigitsAt(s, 11, 2), minute = DigitsAt(s, 14, 2);
  if (hour < 0 || minute < 0 || s[13] != ':') {
    return "expected hh:mm after the date";
  }
  const bool has_seconds = s.size() > 16 && s[16] == ':';
  const int second = has_seconds ? DigitsAt(s, 17, 2) : 0;
  if (second < 0) return "expected seconds";
  if (hour > 23 || minute > 59 || second > 60) {
    return "time of day out of range";
  }
  if (has_seconds && s.size() > 19 && s[19] == '.' && DigitsAt(s, 20, 1) < 0) {
    return "expected digits after '.'";
  }
  return nullptr;
}

// Which part of an ISO time absl::ParseTime refused: it says only "Failed
// to parse input" or "Out-of-range field", and a bad row should name the
// field.
std::string IsoProblem(absl::string_view s) {
  if (const char* problem = DateProblem(s)) return problem;
  if (s.size() == kDateSize) return "unexpected text after the date";
  if (const char* problem = TimeOfDayProblem(s)) return problem;
  return "bad zone (expected Z, +hh:mm, +hhmm or +hh)";
}

// Whether s has the separators of "YYYY-MM-DD hh:mm:ss" ('T' or 't' for
// ' ') and at least its length; the digits are read later.
bool HasCommonFormSeparators(absl::string_view s) {
  return s.size() >= 19 && s[7] == '-' && s[13] == ':' && s[16] == ':' &&
         (s[10] == ' ' || s[10] == 'T' || s[10] == 't');
}

// Milliseconds of the fraction after "YYYY-MM-DD hh:mm:ss" (0 if none), or
// nullopt if what follows the seconds is not '.' and digits. Digits past
// milliseconds are dropped: ".25" is 250 ms.
std::optional<int> CommonFormFractionMs(absl::string_view s) {
  int millis = 0;
  if (s.size() > 19) {
    const absl::string_view fraction = s.substr(20);
    if (s[19] != '.' || fraction.empty() ||
        !std::all_of(fraction.begin(), fraction.end(), absl::ascii_isdigit)) {
      return std::nullopt;
    }
    for (size_t i = 0, scale = 100; i < 3 && i < fraction.size();
         ++i, scale /= 10) {
      millis += (fraction[i] - '0') * scale;
    }
  }
  return millis;
}

// Seconds since the epoch of the "YYYY-MM-DD hh:mm:ss" that s starts with,
// or nullopt for a field that is not digits or is out of range.
std::optional<int64_t> CommonFormSeconds(absl::string_view s) {
  const int year = DigitsAt(s, 0, 4), month = DigitsAt(s, 5, 2),
            day = DigitsAt(s, 8, 2), hour = DigitsAt(s, 11, 2),
            minute = DigitsAt(s, 14, 2), second = DigitsAt(s, 17, 2);
  if (std::min({year, month, day, hour, minute, second}) < 0) {
    return std::nullopt;
  }
  // Civil time normalizes a field out of range (Feb 30 is Mar 1); such a
  // time is absl::ParseTime's to refuse.
  const absl::CivilSecond t(year, month, day, hour, minute, second);
  if (t.month() != month || t.day() != day || t.hour() != hour ||
      t.minute() != minute || t.second() != second) {
    return std::nullopt;
  }
  static constexpr absl::CivilSecond kEpoch(1970, 1, 1, 0, 0, 0);
  return t - kEpoch;
}

// Milliseconds of "YYYY-MM-DD hh:mm:ss" with 'T' or 't' for ' ', an
// optional fraction and an optional 'Z': the forms bulk files repeat
// millions of times (T-Drive, GeoLife, JavaScript's toISOString). *utc
// says whether it ended in 'Z'. nullopt for any other form, or a field out
// of range. absl::ParseTime (cctz's general strptime) takes ~0.5 us a
// call, ten times this: a quarter of a T-Drive import's throughput
// (bench/README.md, "Bulk import"). absl's civil time still does the
// calendar.
std::optional<int64_t> CommonFormMs(absl::string_view s, bool* utc) {
  *utc = !s.empty() && (s.back() == 'Z' || s.back() == 'z');
  if (*utc) s.remove_suffix(1);
  if (!HasCommonFormSeparators(s)) return std::nullopt;
  const std::optional<int> millis = CommonFormFractionMs(s);
  if (!millis) return std::nullopt;
  const std::optional<int64_t> seconds = CommonFormSeconds(s);
  if (!seconds) return std::nullopt;
  return *seconds * 1000 + *millis;
}

absl::StatusOr<int64_t> ParseIso(absl::string_view s,
                                 const TimeOptions& options) {
  const int64_t default_offset_ms = int64_t{options.utc_offset_minutes} * 60000;
  bool utc = false;
  if (std::optional<int64_t> ms = CommonFormMs(s, &utc)) {
    return *ms - (utc ? 0 : default_offset_ms);
  }
  absl::StatusOr<IsoForm> form = FormOf(s);
  if (!form.ok()) return form.status();
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(form->format, s, &t, &error)) {
    return Bad(s, IsoProblem(s));
  }
  return absl::ToUnixMillis(t) - (form->has_zone ? 0 : default_offset_ms);
}

// The parts of a Unix time's text.
struct UnixNumber {
  bool negative = false;
  int64_t whole = 0;
  int whole_digits = 0;
  int frac_ms = 0;  // milliseconds of the fraction (digits past ms dropped)
  int frac_digits = 0;
};

// Reads the digits at s[*pos] into n's whole part; false past 18 digits.
bool ScanWholeDigits(absl::string_view s, size_t* pos, UnixNumber* n) {
  while (*pos < s.size() && s[*pos] >= '0' && s[*pos] <= '9') {
    if (++n->whole_digits > 18) return false;
    n->whole = n->whole * 10 + (s[*pos] - '0');
    ++*pos;
  }
  return true;
}

// Reads a '.' and the digits after it at s[*pos], if there is one, into n's
// fraction.
void ScanFraction(absl::string_view s, size_t* pos, UnixNumber* n) {
  if (*pos >= s.size() || s[*pos] != '.') return;
  ++*pos;
  int scale = 100;
  while (*pos < s.size() && s[*pos] >= '0' && s[*pos] <= '9') {
    n->frac_ms += (s[*pos] - '0') * scale;
    scale /= 10;
    ++*pos;
    ++n->frac_digits;
  }
}

// absl has no parser for a number that is seconds or milliseconds by its
// size, with an optional fraction, so this one is by hand.
absl::StatusOr<int64_t> ParseUnix(absl::string_view s, TimeUnit unit) {
  size_t pos = 0;
  UnixNumber n;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) {
    n.negative = s[pos] == '-';
    ++pos;
  }
  if (!ScanWholeDigits(s, &pos, &n)) return Bad(s, "number too large");
  ScanFraction(s, &pos, &n);
  if (pos != s.size() || (n.whole_digits == 0 && n.frac_digits == 0)) {
    return Bad(s, "expected a number or YYYY-MM-DD...");
  }
  if (unit == TimeUnit::kAuto) {
    unit = n.whole >= kAutoMsThreshold ? TimeUnit::kMilliseconds
                                       : TimeUnit::kSeconds;
  }
  int64_t ms = 0;
  if (unit == TimeUnit::kMilliseconds) {
    ms = n.whole;  // a fraction of a millisecond is dropped
  } else {
    if (n.whole > INT64_MAX / 1000 - 1) return Bad(s, "number too large");
    ms = n.whole * 1000 + n.frac_ms;
  }
  return n.negative ? -ms : ms;
}

}  // namespace

int64_t DaysFromCivil(int64_t year, int month, int day) {
  return absl::CivilDay(year, month, day) - absl::CivilDay(1970, 1, 1);
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
  if (text == "UTC" || text == "utc" || text.empty()) return 0;
  // A zone alone parses as the Unix epoch's midnight in that zone.
  absl::Time t;
  std::string error;
  if (!absl::ParseTime("%Ez", text, &t, &error) ||
      absl::ToUnixSeconds(t) % 60 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "UTC offset '", text, "' is not Z, UTC, +hh:mm, +hhmm or +hh"));
  }
  return static_cast<int>(-absl::ToUnixSeconds(t) / 60);
}

absl::StatusOr<TimeUnit> ParseTimeUnit(absl::string_view text) {
  if (text == "auto") return TimeUnit::kAuto;
  if (text == "s") return TimeUnit::kSeconds;
  if (text == "ms") return TimeUnit::kMilliseconds;
  return absl::InvalidArgumentError(
      absl::StrCat("time unit '", text, "' is not auto, s or ms"));
}

}  // namespace trackdb::import
