#include "index/redis_geo_search.h"

#include <algorithm>
#include <cmath>

#include "index/distance.h"
#include "index/interpolate.h"

namespace trackdb::index {
namespace {

// Redis's D_R and its two conversions (geohash_helper.c's deg_rad/rad_deg).
constexpr double kDegToRad = M_PI / 180.0;
double DegToRad(double deg) { return deg * kDegToRad; }
double RadToDeg(double rad) { return rad / kDegToRad; }

// How far a member's stored position may be from the decoded one Redis
// measures from (<= 0.33 m, see the header), with room for rounding.
constexpr double kDecodedMarginMeters = 1;

// Half the Web-Mercator world width, Redis's MERCATOR_MAX.
constexpr double kMercatorMax = 20037726.37;

// geohashEstimateStepsByRadius: the step whose cells are about as large as
// the search radius, one step coarser towards the poles, within [1, 26].
int EstimateStep(double range_meters, double lat) {
  if (range_meters == 0) return kRedisGeoStep;
  int step = 1;
  while (range_meters < kMercatorMax) {
    range_meters *= 2;
    ++step;
  }
  step -= 2;
  if (lat > 66 || lat < -66) {
    --step;
    if (lat > 80 || lat < -80) --step;
  }
  return std::clamp(step, 1, kRedisGeoStep);
}

bool IsZero(const GeohashBits& h) { return h.bits == 0 && h.step == 0; }

uint64_t Align52(uint64_t bits, int step) { return bits << (52 - step * 2); }

// Redis's scan order over its GeoHashNeighbors fields, as indices into
// GeohashNeighbors' (GeohashDirection) order.
constexpr GeohashDirection kScanOrder[8] = {
    kNorth,     kSouth,     kEast,      kWest,
    kNorthEast, kNorthWest, kSouthEast, kSouthWest,
};

// Redis's comparator for ASC (sort_gp_asc); DESC is its negation.
int CompareDistance(const RedisGeoResult& a, const RedisGeoResult& b) {
  if (a.distance_m > b.distance_m) return 1;
  if (a.distance_m == b.distance_m) return 0;
  return -1;
}

// Redis's pqsort (Bentley & McIlroy's quicksort as in NetBSD's qsort, which
// skips partitions outside the wanted index range [first, last]), redone on
// element indices. Only the elements in [first, last] end up sorted; which
// of several equal elements land there, and in what order, is whatever this
// exact sequence of swaps gives, so it is followed step by step.
class PartialQuickSort {
 public:
  PartialQuickSort(std::vector<RedisGeoResult>* v, int sign, size_t first,
                   size_t last)
      : v_(*v), sign_(sign), first_(first), last_(last) {}

  void Sort(size_t lo, size_t n) {
    for (;;) {
      if (n < 7) {
        InsertionSort(lo, n);
        return;
      }
      Swap(lo, Pivot(lo, n));  // The pivot waits at lo.
      const Partition p = PartitionAroundLo(lo, n);
      const size_t end = lo + n;
      size_t r = std::min(p.pa - lo, p.pb - p.pa);
      SwapRuns(lo, p.pb - r, r);
      r = std::min(p.pd - p.pc, end - p.pd - 1);
      SwapRuns(p.pb, end - r, r);
      if ((r = p.pb - p.pa) > 1 && Wanted(lo, r)) Sort(lo, r);
      if ((r = p.pd - p.pc) <= 1) return;
      lo = end - r;  // Loop instead of recursing on the right part.
      n = r;
      if (!Wanted(lo, n)) return;
    }
  }

 private:
  // Where a three-way partition of [lo, lo + n) left its runs: keys equal
  // to the pivot in [lo+1, pa) and (pd, lo+n), smaller ones in [pa, pb),
  // larger ones in (pc, pd].
  struct Partition {
    size_t pa, pb, pc, pd;
  };

