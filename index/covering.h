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
#include <vector>

#include "index/latlng.h"
#include "index/region.h"

namespace trackdb::index {

// The index key of a position: its S2 leaf cell id. Requires a valid LatLng.
uint64_t CellIdOf(const LatLng& p);

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

}  // namespace trackdb::index

#endif  // TRACKDB_INDEX_COVERING_H_
