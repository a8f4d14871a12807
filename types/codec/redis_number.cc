#include "types/codec/redis_number.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace trackdb::types {
namespace {

// Redis's MAX_LONG_DOUBLE_CHARS: string2ld's buffer.
constexpr size_t kMaxLongDoubleChars = 5 * 1024;

template <typename Float>
Float StringToFloat(const char* s, char** end);
template <>
double StringToFloat<double>(const char* s, char** end) {
  return std::strtod(s, end);
}
template <>
long double StringToFloat<long double>(const char* s, char** end) {
  return std::strtold(s, end);
}

// string2d and string2ld: strtod (strtold) must read the whole argument,
// which may not start with a space; NaN, an overflow to +-HUGE_VAL and an
// underflow to zero are refused, a denormal result and a literal "inf" are
// not.
template <typename Float>
bool ParseWholeFloat(absl::string_view s, Float* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  const std::string copy(s);
  char* end = nullptr;
  errno = 0;
  const Float v = StringToFloat<Float>(copy.c_str(), &end);
  if (static_cast<size_t>(end - copy.c_str()) != copy.size()) return false;
  if (errno == ERANGE && (std::isinf(v) || v == 0)) return false;
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

}  // namespace

bool ParseInt64(absl::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  if (s[0] == '-') i = 1;
  if (i >= s.size() || s[i] < '1' || s[i] > '9') return false;
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] < '0' || s[j] > '9') return false;
  }
  return absl::SimpleAtoi(s, out);
}

bool ParseRedisMemory(absl::string_view s, std::optional<int64_t>* out) {
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  const std::string unit = absl::AsciiStrToLower(s.substr(digits));
  static const std::pair<const char*, uint64_t> kUnits[] = {
      {"", 1},           {"b", 1},           {"k", 1000},
      {"kb", 1024},      {"m", 1000 * 1000}, {"mb", 1024 * 1024},
      {"g", 1000000000}, {"gb", 1ULL << 30},
  };
  const auto* found =
      std::find_if(std::begin(kUnits), std::end(kUnits),
                   [&](const auto& u) { return unit == u.first; });
  if (found == std::end(kUnits)) return false;
  uint64_t n = 0;  // "" reads 0, as strtoull does
  if (digits > 0 && !absl::SimpleAtoi(s.substr(0, digits), &n)) {
    *out = std::nullopt;  // over 2^64-1
    return true;
  }
  const uint64_t limit =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (n > limit / found->second) {
    *out = std::nullopt;
  } else {
    *out = static_cast<int64_t>(n * found->second);
  }
  return true;
}

bool ParseRedisDouble(absl::string_view s, double* out) {
  return ParseWholeFloat(s, out);
}

bool ParseRedisLongDouble(absl::string_view s, long double* out) {
  if (s.size() >= kMaxLongDoubleChars) return false;
  return ParseWholeFloat(s, out);
}

bool ParseZsetScoreBound(absl::string_view s, double* out) {
  const std::string copy(s);  // Redis reads the argument as a C string.
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (end[0] != '\0' || std::isnan(v)) return false;
  *out = v;
  return true;
}

std::string FormatLongDouble(long double v) {
  char buf[kMaxLongDoubleChars];
  int len = std::snprintf(buf, sizeof(buf), "%.17Lf", v);
  std::string s(buf, len);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

bool ParseScanCursor(const std::string& arg, uint64_t* cursor) {
  const char* s = arg.c_str();
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (std::isspace(static_cast<unsigned char>(s[0])) || *end != '\0' ||
      errno == ERANGE) {
    return false;
  }
  *cursor = v;
  return true;
}

}  // namespace trackdb::types
