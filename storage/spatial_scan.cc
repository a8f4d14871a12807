// Spatial queries over the geo column family.
#include "absl/strings/str_cat.h"
#include "index/covering.h"
#include "rocksdb/snapshot.h"
#include "storage/keys.h"
#include "storage/point_codec.h"
#include "storage/rocks_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {

absl::Status TrackStore::ScanRegion(
    absl::string_view collection, const index::Region& region,
    const std::function<bool(const TrackPoint&)>& visit) {
  const std::vector<index::CellRange> ranges = index::Covering(region);
  const std::string prefix = CollectionPrefix(collection);
  // Every range is read from the same snapshot, and each through an
  // iterator bounded at the range's end: entities that moved leave Delete
  // tombstones in the geo CF, and an unbounded iterator would walk through
  // all of them between the last live key in range and the next one.
  rocksdb::ManagedSnapshot snapshot(db_.get());
  TrackPoint point;
  for (const index::CellRange& range : ranges) {
    const std::string begin = GeoSeekKey(collection, range.first);
    // Exclusive: the first key of the cell after the range. Leaf cell ids
    // stay below 2^64 - 1, so last + 1 cannot wrap.
    const std::string end = GeoSeekKey(collection, range.last + 1);
    rocksdb::Slice upper(end);
    rocksdb::ReadOptions read;
    read.snapshot = snapshot.snapshot();
    read.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, geo()));
    for (it->Seek(begin); it->Valid(); it->Next()) {
      const std::optional<GeoKeyParts> key =
          ParseGeoKey(SliceView(it->key()), prefix);
      if (!key || key->cell > range.last) break;
      const absl::string_view value = SliceView(it->value());
      const std::optional<PointPosition> pos = DecodePosition(value);
      if (!pos) {
        return absl::DataLossError(
            absl::StrCat("corrupt geo value for entity '", key->entity, "'"));
      }
      // The covering over-approximates; this is the exact test.
      if (!region.Contains({pos->lat, pos->lon})) continue;
      point.entity.assign(key->entity.data(), key->entity.size());
      if (absl::Status s = DecodePointValue(value, &point); !s.ok()) return s;
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
