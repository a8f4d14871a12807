#ifndef TRACKDB_INDEX_COVERING_H_
#define TRACKDB_INDEX_COVERING_H_

// The spatial index key and its coverings.
//
// A position's index key is its S2 leaf cell id (level 30, ~1 cm): a 64-bit
// position on S2's Hilbert curve over the whole sphere, so poles and the
// antimeridian are ordinary places. (Redis's 52-bit geohash cannot hold
// |latitude| > 85.05112878; the Redis score is derived from lat/lon when a
// Redis command needs it, see index/geohash.h.)
//
// A covering is a short, sorted list of disjoint inclusive ranges of leaf
// cell ids whose union contains the leaf cell of every point the region's
// Contains() accepts. Storage scans exactly those ranges and then filters
// with Contains(), so results are exact; the ranges only bound the cost.

#include <cstdint>
#include <optional>
#include <vector>

#include "index/latlng.h"
#include "index/region.h"
#include "s2/s2cap.h"
#include "s2/s2latlng_rect.h"

namespace trackdb::index {

// The index key of a position: its S2 leaf cell id. Requires a valid LatLng.
uint64_t CellIdOf(const LatLng& p);

// The id of the S2 cell at `level` (0 to 30) that holds position p.
uint64_t CellIdAtLevel(const LatLng& p, int level);

struct CellRange {
  uint64_t first;  // inclusive
  uint64_t last;   // inclusive
  bool operator==(const CellRange& o) const {
    return first == o.first && last == o.last;
  }
};

struct CoveringOptions {
  // At most this many S2 cells before merging adjacent ones: more cells hug
  // the region closer (fewer false positives to filter) but cost more seeks.
  int max_cells = 12;
};

std::vector<CellRange> Covering(const Region& region,
                                const CoveringOptions& options = {});

// The covering of a cap of at most 2 km radius away from the poles and the
// antimeridian, without S2RegionCoverer (which costs ~40 us for a 200 m
// circle, more than the rest of a small search): the cap's
// latitude/longitude bound projected onto its cube face is a (u, v)
// rectangle, and every cell at least a quarter of the radius wide that the
// rectangle (with a margin) touches is in the covering, merged into at most
// `max_ranges` ranges. nullopt where that does not apply (larger caps, near
// a pole, across the antimeridian or a cube face's edge). Covering() uses it
// for circles.
std::optional<std::vector<CellRange>> SmallCapCovering(const S2Cap& cap,
                                                       int max_ranges);
// The same for a latitude/longitude rectangle at most 4 km on its longer
// side (Covering() uses it for rectangles: GEOSEARCH BYBOX's candidates,
// gRPC SearchBounds).
std::optional<std::vector<CellRange>> SmallLatLngRectCovering(
    const S2LatLngRect& rect, int max_ranges);

// The cells at `level` that meet any of `ranges` (a covering: sorted,
// disjoint leaf ranges) as sorted, disjoint, inclusive ranges of their ids
// (cell ids at one level are ordered as their leaves are, so each leaf
// range becomes one range). Neighbouring ranges are joined.
std::vector<CellRange> CoarsenCovering(const std::vector<CellRange>& ranges,
                                       int level);

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_COVERING_H_
