#include "fence/fence_index.h"

#include <algorithm>
#include <cmath>

#include "s2/s2latlng.h"
#include "s2/s2latlng_rect.h"
#include "s2/s2region_coverer.h"

namespace trackdb::fence {
namespace {

S2CellId CellOf(const index::LatLng& p) {
  return S2CellId(S2LatLng::FromDegrees(p.lat, p.lon).Normalized());
}

void SortUnique(std::vector<uint64_t>* ids, size_t from) {
  std::sort(ids->begin() + from, ids->end());
  ids->erase(std::unique(ids->begin() + from, ids->end()), ids->end());
}

// The path's bounding rectangle, the short way round, with a margin for
// the rounding between degrees and S2's points.
S2LatLngRect PathBound(const index::LatLng& a, const index::LatLng& b) {
  double west = a.lon, east = b.lon;
  if (std::abs(east - west) > 180 ? west < east : west > east) {
    std::swap(west, east);
  }
  const S2LatLngRect rect(R1Interval(std::min(a.lat, b.lat) * M_PI / 180,
                                     std::max(a.lat, b.lat) * M_PI / 180),
                          S1Interval(west * M_PI / 180, east * M_PI / 180));
  return rect.ExpandedByDistance(S1Angle::Radians(1e-9));
}

}  // namespace

void FenceIndex::Add(uint64_t id, const FenceShape& shape) {
  Remove(id);
  S2RegionCoverer::Options options;
  options.set_max_cells(kMaxCells);
  S2RegionCoverer coverer(options);
  std::vector<S2CellId> cells;
  coverer.GetCovering(*shape.SphericalBound(), &cells);
  for (S2CellId cell : cells) {
    auto& ids = fences_in_[cell.id()];
    if (ids.empty()) cells_.insert(cell);
    ids.push_back(id);
    ++fences_at_level_[cell.level()];
  }
  cells_of_[id] = std::move(cells);
}

void FenceIndex::Remove(uint64_t id) {
  auto it = cells_of_.find(id);
  if (it == cells_of_.end()) return;
  for (S2CellId cell : it->second) {
    auto filed = fences_in_.find(cell.id());
    auto& ids = filed->second;
    ids.erase(std::find(ids.begin(), ids.end(), id));
    if (ids.empty()) {
      fences_in_.erase(filed);
      cells_.erase(cell);
    }
    --fences_at_level_[cell.level()];
  }
  cells_of_.erase(it);
}

void FenceIndex::Collect(S2CellId cell, std::vector<uint64_t>* out) const {
  auto it = fences_in_.find(cell.id());
  if (it != fences_in_.end()) {
    out->insert(out->end(), it->second.begin(), it->second.end());
  }
}

void FenceIndex::Candidates(const index::LatLng& p,
                            std::vector<uint64_t>* out) const {
  const size_t from = out->size();
  const S2CellId leaf = CellOf(p);
  for (int level = 0; level <= S2CellId::kMaxLevel; ++level) {
    if (fences_at_level_[level] > 0) Collect(leaf.parent(level), out);
  }
  SortUnique(out, from);
}

void FenceIndex::PathCandidates(const index::LatLng& a, const index::LatLng& b,
                                std::vector<uint64_t>* out) const {
  const size_t from = out->size();
  // A few cells around the path's bound (its cap's), not a covering: a
  // covering costs tens of microseconds, and this is once per fix.
  std::vector<S2CellId> cover;
  PathBound(a, b).GetCellUnionBound(&cover);
  for (S2CellId cell : cover) {
    // Fences filed above the cell, then at or below it.
    for (int level = 0; level < cell.level(); ++level) {
      if (fences_at_level_[level] > 0) Collect(cell.parent(level), out);
    }
    for (auto it = cells_.lower_bound(cell.range_min());
         it != cells_.end() && *it <= cell.range_max(); ++it) {
      Collect(*it, out);
    }
  }
  SortUnique(out, from);
}

}  // namespace trackdb::fence
