#include "index/redis_geo_format.h"

#include <algorithm>
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
  char buf[128];
  const int n = std::snprintf(buf, sizeof(buf), "%.4f",
                              RedisMetersToUnit(meters, unit_to_meters));
  return std::string(buf, n > 0 ? std::min<size_t>(n, sizeof(buf) - 1) : 0);
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
