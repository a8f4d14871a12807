#include "index/covering.h"

#include "s2/s2cell_id.h"
#include "s2/s2latlng.h"
#include "s2/s2region_coverer.h"

namespace trackdb::index {

uint64_t CellIdOf(const LatLng& p) {
  return S2CellId(S2LatLng::FromDegrees(p.lat, p.lon).ToPoint()).id();
}

std::vector<CellRange> Covering(const Region& region,
                                const CoveringOptions& options) {
  S2RegionCoverer::Options coverer_options;
  coverer_options.set_max_cells(options.max_cells);
  S2RegionCoverer coverer(coverer_options);
  std::vector<S2CellId> cells;
  coverer.GetCovering(*region.SphericalBound(), &cells);  // sorted, disjoint

  std::vector<CellRange> ranges;
  for (const S2CellId& cell : cells) {
    const uint64_t first = cell.range_min().id();
    const uint64_t last = cell.range_max().id();
    // Leaf ids are odd, so consecutive leaves differ by 2.
    if (!ranges.empty() && first <= ranges.back().last + 2) {
      ranges.back().last = std::max(ranges.back().last, last);
    } else {
      ranges.push_back({first, last});
    }
  }
  return ranges;
}

}  // namespace trackdb::index
