// Builds the latest index (storage/points/latest_index.h) from the `latest` column
// family: on open, and after an import ingested a collection's files.
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {

absl::Status LoadLatestIndex(Engine& engine,
                             std::optional<absl::string_view> collection) {
  rocksdb::ReadOptions read;
  read.fill_cache = false;  // read once, kept in the index
  std::string begin, end;
  rocksdb::Slice upper;
  if (collection) {
    engine.latest_index.Apply({{LatestIndex::Change::Kind::kDropCollection,
                                std::string(*collection)}});
    begin = CollectionPrefix(*collection);
    end = PrefixEnd(begin);
    upper = rocksdb::Slice(end);
    if (!end.empty()) read.iterate_upper_bound = &upper;
  }
  std::unique_ptr<rocksdb::Iterator> it(
      engine.db->NewIterator(read, engine.latest()));
  for (it->Seek(begin); it->Valid(); it->Next()) {
    const std::optional<LatestKeyParts> key =
        ParseLatestKey(SliceView(it->key()));
    const std::optional<PointPosition> position =
        DecodePosition(SliceView(it->value()));
    if (!key || !position) {
      return absl::DataLossError(absl::StrCat(
          "corrupt latest entry ", absl::CEscape(SliceView(it->key()))));
    }
    engine.latest_index.Set(key->collection, key->entity, *position);
  }
  engine.ChargeLatestIndex();
  return FromRocks(it->status(), "loading the latest index");
}

}  // namespace trackdb::storage
