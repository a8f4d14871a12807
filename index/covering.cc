#include "index/covering.h"

#include <algorithm>
#include <cmath>

#include "index/distance.h"
#include "s2/s2cap.h"
#include "s2/s2cell_id.h"
#include "s2/s2coords.h"
#include "s2/s2latlng.h"
#include "s2/s2latlng_rect.h"
#include "s2/s2metrics.h"
#include "s2/s2region_coverer.h"

namespace trackdb::index {
namespace {

// Sorted, disjoint ranges from cell ranges in any order: adjacent and
// overlapping ones joined, then, while there are more than `max_ranges`,
// the two with the smallest gap between them (the gap is read too).
std::vector<CellRange> MergeRanges(std::vector<CellRange> cells,
                                   size_t max_ranges) {
  std::sort(
      cells.begin(), cells.end(),
      [](const CellRange& a, const CellRange& b) { return a.first < b.first; });
  std::vector<CellRange> ranges;
  for (const CellRange& c : cells) {
    // Leaf ids are odd, so consecutive leaves differ by 2.
    if (!ranges.empty() && c.first <= ranges.back().last + 2) {
      ranges.back().last = std::max(ranges.back().last, c.last);
    } else {
      ranges.push_back(c);
    }
  }
  while (ranges.size() > max_ranges) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < ranges.size(); ++i) {
      if (ranges[i + 1].first - ranges[i].last <
          ranges[best + 1].first - ranges[best].last) {
        best = i;
      }
    }
    ranges[best].last = ranges[best + 1].last;
    ranges.erase(ranges.begin() + best + 1);
  }
  return ranges;
}

}  // namespace

namespace {

// The fast covering of a small lat/lng rectangle of `angle` across at most
// (a cap's radius, a rectangle's half side): every cell at least a quarter
// of `angle` wide that the rectangle's (u, v) bound on its face touches.
std::optional<std::vector<CellRange>> SmallRectCovering(
    const S2LatLngRect& rect, double angle, int max_ranges) {
  constexpr double kMaxAngle = 2000 / kEarthRadiusMeters;  // 2 km
  if (!(angle > 0 && angle <= kMaxAngle)) return std::nullopt;
  if (rect.lng().is_inverted() || rect.lng().is_full() ||
      std::abs(rect.lat().lo()) > 80 * M_PI / 180 ||
      std::abs(rect.lat().hi()) > 80 * M_PI / 180) {
    return std::nullopt;  // across the antimeridian, or near a pole
  }
  // The rectangle's corners and edge midpoints on the cube face: every
  // one on the centre's face, or the rectangle may cross onto another.
  double u_lo = 2, u_hi = -2, v_lo = 2, v_hi = -2;
  const int face = S2::GetFace(rect.GetCenter().ToPoint());
  const double lats[] = {rect.lat().lo(), rect.lat().GetCenter(),
                         rect.lat().hi()};
  const double lngs[] = {rect.lng().lo(), rect.lng().GetCenter(),
                         rect.lng().hi()};
  for (double lat : lats) {
    for (double lng : lngs) {
      double u, v;
      if (S2::XYZtoFaceUV(S2LatLng::FromRadians(lat, lng).ToPoint(), &u, &v) !=
          face) {
        return std::nullopt;
      }
      u_lo = std::min(u_lo, u), u_hi = std::max(u_hi, u);
      v_lo = std::min(v_lo, v), v_hi = std::max(v_hi, v);
    }
  }
  // Parallels and meridians curve on the face by far less than this
  // between the sampled points (centimetres at 2 km); a (u, v) step is
  // at least the angle it spans.
  const double slack = angle / 100;
  // Cells at least a quarter of `angle` wide: at most 17 x 17 of them.
  const int level =
      std::min(S2::kMinWidth.GetLevelForMinValue(angle / 8), S2::kMaxCellLevel);
  const int shift = S2::kMaxCellLevel - level;
  auto ij = [&](double uv) {
    return S2::STtoIJ(S2::UVtoST(std::clamp(uv, -1.0, 1.0))) >> shift;
  };
  const int i_lo = ij(u_lo - slack), i_hi = ij(u_hi + slack);
  const int j_lo = ij(v_lo - slack), j_hi = ij(v_hi + slack);
  if ((i_hi - i_lo + 1) * (j_hi - j_lo + 1) > 400) return std::nullopt;
  std::vector<CellRange> cells;
  for (int i = i_lo; i <= i_hi; ++i) {
    for (int j = j_lo; j <= j_hi; ++j) {
      const S2CellId cell =
          S2CellId::FromFaceIJ(face, i << shift, j << shift).parent(level);
      cells.push_back({cell.range_min().id(), cell.range_max().id()});
    }
  }
  return MergeRanges(std::move(cells), static_cast<size_t>(max_ranges));
}

}  // namespace

