// Whole collections: their registry (I4), listing, and removal.
#include "absl/strings/str_cat.h"
#include "storage/format/counter_merge.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/strings/kv_expiry.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/track_store.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {

absl::StatusOr<int64_t> TrackStore::CollectionSize(
    absl::string_view collection) {
  // The index counts what the registry counts (I4, I6) without reading a
  // key that every new entity adds a merge operand to.
  if (engine_->collection_expiries.Due(collection, SystemNowMs())) return 0;
  return engine_->latest_index.Size(collection);
}

absl::Status TrackStore::ScanCollections(
    const std::function<bool(absl::string_view, int64_t)>& visit) {
  const std::string begin(1, kRegistryTag);
  const std::string end = PrefixEnd(begin);
  rocksdb::ReadOptions read;
  rocksdb::Slice upper(end);
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      engine_->db->NewIterator(read, engine_->metadata()));
  const int64_t now_ms = SystemNowMs();
  for (it->Seek(begin); it->Valid(); it->Next()) {
    const std::optional<absl::string_view> collection =
        ParseRegistryKey(SliceView(it->key()));
    const std::optional<int64_t> size = DecodeCounter(SliceView(it->value()));
    if (!collection || !size) {
      return absl::DataLossError("corrupt collection registry entry");
    }
    if (*size <= 0) continue;
    if (engine_->collection_expiries.Due(*collection, now_ms)) continue;
    if (!visit(*collection, *size)) break;
  }
  return FromRocks(it->status(), "scanning the collection registry");
}

absl::Status TrackStore::ScanLatest(
    absl::string_view collection,
    const std::function<bool(const model::TrackPoint&)>& visit) {
  const std::string begin = CollectionPrefix(collection);
  const std::string end = PrefixEnd(begin);
  rocksdb::ReadOptions read;
  rocksdb::Slice upper(end);
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      engine_->db->NewIterator(read, engine_->latest()));
  model::TrackPoint p;
  for (it->Seek(begin); it->Valid(); it->Next()) {
    p = model::TrackPoint();
    p.entity = std::string(SliceView(it->key()).substr(begin.size()));
    if (absl::Status s = DecodePointValue(SliceView(it->value()), &p);
        !s.ok()) {
      return s;
    }
    if (!visit(p)) break;
  }
  return FromRocks(it->status(), "scanning latest points");
}

absl::StatusOr<int64_t> TrackStore::DeleteCollection(
    absl::string_view collection) {
  absl::WriterMutexLock lock(&CollectionLock(collection));
  absl::StatusOr<int64_t> size = StoredCollectionSize(collection);
  WriteBatchBuilder batch(*engine_);
  batch.DeleteCollection(collection);
  if (absl::Status s = batch.Commit("deleting a collection"); !s.ok()) {
    return s;
  }
  return *size;
}

absl::Status TrackStore::BuildRegistry() {
  // Count each collection's latest entries: every latest key starts with its
  // collection prefix, so a run of equal prefixes is one collection.
  std::unique_ptr<rocksdb::Iterator> it(
      engine_->db->NewIterator(rocksdb::ReadOptions(), engine_->latest()));
  WriteBatchBuilder batch(*engine_);
  std::string collection;
  int64_t count = 0;
  auto emit = [&] {
    if (count > 0) {
      batch
          .Put(ColumnFamily::kDefault, RegistryKey(collection),
               EncodeCounter(count))
          .IgnoreError();
    }
  };
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::optional<LatestKeyParts> key =
        ParseLatestKey(SliceView(it->key()));
    if (!key) return absl::DataLossError("corrupt latest key");
    const absl::string_view name = key->collection;
    if (name != collection || count == 0) {
      emit();
      collection = std::string(name);
      count = 0;
    }
    ++count;
  }
  emit();
  if (!it->status().ok()) return FromRocks(it->status(), "scanning latest");
  if (absl::Status s = batch.Put(ColumnFamily::kDefault, kSchemaVersionKey,
                                 kSchemaVersionWithoutHistoryCells);
      !s.ok()) {
    return s;
  }
  return batch.Commit("writing the collection registry");
}

}  // namespace trackdb::storage
