// Spatial queries over the geo column family.
#include "absl/strings/str_cat.h"
#include "index/covering.h"
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
  // One iterator: every range is read from the same implicit snapshot.
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), geo()));
  TrackPoint point;
  for (const index::CellRange& range : ranges) {
    for (it->Seek(GeoSeekKey(collection, range.first)); it->Valid();
         it->Next()) {
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
