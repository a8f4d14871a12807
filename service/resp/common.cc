#include "service/resp/common.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace trackdb::resp {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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

bool ParseLongDouble(absl::string_view s, long double* out) {
  // Redis: reject empty, leading space, and anything strtold leaves over.
  if (s.empty() || s.size() >= 5120) return false;
  if (std::isspace(static_cast<unsigned char>(s[0]))) return false;
  const std::string copy(s);
  char* end = nullptr;
  errno = 0;
  const long double v = std::strtold(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return false;
  if (std::isnan(v)) return false;
  // As Redis: overflow (±HUGE_VAL) and underflow to zero are errors, a
  // denormal result and a literal "inf" are not.
  if (errno == ERANGE && (std::isinf(v) || v == 0)) return false;
  *out = v;
  return true;
}

bool ParseDouble(absl::string_view s, double* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  const std::string copy(s);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || std::isnan(v)) return false;
  if (errno == ERANGE && (std::isinf(v) || v == 0)) return false;
  *out = v;
  return true;
}

std::string FormatLongDouble(long double v) {
  char buf[5 * 1024];
  int len = std::snprintf(buf, sizeof(buf), "%.17Lf", v);
  std::string s(buf, len);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

absl::StatusOr<KeyType> TypeOf(storage::TrackStore& store,
                               absl::string_view name, int64_t now_ms) {
  auto s = store.GetString(name, now_ms);
  if (!s.ok()) return s.status();
  if (s->has_value()) return KeyType::kString;
  auto n = store.CollectionSize(name);
  if (!n.ok()) return n.status();
  return *n > 0 ? KeyType::kGeo : KeyType::kNone;
}

const char* TypeName(KeyType t) {
  switch (t) {
    case KeyType::kString:
      return "string";
    case KeyType::kGeo:
      return "zset";
    default:
      return "none";
  }
}

std::string ToLower(absl::string_view s) { return absl::AsciiStrToLower(s); }

bool EqualsIgnoreCase(absl::string_view a, absl::string_view b) {
  return absl::EqualsIgnoreCase(a, b);
}

}  // namespace trackdb::resp