  void InsertionSort(size_t lo, size_t n) {
    for (size_t m = lo + 1; m < lo + n; ++m) {
      for (size_t l = m; l > lo && Cmp(l - 1, l) > 0; --l) Swap(l, l - 1);
    }
  }

  // The pivot of [lo, lo + n), n >= 7: the middle element, the median of
  // three past 7 elements, the ninther past 40.
  size_t Pivot(size_t lo, size_t n) const {
    size_t pm = lo + n / 2;
    if (n > 7) {
      size_t pl = lo;
      size_t pn = lo + n - 1;
      if (n > 40) {
        const size_t d = n / 8;
        pl = Median3(pl, pl + d, pl + 2 * d);
        pm = Median3(pm - d, pm, pm + d);
        pn = Median3(pn - 2 * d, pn - d, pn);
      }
      pm = Median3(pl, pm, pn);
    }
    return pm;
  }

  // Partitions [lo + 1, lo + n) around the pivot at lo. Equal keys gather
  // at both ends, for Sort to move to the middle.
  Partition PartitionAroundLo(size_t lo, size_t n) {
    size_t pa = lo + 1, pb = lo + 1;
    size_t pc = lo + n - 1, pd = lo + n - 1;
    for (;;) {
      int c;
      while (pb <= pc && (c = Cmp(pb, lo)) <= 0) {
        if (c == 0) Swap(pa++, pb);
        ++pb;
      }
      while (pb <= pc && (c = Cmp(pc, lo)) >= 0) {
        if (c == 0) Swap(pc, pd--);
        --pc;
      }
      if (pb > pc) break;
      Swap(pb++, pc--);
    }
    return {pa, pb, pc, pd};
  }

  int Cmp(size_t a, size_t b) const {
    return sign_ * CompareDistance(v_[a], v_[b]);
  }
  void Swap(size_t a, size_t b) { std::swap(v_[a], v_[b]); }
  void SwapRuns(size_t a, size_t b, size_t n) {
    for (size_t i = 0; i < n; ++i) Swap(a + i, b + i);
  }
  size_t Median3(size_t a, size_t b, size_t c) const {
    return Cmp(a, b) < 0 ? (Cmp(b, c) < 0 ? b : (Cmp(a, c) < 0 ? c : a))
                         : (Cmp(b, c) > 0 ? b : (Cmp(a, c) < 0 ? a : c));
  }
  // Whether [lo, lo + n) overlaps [first_, last_], as pqsort's pointer test.
  bool Wanted(size_t lo, size_t n) const {
    const bool left = first_ < lo && last_ < lo;
    const bool right = first_ >= lo + n && last_ >= lo + n;
    return !left && !right;
  }

