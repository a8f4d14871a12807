#ifndef TRACKDB_FENCE_FENCE_INDEX_H_
#define TRACKDB_FENCE_FENCE_INDEX_H_

// Which fences a fix may concern, without looking at every fence of the
// collection. Each fence is filed under the S2 cells of a covering of its
// shape's bound (FenceShape::SphericalBound, at most kMaxCells cells); a
// fix finds the fences filed under the cells that contain it, one lookup
// per cell level in use, and a path between two fixes finds those filed
// under, above or below a few cells around the path's bounding rectangle.
//
// Both answers are supersets: every fence whose area contains the fix
// (meets the path) is among them, and the caller decides with FenceShape.
// Not thread-safe; the owner locks.

#include <cstdint>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "fence/shape.h"
#include "index/latlng.h"
#include "s2/s2cell_id.h"

namespace trackdb::fence {

class FenceIndex {
 public:
  static constexpr int kMaxCells = 8;

  // Files fence `id` (the caller's handle) under its shape's covering; an
  // id already filed is refiled.
  void Add(uint64_t id, const FenceShape& shape);
  void Remove(uint64_t id);
  size_t size() const { return cells_of_.size(); }

  // Appends the ids of fences whose area may contain p, each once.
  void Candidates(const index::LatLng& p, std::vector<uint64_t>* out) const;
  // Appends the ids of fences whose area may meet the path a-b (straight
  // in lon/lat, the short way round), each once.
  void PathCandidates(const index::LatLng& a, const index::LatLng& b,
                      std::vector<uint64_t>* out) const;

 private:
  void Collect(S2CellId cell, std::vector<uint64_t>* out) const;

  // The fences filed under each cell (one hash lookup per level for a
  // fix), and the same cells in order (the range scans of a path).
  absl::flat_hash_map<uint64_t, std::vector<uint64_t>> fences_in_;
  absl::btree_set<S2CellId> cells_;
  absl::flat_hash_map<uint64_t, std::vector<S2CellId>> cells_of_;
  int fences_at_level_[S2CellId::kMaxLevel + 1] = {};
};

}  // namespace trackdb::fence

#endif  // TRACKDB_FENCE_FENCE_INDEX_H_
