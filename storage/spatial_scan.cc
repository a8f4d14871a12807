// Spatial queries over the geo column family.
#include "absl/strings/str_cat.h"
#include "index/covering.h"
#include "storage/engine.h"
#include "storage/keys.h"
#include "storage/point_codec.h"
#include "storage/rocks_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

// Overwrites the last 8 bytes of `key` (a GeoSeekKey) with `cell`.
void SetCell(std::string* key, uint64_t cell) {
  char* p = key->data() + key->size() - 8;
  for (int i = 7; i >= 0; --i, cell >>= 8) p[i] = static_cast<char>(cell);
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
  ScanStats unused;
  ScanStats* stats = options.stats ? options.stats : &unused;
  const std::vector<index::CellRange> ranges = index::Covering(region);
  if (ranges.empty()) return absl::OkStatus();
  const std::string prefix = CollectionPrefix(collection);
  // Seek target and exclusive upper bound, rewritten in place per range.
  std::string begin = GeoSeekKey(collection, 0);
  std::string end = begin;
  // ONE iterator for all ranges: its implicit snapshot makes the whole scan
  // one consistent view (no explicit snapshot, whose acquire and release
  // both take the DB mutex), and it is built once, not once per range.
  //
  // It is bounded at the current range's end, because entities that moved
  // leave Delete tombstones in the geo CF and an unbounded iterator would
  // walk through all of them between the last live key in range and the
  // next one. RocksDB keeps a pointer to `upper` and reads the bound through
  // it, so rewriting `end` before each Seek moves the bound. The ranges are
  // sorted and disjoint, so the bound only grows: what the iterator
  // concluded about the old bound (a block or file lies wholly below it)
  // stays true for the new one. The loop still checks each key's cell
  // against the range itself, so a key past the bound is never visited.
  rocksdb::Slice upper(end);
  rocksdb::ReadOptions read;
  read.iterate_upper_bound = &upper;
  SetCell(&end, ranges.front().last + 1);
  std::unique_ptr<rocksdb::Iterator> it(
      engine_->db->NewIterator(read, engine_->geo()));
  model::TrackPoint point;
  for (const index::CellRange& range : ranges) {
    ++stats->ranges;
    SetCell(&begin, range.first);
    // Exclusive: the first key of the cell after the range. Leaf cell ids
    // stay below 2^64 - 1, so last + 1 cannot wrap.
    SetCell(&end, range.last + 1);
    for (it->Seek(begin); it->Valid(); it->Next()) {
      const std::optional<GeoKeyParts> key =
          ParseGeoKey(SliceView(it->key()), prefix);
      if (!key || key->cell > range.last) break;
      ++stats->keys_read;
      const absl::string_view value = SliceView(it->value());
      const std::optional<PointPosition> pos = DecodePosition(value);
      if (!pos) {
        return absl::DataLossError(
            absl::StrCat("corrupt geo value for entity '", key->entity, "'"));
      }
      // The covering over-approximates; this is the exact test.
      if (!region.Contains({pos->lat, pos->lon})) continue;
      ++stats->hits;
      point.entity.assign(key->entity.data(), key->entity.size());
      if (options.positions_only) {
        point.loc_time_ms = pos->loc_time_ms;
        point.lat = pos->lat;
        point.lon = pos->lon;
      } else if (absl::Status s = DecodePointValue(value, &point); !s.ok()) {
        return s;
      }
      if (!visit(point)) return absl::OkStatus();
    }
    if (!it->status().ok()) {
      return absl::InternalError(
          absl::StrCat("scanning geo index: ", it->status().ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace trackdb::storage
