// Spatial queries over the latest index (storage/points/latest_index.h).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "index/covering.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

// Reads the whole latest point of each hit in one MultiGet and visits those
// the region still contains: an entity that moved or went after the index
// was read is seen where it is now, or not at all.
absl::Status VisitWholePoints(
    Engine& engine, absl::string_view collection, const index::Region& region,
    const std::vector<LatestIndex::Hit>& hits,
    const std::function<bool(const model::TrackPoint&)>& visit) {
  constexpr size_t kChunk = 256;  // bounds the values held at once
  model::TrackPoint point;
  for (size_t start = 0; start < hits.size(); start += kChunk) {
    const size_t n = std::min(kChunk, hits.size() - start);
    std::vector<std::string> key_bytes(n);
    std::vector<rocksdb::Slice> keys(n);
    for (size_t i = 0; i < n; ++i) {
      key_bytes[i] = LatestKey(collection, hits[start + i].entity);
      keys[i] = rocksdb::Slice(key_bytes[i]);
    }
    std::vector<rocksdb::PinnableSlice> values(n);
    std::vector<rocksdb::Status> statuses(n);
    engine.db->MultiGet(rocksdb::ReadOptions(), engine.latest(), n, keys.data(),
                        values.data(), statuses.data());
    for (size_t i = 0; i < n; ++i) {
      if (statuses[i].IsNotFound()) continue;
      if (!statuses[i].ok()) return FromRocks(statuses[i], "reading latest");
      point = model::TrackPoint();
      if (absl::Status s = DecodePointValue(SliceView(values[i]), &point);
          !s.ok()) {
        return s;
      }
      if (!region.Contains({point.lat, point.lon})) continue;
      point.entity = hits[start + i].entity;
      if (!visit(point)) return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status TrackStore::ScanRegion(
    absl::string_view collection, const index::Region& region,
    const std::function<bool(const model::TrackPoint&)>& visit) {
  return ScanRegion(collection, region, visit, ScanOptions());
}

absl::Status TrackStore::ScanRegion(
    absl::string_view collection, const index::Region& region,
    const std::function<bool(const model::TrackPoint&)>& visit,
    const ScanOptions& options) {
  engine_->activity.AddRegionScan();
  ScanStats unused;
  ScanStats* stats = options.stats ? options.stats : &unused;
  const std::vector<index::CellRange> ranges = index::Covering(region);
  if (ranges.empty()) return absl::OkStatus();
  // The hits are copied out under the collection's index lock, one
  // consistent view, and visited after it is released: `visit` may take
  // its time.
  std::vector<LatestIndex::Hit> hits;
  stats->ranges += ranges.size();
  stats->keys_read += engine_->latest_index.Scan(
      collection, ranges,
      // The covering over-approximates; this is the exact test.
      [&](const PointPosition& p) {
        return region.Contains({p.lat, p.lon});
      },
      &hits);
  stats->hits += hits.size();
  if (!options.positions_only) {
    return VisitWholePoints(*engine_, collection, region, hits, visit);
  }
  model::TrackPoint point;
  for (LatestIndex::Hit& hit : hits) {
    point.entity = std::move(hit.entity);
    point.loc_time_ms = hit.position.loc_time_ms;
    point.lat = hit.position.lat;
    point.lon = hit.position.lon;
    if (!visit(point)) break;
  }
  return absl::OkStatus();
}

}  // namespace trackdb::storage
