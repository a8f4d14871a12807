#include "index/redis_geo_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/match.h"
#include "index/distance.h"
#include "index/geohash.h"

namespace trackdb::index {

std::optional<double> RedisUnitToMeters(absl::string_view unit) {
  // Redis compares C strings: an embedded NUL ends the unit.
  const size_t nul = unit.find('\0');
  if (nul != absl::string_view::npos) unit = unit.substr(0, nul);
  if (absl::EqualsIgnoreCase(unit, "m")) return 1;
  if (absl::EqualsIgnoreCase(unit, "km")) return 1000;
  if (absl::EqualsIgnoreCase(unit, "ft")) return 0.3048;
  if (absl::EqualsIgnoreCase(unit, "mi")) return 1609.34;
  return std::nullopt;
}

double RedisMetersToUnit(double meters, double unit_to_meters) {
  return meters / unit_to_meters;
}

std::string RedisFormatDistance(double meters, double unit_to_meters) {
  // Redis 7.0's addReplyDoubleDistance calls fixedpoint_d2string(d, 4): it
  // rounds d * 10^4 to an integer with llrint (round half to even, on the
  // already rounded product) and prints that integer with a '.' before its
  // last four digits. This differs from printf("%.4f") when the product's
  // rounding lands on or crosses a half.
  const double d = RedisMetersToUnit(meters, unit_to_meters);
  if (d == 0) return "0.0000";
  const long long scaled = std::llrint(d * 10000.0);
  const bool negative = scaled < 0;
  const unsigned long long magnitude =
      negative ? 0ULL - static_cast<unsigned long long>(scaled)
               : static_cast<unsigned long long>(scaled);
  std::string digits = std::to_string(magnitude);
  if (digits.size() < 5) digits.insert(0, 5 - digits.size(), '0');
  digits.insert(digits.size() - 4, ".");
  return negative ? "-" + digits : digits;
}

std::string RedisFormatCoordinate(double degrees) {
  // Coordinates are at most 3 integer digits: 5 + 17 characters suffice,
  // but allow any finite double.
  char buf[512];
  const int n = std::snprintf(buf, sizeof(buf), "%.17Lf",
                              static_cast<long double>(degrees));
  if (n <= 0 || static_cast<size_t>(n) >= sizeof(buf)) return std::string();
  std::string s(buf, n);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

double RedisGeoDistMeters(uint64_t score1, uint64_t score2) {
  return HaversineMeters(RedisGeoScoreToLatLng(score1),
                         RedisGeoScoreToLatLng(score2));
}

}  // namespace trackdb::index
