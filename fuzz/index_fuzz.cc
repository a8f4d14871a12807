// index/'s geometry on arbitrary numbers (NaN, infinities and out-of-range
// values included): Redis geohashes, and the S2 coverings of rectangles,
// circles and polygons that every search scans.
//
// Input: a byte choosing the function, then the numbers it takes.
//
// Checked (each is what a search or a Redis GEO reply relies on):
//   - geohash: a position encodes exactly when it is in Redis's range; its
//     cell contains it; the cell's centre lies in the cell; a GEO score
//     decodes to within one step-26 cell of the position; neighbours keep
//     the step; GEOHASH strings are 11 characters;
//   - coverings: ranges sorted, non-empty, disjoint; every point a region
//     contains (sampled around the region from the input, corners and
//     vertices included) has its cell in the covering;
//   - polygons: Create never crashes, whatever the vertices.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "index/covering.h"
#include "index/distance.h"
#include "index/geohash.h"
#include "index/latlng.h"
#include "index/region.h"

namespace trackdb::fuzz {
namespace {

using index::CellRange;
using index::LatLng;

// Rounding slack for the cell bounds' arithmetic, in degrees (~1 nm).
constexpr double kSlackDeg = 1e-11;

bool InRedisRange(const LatLng& p) {
  return p.lat >= index::kRedisLatMin && p.lat <= index::kRedisLatMax &&
         p.lon >= index::kRedisLonMin && p.lon <= index::kRedisLonMax;
}

// Whether Redis's encoding puts `p` one past the last cell at `step`: at
// the top latitude or longitude (or a hair below, where the scaling rounds
// up) the offset is exactly 2^step, and Redis's truncation to an integer
// carries a bit out of the step's range (GEOADD 0 85.05112878 scores
// 2^52 + 2^51 in Redis 7). trackdb keeps Redis's scores, so such cells are
// not checked. Computed exactly as index/geohash.cc scales.
bool AtRedisUpperEdge(const LatLng& p, int step) {
  const double scale = static_cast<double>(1ULL << step);
  return (p.lat - index::kRedisLatMin) /
                 (index::kRedisLatMax - index::kRedisLatMin) * scale >=
             scale ||
         (p.lon - index::kRedisLonMin) /
                 (index::kRedisLonMax - index::kRedisLonMin) * scale >=
             scale;
}

bool InArea(const LatLng& p, const index::GeohashArea& a) {
  return p.lat >= a.lat_min - kSlackDeg && p.lat <= a.lat_max + kSlackDeg &&
         p.lon >= a.lon_min - kSlackDeg && p.lon <= a.lon_max + kSlackDeg;
}

void CheckGeohash(FuzzInput& in) {
  const LatLng p{in.DoubleIn(-86, 86), in.DoubleIn(-181, 181)};
  const int step = 1 + in.Byte() % 32;
  const auto hash = index::GeohashEncode(p, step);
  FUZZ_CHECK(hash.has_value() == InRedisRange(p))
      << p.lat << "," << p.lon << " encodes: " << hash.has_value();
  if (!hash) return;
  FUZZ_CHECK(hash->step == step);
  if (AtRedisUpperEdge(p, step)) return;
  const index::GeohashArea area = index::GeohashDecodeArea(*hash);
  FUZZ_CHECK(InArea(p, area))
      << p.lat << "," << p.lon << " outside its cell [" << area.lat_min << ","
      << area.lat_max << "] x [" << area.lon_min << "," << area.lon_max << "]";
  FUZZ_CHECK(InArea(index::GeohashDecodeCentre(*hash), area));
  for (const index::GeohashBits& n : index::GeohashNeighbors(*hash)) {
    FUZZ_CHECK(n.step == step);
    FUZZ_CHECK(step == 32 || n.bits < (uint64_t{1} << (2 * step)));
  }
  const auto score = index::RedisGeoScore(p);
  FUZZ_CHECK(score.has_value());
  const LatLng back = index::RedisGeoScoreToLatLng(*score);
  // A step-26 cell is at most ~0.6 m across at the equator.
  FUZZ_CHECK(index::HaversineMeters(p, back) < 1.0)
      << p.lat << "," << p.lon << " decodes to " << back.lat << "," << back.lon;
  FUZZ_CHECK(index::RedisGeohashString(*score).size() == 11);
}

bool Covered(const std::vector<CellRange>& ranges, uint64_t id) {
  auto it = std::upper_bound(
      ranges.begin(), ranges.end(), id,
      [](uint64_t v, const CellRange& r) { return v < r.first; });
  return it != ranges.begin() && id <= std::prev(it)->last;
}

void CheckCovers(const index::Region& region, std::vector<LatLng> points,
                 int max_cells) {
  const std::vector<CellRange> ranges =
      index::Covering(region, index::CoveringOptions{max_cells});
  FUZZ_CHECK(!ranges.empty());
  for (size_t i = 0; i < ranges.size(); ++i) {
    FUZZ_CHECK(ranges[i].first <= ranges[i].last);
    FUZZ_CHECK(i == 0 || ranges[i].first > ranges[i - 1].last)
        << "ranges " << i - 1 << " and " << i << " overlap or are unsorted";
  }
  for (const LatLng& p : points) {
    if (!index::ValidateLatLng(p).ok() || !region.Contains(p)) continue;
    FUZZ_CHECK(Covered(ranges, index::CellIdOf(p)))
        << "contained point " << p.lat << "," << p.lon << " not covered";
  }
}

double Clamp(double v, double lo, double hi) {
  return std::isnan(v) ? lo : std::min(hi, std::max(lo, v));
}

// Points in [south, north] x [west, west + width] (longitudes wrapped),
// from the rest of the input: interior points and the box's edges.
std::vector<LatLng> PointsIn(FuzzInput& in, double south, double north,
                             double west, double width) {
  std::vector<LatLng> points;
  while (in.remaining() > 0 && points.size() < 64) {
    const double fy = (in.Byte() % 17) / 16.0, fx = (in.Byte() % 17) / 16.0;
    double lon = west + fx * width;
    if (lon > 180) lon -= 360;
    points.push_back(
        {Clamp(south + fy * (north - south), -90, 90), Clamp(lon, -180, 180)});
  }
  return points;
}

void CheckRect(FuzzInput& in) {
  const double s = in.DoubleIn(-90, 90), w = in.DoubleIn(-180, 180);
  const double n = in.DoubleIn(-90, 90), e = in.DoubleIn(-180, 180);
  const int max_cells = 1 + in.Byte() % 32;
  auto rect = index::RectRegion::Create(s, w, n, e);
  if (!rect.ok()) return;
  std::vector<LatLng> points =
      PointsIn(in, s, n, w, e >= w ? e - w : e - w + 360);
  points.push_back({s, w});
  points.push_back({n, e});
  CheckCovers(*rect, points, max_cells);
}

void CheckCircle(FuzzInput& in) {
  const LatLng c{in.DoubleIn(-90, 90), in.DoubleIn(-180, 180)};
  // 1 mm to 20,000 km, evenly in the exponent.
  const double radius = std::pow(10, in.DoubleIn(-3, 7.3));
  const int max_cells = 1 + in.Byte() % 32;
  auto circle = index::CircleRegion::Create(c, radius);
  if (!circle.ok()) return;
  const double r_deg =
      std::min(180.0, radius / index::kEarthRadiusMeters * 180 / M_PI);
  const double cos_lat = std::max(1e-3, std::cos(c.lat * M_PI / 180));
  const double half_width = std::min(180.0, r_deg / cos_lat);
  std::vector<LatLng> points = PointsIn(in, c.lat - r_deg, c.lat + r_deg,
                                        c.lon - half_width, 2 * half_width);
  points.push_back(c);
  CheckCovers(*circle, points, max_cells);
}

void CheckPolygon(FuzzInput& in) {
  const size_t n = 3 + in.Byte() % 10;
  std::vector<LatLng> vertices;
  double south = 90, north = -90, west = 180, east = -180;
  for (size_t i = 0; i < n; ++i) {
    const LatLng v{in.DoubleIn(-90, 90), in.DoubleIn(-180, 180)};
    vertices.push_back(v);
    if (!index::ValidateLatLng(v).ok()) continue;
    south = std::min(south, v.lat), north = std::max(north, v.lat);
    west = std::min(west, v.lon), east = std::max(east, v.lon);
  }
  const int max_cells = 1 + in.Byte() % 32;
  auto polygon = index::PolygonRegion::Create(vertices);
  if (!polygon.ok()) return;
  std::vector<LatLng> points = PointsIn(in, south, north, west, east - west);
  points.insert(points.end(), vertices.begin(), vertices.end());
  CheckCovers(*polygon, points, max_cells);
}

}  // namespace
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trackdb::fuzz::FuzzInput in(data, size);
  switch (in.Byte() % 4) {
    case 0:
      trackdb::fuzz::CheckGeohash(in);
      break;
    case 1:
      trackdb::fuzz::CheckRect(in);
      break;
    case 2:
      trackdb::fuzz::CheckCircle(in);
      break;
    default:
      trackdb::fuzz::CheckPolygon(in);
  }
  return 0;
}
