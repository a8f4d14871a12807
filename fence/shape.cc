#include "fence/shape.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "index/distance.h"
#include "index/planar.h"
#include "model/validate.h"

namespace trackdb::fence {
namespace {

using index::LatLng;

absl::Status Named(absl::string_view field, const absl::Status& s) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", s.message()));
}

absl::StatusOr<index::PolygonRegion> CompileRing(
    const google::protobuf::RepeatedPtrField<v1::LatLng>& vertices,
    const std::string& field) {
  std::vector<LatLng> ring;
  for (int i = 0; i < vertices.size(); ++i) {
    ring.push_back({vertices[i].latitude(), vertices[i].longitude()});
    const std::string at = absl::StrCat(field, ".vertices[", i, "]");
    absl::Status s =
        model::ValidatePosition(ring.back().lat, ring.back().lon, at);
    if (!s.ok()) return s;
  }
  auto region = index::PolygonRegion::Create(std::move(ring));
  if (!region.ok()) return Named(field, region.status());
  return region;
}

absl::StatusOr<index::CircleRegion> CompileCircle(const v1::FenceCircle& c,
                                                  const model::Limits& limits) {
  if (!c.has_center()) {
    return absl::InvalidArgumentError("circle.center: required");
  }
  absl::Status s = model::ValidatePosition(
      c.center().latitude(), c.center().longitude(), "circle.center");
  if (!s.ok()) return s;
  if (!(c.radius_m() > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "circle.radius_m must be a number > 0, got ", c.radius_m()));
  }
  s = model::ValidateRadius(c.radius_m(), "circle.radius_m", limits);
  if (!s.ok()) return s;
  return index::CircleRegion::Create(
      {c.center().latitude(), c.center().longitude()}, c.radius_m());
}

absl::StatusOr<index::RectRegion> CompileRect(const v1::FenceRect& r) {
  if (!r.has_south_west() || !r.has_north_east()) {
    return absl::InvalidArgumentError(
        "rect.south_west and rect.north_east: both required");
  }
  for (const auto& [corner, field] :
       {std::pair{&r.south_west(), "rect.south_west"},
        std::pair{&r.north_east(), "rect.north_east"}}) {
    absl::Status s =
        model::ValidatePosition(corner->latitude(), corner->longitude(), field);
    if (!s.ok()) return s;
  }
  auto rect = index::RectRegion::Create(
      r.south_west().latitude(), r.south_west().longitude(),
      r.north_east().latitude(), r.north_east().longitude());
  if (!rect.ok()) return Named("rect", rect.status());
  return rect;
}

using PolygonParts =
    std::pair<index::PolygonRegion, std::vector<index::PolygonRegion>>;

absl::StatusOr<PolygonParts> CompilePolygon(const v1::FencePolygon& p,
                                            const model::Limits& limits) {
  size_t total = p.vertices_size();
  for (const v1::FenceRing& hole : p.holes()) total += hole.vertices_size();
  absl::Status s = model::ValidatePolygonSize(
      total, "polygon.vertices (holes included)", limits);
  if (!s.ok()) return s;
  auto outer = CompileRing(p.vertices(), "polygon");
  if (!outer.ok()) return outer.status();
  PolygonParts parts{*std::move(outer), {}};
  for (int i = 0; i < p.holes_size(); ++i) {
    auto hole = CompileRing(p.holes(i).vertices(),
                            absl::StrCat("polygon.holes[", i, "]"));
    if (!hole.ok()) return hole.status();
    parts.second.push_back(*std::move(hole));
  }
  return parts;
}