std::optional<std::vector<CellRange>> SmallCapCovering(const S2Cap& cap,
                                                       int max_ranges) {
  return SmallRectCovering(cap.GetRectBound(), cap.GetRadius().radians(),
                           max_ranges);
}

std::optional<std::vector<CellRange>> SmallLatLngRectCovering(
    const S2LatLngRect& rect, int max_ranges) {
  if (rect.is_empty()) return std::nullopt;
  // Half the longer side, east-west measured where the rectangle is widest.
  const double lat_half = rect.lat().GetLength() / 2;
  const double widest =
      std::min(std::abs(rect.lat().lo()), std::abs(rect.lat().hi()));
  const double lng_half = rect.lng().GetLength() / 2 *
                          std::cos(rect.lat().Contains(0) ? 0 : widest);
  return SmallRectCovering(rect, std::max(lat_half, lng_half), max_ranges);
}

uint64_t CellIdOf(const LatLng& p) {
  return S2CellId(S2LatLng::FromDegrees(p.lat, p.lon).ToPoint()).id();
}

uint64_t CellIdAtLevel(const LatLng& p, int level) {
  return S2CellId(S2LatLng::FromDegrees(p.lat, p.lon).ToPoint())
      .parent(level)
      .id();
}

std::vector<CellRange> CoarsenCovering(const std::vector<CellRange>& ranges,
                                       int level) {
  std::vector<CellRange> out;
  for (const CellRange& r : ranges) {
    const uint64_t first = S2CellId(r.first).parent(level).id();
    const uint64_t last = S2CellId(r.last).parent(level).id();
    // Ids of consecutive cells at one level differ by twice their lowest
    // set bit.
    if (!out.empty() && first <= out.back().last + 2 * (first & -first)) {
      out.back().last = std::max(out.back().last, last);
    } else {
      out.push_back({first, last});
    }
  }
  return out;
}

std::vector<CellRange> Covering(const Region& region,
                                const CoveringOptions& options) {
  const std::unique_ptr<S2Region> bound = region.SphericalBound();
  if (const auto* cap = dynamic_cast<const S2Cap*>(bound.get())) {
    if (std::optional<std::vector<CellRange>> fast =
            SmallCapCovering(*cap, options.max_cells)) {
      return *std::move(fast);
    }
  }
  if (const auto* rect = dynamic_cast<const S2LatLngRect*>(bound.get())) {
    if (std::optional<std::vector<CellRange>> fast =
            SmallLatLngRectCovering(*rect, options.max_cells)) {
      return *std::move(fast);
    }
  }
  S2RegionCoverer::Options coverer_options;
  coverer_options.set_max_cells(options.max_cells);
  S2RegionCoverer coverer(coverer_options);
  std::vector<S2CellId> cells;
  coverer.GetCovering(*bound, &cells);  // sorted, disjoint
  std::vector<CellRange> ranges;
  for (const S2CellId& cell : cells) {
    ranges.push_back({cell.range_min().id(), cell.range_max().id()});
  }
  return MergeRanges(std::move(ranges), cells.size());
}

}  // namespace trackdb::index