  std::vector<RedisGeoResult>& v_;
  const int sign_;
  const size_t first_, last_;
};

}  // namespace

RedisGeoShape RedisGeoShape::Radius(const LatLng& centre, double radius,
                                    double unit_to_meters) {
  RedisGeoShape s;
  s.kind = Kind::kRadius;
  s.centre = centre;
  s.radius = radius;
  s.unit_to_meters = unit_to_meters;
  return s;
}

RedisGeoShape RedisGeoShape::Box(const LatLng& centre, double width,
                                 double height, double unit_to_meters) {
  RedisGeoShape s;
  s.kind = Kind::kBox;
  s.centre = centre;
  s.width = width;
  s.height = height;
  s.unit_to_meters = unit_to_meters;
  return s;
}

absl::StatusOr<RedisGeoShape> RedisGeoShape::Polygon(
    std::vector<LatLng> vertices) {
  RedisGeoShape s;
  s.kind = Kind::kPolygon;
  // geohashBoundingBox's polygon case: the box of the coordinates, and the
  // vertices' spherical mean.
  s.lon_min = s.lat_min = 1e9;
  s.lon_max = s.lat_max = -1e9;
  for (const LatLng& v : vertices) {
    s.lon_min = std::min(s.lon_min, v.lon);
    s.lon_max = std::max(s.lon_max, v.lon);
    s.lat_min = std::min(s.lat_min, v.lat);
    s.lat_max = std::max(s.lat_max, v.lat);
  }
  s.centre = SphericalMean(vertices);
  if (!(std::fabs(s.centre.lat) <= kRedisLatMax)) {
    // Vertices around a pole: Redis's geohash cannot hold the centre.
    return absl::InvalidArgumentError(
        "the vertices' centre is beyond latitude 85.05112878, where GEO "
        "searches cannot start");
  }
  absl::StatusOr<PolygonRegion> polygon =
      PolygonRegion::Create(std::move(vertices));
  if (!polygon.ok()) return polygon.status();
  s.polygon = std::make_shared<const PolygonRegion>(*std::move(polygon));
  return s;
}

std::optional<uint64_t> RedisGeoMemberScore(const LatLng& p) {
  const std::optional<uint64_t> bits = RedisGeoScore(p);
  if (!bits) return std::nullopt;
  // ZADD receives the score as a decimal integer and parses it to a double.
  return static_cast<uint64_t>(static_cast<double>(*bits));
}

namespace {

// geohashBoundingBox. The longitude span is taken at the box edge nearer
// the pole, where a metre is the most degrees.
void SetBoundingBox(const RedisGeoShape& shape, RedisGeoAreas* out) {
  if (shape.kind == RedisGeoShape::Kind::kPolygon) {
    out->lon_min = shape.lon_min;
    out->lon_max = shape.lon_max;
    out->lat_min = shape.lat_min;
    out->lat_max = shape.lat_max;
    return;
  }
  const bool circle = shape.kind == RedisGeoShape::Kind::kRadius;
  const double lon = shape.centre.lon;
  const double lat = shape.centre.lat;
  const double half_h =
      shape.unit_to_meters * (circle ? shape.radius : shape.height / 2);
  const double half_w =
      shape.unit_to_meters * (circle ? shape.radius : shape.width / 2);
  const double lat_delta = RadToDeg(half_h / kEarthRadiusMeters);
  const double lon_delta_top = RadToDeg(half_w / kEarthRadiusMeters /
                                        std::cos(DegToRad(lat + lat_delta)));
  const double lon_delta_bottom = RadToDeg(half_w / kEarthRadiusMeters /
                                           std::cos(DegToRad(lat - lat_delta)));
  const double lon_delta = lat < 0 ? lon_delta_bottom : lon_delta_top;
  out->lon_min = lon - lon_delta;
  out->lon_max = lon + lon_delta;
  out->lat_min = lat - lat_delta;
  out->lat_max = lat + lat_delta;
}

// Drops the neighbours on a side where the centre cell already passes the
// bounding box's edge.
void DropNeighborsPastTheBox(const RedisGeoAreas& box, const GeohashArea& area,
                             std::array<GeohashBits, 8>* neighbors) {
  auto zero = [neighbors](std::initializer_list<GeohashDirection> dirs) {
    for (GeohashDirection d : dirs) (*neighbors)[d] = GeohashBits{0, 0};
  };
  if (area.lat_min < box.lat_min) zero({kSouth, kSouthWest, kSouthEast});
  if (area.lat_max > box.lat_max) zero({kNorth, kNorthEast, kNorthWest});
  if (area.lon_min < box.lon_min) zero({kWest, kSouthWest, kNorthWest});
  if (area.lon_max > box.lon_max) zero({kEast, kSouthEast, kNorthEast});
}

// membersOfAllNeighbors: the centre, then the neighbours in Redis's order,
// skipping zeroed ones and one equal to the neighbour scanned just before
// (never compared with the centre: Redis's "last processed" starts unset).
void AddScans(RedisGeoAreas* out) {
  auto add_scan = [out](const GeohashBits& cell) {
    RedisGeoScanRange r;
    r.cell = cell;
    r.min_score = Align52(cell.bits, cell.step);
    r.max_score = Align52(cell.bits + 1, cell.step);
    out->scans.push_back(r);
  };
  add_scan(out->centre);
  const GeohashBits* last_neighbor = nullptr;
  for (GeohashDirection d : kScanOrder) {
    const GeohashBits& cell = out->neighbors[d];
    if (IsZero(cell)) continue;
    if (last_neighbor != nullptr && cell == *last_neighbor) continue;
    add_scan(cell);
    last_neighbor = &cell;
  }
}

// The farthest corner of a polygon's vertex box from its centre, in metres:
// the radius Valkey picks the step by.
double PolygonReachMeters(const RedisGeoShape& shape) {
  const LatLng corners[4] = {{shape.lat_max, shape.lon_min},
                             {shape.lat_max, shape.lon_max},
                             {shape.lat_min, shape.lon_min},
                             {shape.lat_min, shape.lon_max}};
  double reach = 0;
  for (const LatLng& corner : corners) {
    reach = std::max(reach, HaversineMeters(shape.centre, corner));
  }
  return reach;
}

// The radius in metres the step is estimated from: a box's half diagonal.
double StepRadiusMeters(const RedisGeoShape& shape) {
  switch (shape.kind) {
    case RedisGeoShape::Kind::kRadius:
      return shape.radius * shape.unit_to_meters;
    case RedisGeoShape::Kind::kBox:
      return std::sqrt((shape.width / 2) * (shape.width / 2) +
                       (shape.height / 2) * (shape.height / 2)) *
             shape.unit_to_meters;
    case RedisGeoShape::Kind::kPolygon:
      return PolygonReachMeters(shape);
  }
  return 0;
}

}  // namespace

RedisGeoAreas ComputeRedisGeoAreas(const RedisGeoShape& shape) {
  RedisGeoAreas out;
  SetBoundingBox(shape, &out);
  const double radius_meters = StepRadiusMeters(shape);
  int step = EstimateStep(radius_meters, shape.centre.lat);

  std::optional<GeohashBits> centre = GeohashEncode(shape.centre, step);
  if (!centre) {  // Outside Redis's ranges: a precondition violation.
    out.step = step;
    return out;
  }
  std::array<GeohashBits, 8> neighbors = GeohashNeighbors(*centre);

  // If a side neighbour does not reach the bounding box's edge, the 3x3
  // cells may miss part of the shape: Redis then goes one step coarser (once).
  const bool too_fine =
      GeohashDecodeArea(neighbors[kNorth]).lat_max < out.lat_max ||
      GeohashDecodeArea(neighbors[kSouth]).lat_min > out.lat_min ||
      GeohashDecodeArea(neighbors[kEast]).lon_max < out.lon_max ||
      GeohashDecodeArea(neighbors[kWest]).lon_min > out.lon_min;
  if (step > 1 && too_fine) {
    --step;
    centre = GeohashEncode(shape.centre, step);
    neighbors = GeohashNeighbors(*centre);
  }
  const GeohashArea area = GeohashDecodeArea(*centre);
  if (step >= 2) DropNeighborsPastTheBox(out, area, &neighbors);
  out.step = step;
  out.centre = *centre;
  out.centre_area = area;
  out.neighbors = neighbors;
  AddScans(&out);
  return out;
}

int RedisGeoScanIndex(const RedisGeoAreas& areas, uint64_t score) {
  for (size_t i = 0; i < areas.scans.size(); ++i) {
    const RedisGeoScanRange& r = areas.scans[i];
    if (score >= r.min_score && score < r.max_score) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::optional<double> RedisGeoMatch(const RedisGeoShape& shape,
                                    uint64_t score) {
  const LatLng p = RedisGeoScoreToLatLng(score);
  const LatLng& c = shape.centre;
  if (shape.kind == RedisGeoShape::Kind::kPolygon) {
    if (!shape.polygon->Contains(p)) return std::nullopt;
    return HaversineMeters(c, p);
  }
  if (shape.kind == RedisGeoShape::Kind::kRadius) {
    const double d = HaversineMeters(c, p);
    if (d > shape.radius * shape.unit_to_meters) return std::nullopt;
    return d;
  }
  // geohashGetDistanceIfInRectangle: the north-south distance along the
  // centre's meridian, then the east-west one along the member's parallel.
  const double width_m = shape.width * shape.unit_to_meters;
  const double height_m = shape.height * shape.unit_to_meters;
  const double lat_distance =
      kEarthRadiusMeters * std::fabs(DegToRad(c.lat) - DegToRad(p.lat));
  if (lat_distance > height_m / 2) return std::nullopt;
  const double lon_distance = HaversineMeters(p, LatLng{p.lat, c.lon});
  if (lon_distance > width_m / 2) return std::nullopt;
  return HaversineMeters(c, p);
}

std::optional<RedisGeoAccept> RedisGeoSearchMatch(const RedisGeoAreas& areas,
                                                  const RedisGeoShape& shape,
                                                  uint64_t score) {
  const int scan = RedisGeoScanIndex(areas, score);
  if (scan < 0) return std::nullopt;
  const std::optional<double> d = RedisGeoMatch(shape, score);
  if (!d) return std::nullopt;
  return RedisGeoAccept{scan, *d};
}

double RedisGeoCandidateRadiusMeters(const RedisGeoShape& shape) {
  if (shape.kind == RedisGeoShape::Kind::kPolygon) {
    return PolygonReachMeters(shape) + kDecodedMarginMeters;
  }
  if (shape.kind == RedisGeoShape::Kind::kRadius) {
    return shape.radius * shape.unit_to_meters + kDecodedMarginMeters;
  }
  return shape.width * shape.unit_to_meters / 2 +
         shape.height * shape.unit_to_meters / 2 + kDecodedMarginMeters;
}

std::optional<RectRegion> RedisGeoBoxCandidates(const RedisGeoShape& shape) {
  constexpr double kMarginDegrees = 1e-5;
  constexpr double kDegrees = 180 / M_PI;
  const double r = kEarthRadiusMeters;
  const double half_h = shape.height * shape.unit_to_meters / 2;
  const double half_w = shape.width * shape.unit_to_meters / 2;
  const double south =
      shape.centre.lat - half_h / r * kDegrees - kMarginDegrees;
  const double north =
      shape.centre.lat + half_h / r * kDegrees + kMarginDegrees;
  if (!(south > -90 && north < 90) || !(half_w / (2 * r) < M_PI / 2)) {
    return std::nullopt;
  }
  const double farthest = std::max(std::abs(south), std::abs(north));
  const double s = std::sin(half_w / (2 * r)) / std::cos(farthest / kDegrees);
  if (!(s < 1)) return std::nullopt;
  const double half_lon = 2 * std::asin(s) * kDegrees + kMarginDegrees;
  if (!(half_lon < 180)) return std::nullopt;
  auto wrap = [](double lon) {
    return lon < -180 ? lon + 360 : lon > 180 ? lon - 360 : lon;
  };
  absl::StatusOr<RectRegion> rect =
      RectRegion::Create(south, wrap(shape.centre.lon - half_lon), north,
                         wrap(shape.centre.lon + half_lon));
  if (!rect.ok()) return std::nullopt;
  return *std::move(rect);
}

absl::StatusOr<RectRegion> RedisGeoPolygonCandidates(
    const RedisGeoShape& shape) {
  constexpr double kMarginDegrees = 1e-5;
  return RectRegion::Create(std::max(shape.lat_min - kMarginDegrees, -90.0),
                            std::max(shape.lon_min - kMarginDegrees, -180.0),
                            std::min(shape.lat_max + kMarginDegrees, 90.0),
                            std::min(shape.lon_max + kMarginDegrees, 180.0));
}

bool RedisGeoNaturalLess(const RedisGeoResult& a, const RedisGeoResult& b) {
  if (a.scan_index != b.scan_index) return a.scan_index < b.scan_index;
  if (a.score != b.score) return a.score < b.score;
  // std::string compares bytes as unsigned, like memcmp; a prefix sorts
  // first, as in Redis's sdscmp.
  return a.member < b.member;
}

namespace {

// The candidates the shape accepts, in Redis's scan order (the natural
// order of an unsorted reply).
std::vector<RedisGeoResult> AcceptedCandidates(
    const RedisGeoShape& shape,
    const std::vector<RedisGeoCandidate>& candidates) {
  const RedisGeoAreas areas = ComputeRedisGeoAreas(shape);
  std::vector<RedisGeoResult> out;
  for (const RedisGeoCandidate& c : candidates) {
    const std::optional<RedisGeoAccept> hit =
        RedisGeoSearchMatch(areas, shape, c.score);
    if (!hit) continue;
    out.push_back(
        RedisGeoResult{c.member, c.score, hit->scan_index, hit->distance_m});
  }
  std::sort(out.begin(), out.end(), RedisGeoNaturalLess);
  return out;
}

// Sorts `out` by distance (sign 1 ascending, -1 descending) as Redis does
// for a reply of `count` members (0: all).
void SortByDistance(int sign, size_t count, std::vector<RedisGeoResult>* out) {
  if (count == 0 || count >= out->size()) {
    // glibc's qsort: a merge sort, stable.
    std::stable_sort(out->begin(), out->end(),
                     [sign](const RedisGeoResult& a, const RedisGeoResult& b) {
                       return sign * CompareDistance(a, b) < 0;
                     });
  } else {
    PartialQuickSort(out, sign, 0, count - 1).Sort(0, out->size());
  }
}

}  // namespace

std::vector<RedisGeoResult> RedisGeoSearch(
    const RedisGeoShape& shape,
    const std::vector<RedisGeoCandidate>& candidates,
    const RedisGeoReplyOptions& options) {
  std::vector<RedisGeoResult> out = AcceptedCandidates(shape, candidates);

  const size_t count = options.count > 0 ? options.count : 0;
  // ANY stops the scan as soon as `count` members were accepted.
  if (options.any && count > 0 && out.size() > count) out.resize(count);

  RedisGeoSort sort = options.sort;
  if (count > 0 && sort == RedisGeoSort::kNone && !options.any) {
    sort = RedisGeoSort::kAsc;
  }
  if (sort != RedisGeoSort::kNone) {
    SortByDistance(sort == RedisGeoSort::kAsc ? 1 : -1, count, &out);
  }
  if (count > 0 && out.size() > count) out.resize(count);
  return out;
}

bool RedisGeoWantsNearest(const RedisGeoReplyOptions& options) {
  return options.count > 0 && !options.any &&
         options.sort != RedisGeoSort::kDesc;
}

std::optional<std::vector<RedisGeoResult>> RedisGeoNearestFromInner(
    const RedisGeoShape& shape, const std::vector<RedisGeoCandidate>& inner,
    double inner_radius_m, int64_t count) {
  const size_t n = static_cast<size_t>(count);
  std::vector<RedisGeoResult> out = RedisGeoSearch(
      shape, inner, RedisGeoReplyOptions{RedisGeoSort::kAsc, 0, false});
  if (out.size() < n ||
      !(out[n - 1].distance_m <= inner_radius_m - kDecodedMarginMeters)) {
    return std::nullopt;
  }
  for (size_t i = 1; i < std::min(n + 1, out.size()); ++i) {
    if (out[i].distance_m == out[i - 1].distance_m) return std::nullopt;
  }
  out.resize(n);
  return out;
}

}  // namespace trackdb::index