// Whether the segment a-b (not crossing the antimeridian) meets the
// rectangle [south, north] x [west, east] with west <= east.
bool SegmentMeetsBox(const LatLng& a, const LatLng& b, double south,
                     double west, double north, double east) {
  auto in = [&](const LatLng& p) {
    return p.lat >= south && p.lat <= north && p.lon >= west && p.lon <= east;
  };
  if (in(a) || in(b)) return true;
  const LatLng sw{south, west}, nw{north, west}, ne{north, east},
      se{south, east};
  return index::SegmentsIntersect(a, b, sw, nw) ||
         index::SegmentsIntersect(a, b, nw, ne) ||
         index::SegmentsIntersect(a, b, ne, se) ||
         index::SegmentsIntersect(a, b, se, sw);
}

LatLng Lerp(const LatLng& a, const LatLng& b, double t) {
  return {a.lat + (b.lat - a.lat) * t, a.lon + (b.lon - a.lon) * t};
}

// The least haversine distance from `centre` to the segment a-b: the best
// of 32 evenly spaced points, then a golden-section search around it (the
// distance is unimodal within one such step for any fence-sized path).
double SegmentDistance(const LatLng& a, const LatLng& b, const LatLng& centre) {
  constexpr int kSteps = 32;
  int best = 0;
  double best_d = index::HaversineMeters(a, centre);
  for (int i = 1; i <= kSteps; ++i) {
    const double d = index::HaversineMeters(
        Lerp(a, b, static_cast<double>(i) / kSteps), centre);
    if (d < best_d) best_d = d, best = i;
  }
  double lo = std::max(0, best - 1) / static_cast<double>(kSteps);
  double hi = std::min(kSteps, best + 1) / static_cast<double>(kSteps);
  constexpr double kGolden = 0.6180339887498949;
  for (int i = 0; i < 80 && hi - lo > 1e-15; ++i) {
    const double m1 = hi - (hi - lo) * kGolden;
    const double m2 = lo + (hi - lo) * kGolden;
    if (index::HaversineMeters(Lerp(a, b, m1), centre) <
        index::HaversineMeters(Lerp(a, b, m2), centre)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  return std::min(best_d,
                  index::HaversineMeters(Lerp(a, b, (lo + hi) / 2), centre));
}

// Appends where along a-b (0 at a, 1 at b) it meets each edge of `ring`:
// the crossing, or where an edge along the path begins and ends.
void AppendCrossings(const std::vector<LatLng>& ring, const LatLng& a,
                     const LatLng& b, std::vector<double>* ts) {
  const double dx = b.lon - a.lon, dy = b.lat - a.lat;
  const double length2 = dx * dx + dy * dy;
  if (length2 == 0) return;
  auto along = [&](const LatLng& p) {
    return std::clamp(((p.lon - a.lon) * dx + (p.lat - a.lat) * dy) / length2,
                      0.0, 1.0);
  };
  for (size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
    const LatLng& c = ring[j];
    const LatLng& d = ring[i];
    if (!index::SegmentsIntersect(a, b, c, d)) continue;
    const double ex = d.lon - c.lon, ey = d.lat - c.lat;
    const double denominator = dx * ey - dy * ex;
    if (denominator == 0) {  // along the path
      ts->push_back(along(c));
      ts->push_back(along(d));
    } else {
      const double t =
          ((c.lon - a.lon) * ey - (c.lat - a.lat) * ex) / denominator;
      ts->push_back(std::clamp(t, 0.0, 1.0));
    }
  }
}

}  // namespace

absl::StatusOr<FenceShape> FenceShape::FromProto(const v1::Fence& fence,
                                                 const model::Limits& limits) {
  switch (fence.shape_case()) {
    case v1::Fence::kCircle: {
      auto c = CompileCircle(fence.circle(), limits);
      if (!c.ok()) return c.status();
      return FenceShape(*std::move(c));
    }
    case v1::Fence::kRect: {
      auto r = CompileRect(fence.rect());
      if (!r.ok()) return r.status();
      return FenceShape(*std::move(r));
    }
    case v1::Fence::kPolygon: {
      auto p = CompilePolygon(fence.polygon(), limits);
      if (!p.ok()) return p.status();
      return FenceShape(
          FenceShape::Polygon{std::move(p->first), std::move(p->second)});
    }
    case v1::Fence::kRoam:  // no fixed area: fence::CompileFence's Roam
    case v1::Fence::SHAPE_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "shape: one of circle, rect, polygon or roam is required");
}

bool FenceShape::Contains(const LatLng& p) const {
  if (const auto* c = std::get_if<index::CircleRegion>(&area_)) {
    return c->Contains(p);
  }
  if (const auto* r = std::get_if<index::RectRegion>(&area_)) {
    return r->Contains(p);
  }
  const auto& poly = std::get<Polygon>(area_);
  if (!poly.outer.Contains(p)) return false;
  for (const index::PolygonRegion& hole : poly.holes) {
    if (hole.Contains(p) && !hole.OnBoundary(p)) return false;
  }
  return true;
}

bool FenceShape::PathMeets(const LatLng& a, const LatLng& b) const {
  if (std::abs(b.lon - a.lon) <= 180) return SegmentMeets(a, b);
  // The short way crosses the antimeridian: split the path there.
  const double edge = a.lon > 0 ? 180 : -180;
  const double b_lon = b.lon + (a.lon > 0 ? 360 : -360);
  const double t = (edge - a.lon) / (b_lon - a.lon);
  const double lat = a.lat + (b.lat - a.lat) * t;
  return SegmentMeets(a, {lat, edge}) || SegmentMeets({lat, -edge}, b);
}

bool FenceShape::SegmentMeets(const LatLng& a, const LatLng& b) const {
  if (Contains(a) || Contains(b)) return true;
  if (const auto* c = std::get_if<index::CircleRegion>(&area_)) {
    // The path is no longer than its lon/lat extent in radians times the
    // radius: a cheap way out for fences far away.
    const double span = std::hypot(b.lat - a.lat, b.lon - a.lon) * M_PI / 180;
    if (index::HaversineMeters(a, c->centre()) - c->radius_m() >
        span * index::kEarthRadiusMeters) {
      return false;
    }
    return SegmentDistance(a, b, c->centre()) <= c->radius_m();
  }
  if (const auto* r = std::get_if<index::RectRegion>(&area_)) {
    if (r->west() <= r->east()) {
      return SegmentMeetsBox(a, b, r->south(), r->west(), r->north(),
                             r->east());
    }
    return SegmentMeetsBox(a, b, r->south(), r->west(), r->north(), 180) ||
           SegmentMeetsBox(a, b, r->south(), -180, r->north(), r->east());
  }
  // Both ends are outside. Between two places where the path meets a
  // ring, it is wholly in the area or wholly out of it: look at those
  // places and at one point between each two. (A ring alone does not
  // decide: a hole's edge may lie outside the outer ring, and the outer
  // ring's edge inside a hole.)
  const auto& poly = std::get<Polygon>(area_);
  std::vector<double> ts = {0, 1};
  AppendCrossings(poly.outer.vertices(), a, b, &ts);
  for (const index::PolygonRegion& hole : poly.holes) {
    AppendCrossings(hole.vertices(), a, b, &ts);
  }
  std::sort(ts.begin(), ts.end());
  for (size_t i = 1; i < ts.size(); ++i) {
    if (Contains(Lerp(a, b, ts[i])) ||
        Contains(Lerp(a, b, (ts[i - 1] + ts[i]) / 2))) {
      return true;
    }
  }
  return false;
}

std::unique_ptr<S2Region> FenceShape::SphericalBound() const {
  if (const auto* poly = std::get_if<Polygon>(&area_)) {
    return poly->outer.SphericalBound();
  }
  if (const auto* c = std::get_if<index::CircleRegion>(&area_)) {
    return c->SphericalBound();
  }
  return std::get<index::RectRegion>(area_).SphericalBound();
}

}  // namespace trackdb::fence
