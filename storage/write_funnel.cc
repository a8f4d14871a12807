#include "storage/write_funnel.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "storage/engine/store_events.h"
#include "storage/format/counter_merge.h"
#include "storage/format/rocks_util.h"
#include "storage/unchecked_by_tsan.h"

namespace trackdb::storage {

bool ReplacesLatest(const std::optional<PointPosition>& stored,
                    int64_t incoming_ms) {
  return !stored || incoming_ms >= stored->loc_time_ms;
}

LatestMove PlanLatestMove(const std::optional<PointPosition>& stored,
                          const PointPosition& incoming) {
  LatestMove move;
  move.replaces = ReplacesLatest(stored, incoming.loc_time_ms);
  if (!move.replaces) return move;
  move.new_entity = !stored;
  move.position = incoming;
  return move;
}

absl::Status WriteLatestMove(ChangeSink& sink, absl::string_view collection,
                             absl::string_view entity, const LatestMove& move,
                             absl::string_view encoded_point) {
  if (absl::Status s = sink.Put(ColumnFamily::kLatest,
                                LatestKey(collection, entity), encoded_point);
      !s.ok()) {
    return s;
  }
  sink.LatestMoved(collection, entity, move.position);
  return absl::OkStatus();
}

absl::Status WriteBatchBuilder::Put(ColumnFamily cf, absl::string_view key,
                                    absl::string_view value) {
  if (cf == ColumnFamily::kTypes)
    typed_changes_.emplace_back(key, std::nullopt);
  return FromRocks(batch_.Put(engine_.cf(cf), ToSlice(key), ToSlice(value)),
                   "adding to a write batch");
}

absl::Status WriteBatchBuilder::PutCached(absl::string_view key,
                                          absl::string_view value) {
  typed_changes_.emplace_back(key, value);
  return FromRocks(batch_.Put(engine_.types(), ToSlice(key), ToSlice(value)),
                   "adding to a write batch");
}

absl::Status WriteBatchBuilder::PutUncached(absl::string_view key,
                                            absl::string_view value) {
  return FromRocks(batch_.Put(engine_.types(), ToSlice(key), ToSlice(value)),
                   "adding to a write batch");
}

absl::Status WriteBatchBuilder::DeleteUncached(absl::string_view key) {
  return FromRocks(batch_.Delete(engine_.types(), ToSlice(key)),
                   "adding to a write batch");
}

absl::Status WriteBatchBuilder::Delete(ColumnFamily cf, absl::string_view key) {
  if (cf == ColumnFamily::kTypes)
    typed_changes_.emplace_back(key, std::nullopt);
  return FromRocks(batch_.Delete(engine_.cf(cf), ToSlice(key)),
                   "adding to a write batch");
}

void WriteBatchBuilder::LatestMoved(absl::string_view collection,
                                    absl::string_view entity,
                                    const PointPosition& position) {
  index_changes_.push_back({LatestIndex::Change::Kind::kSet,
                            std::string(collection), std::string(entity),
                            position});
}

void WriteBatchBuilder::DeleteRange(ColumnFamily cf, absl::string_view begin,
                                    absl::string_view end) {
  batch_.DeleteRange(engine_.cf(cf), ToSlice(begin), ToSlice(end))
      .PermitUncheckedError();
}

void WriteBatchBuilder::CountEntities(absl::string_view collection,
                                      int64_t delta) {
  if (delta == 0) return;
  batch_
      .Merge(engine_.metadata(), RegistryKey(collection), EncodeCounter(delta))
      .PermitUncheckedError();
}

void WriteBatchBuilder::DeleteEntity(
    absl::string_view collection, absl::string_view entity,
    const std::optional<PointPosition>& latest) {
  // Every points and chunks key of the entity is the prefix plus 8 time
  // bytes, so the prefix plus nine 0xff bytes is past all of them.
  const std::string begin = EntityPointsPrefix(collection, entity);
  const std::string end = begin + std::string(9, '\xff');
  DeleteRange(ColumnFamily::kPoints, begin, end);
  DeleteRange(ColumnFamily::kChunks, begin, end);
  if (!latest) return;
  if (engine_.fence_registry.Find(collection) != nullptr) {
    const std::string states = EntityFenceStatesPrefix(collection, entity);
    DeleteRange(ColumnFamily::kFences, states, PrefixEnd(states));
  }
  Delete(ColumnFamily::kLatest, LatestKey(collection, entity)).IgnoreError();
  index_changes_.push_back({LatestIndex::Change::Kind::kErase,
                            std::string(collection), std::string(entity)});
  CountEntities(collection, -1);
}

// The column families in which a collection is one range (its history,
// chunked or not, and latest points).
constexpr ColumnFamily kCollectionFamilies[] = {
    ColumnFamily::kPoints, ColumnFamily::kChunks, ColumnFamily::kLatest};

void WriteBatchBuilder::DeleteCollection(absl::string_view collection) {
  // Every key of the collection in points, chunks and latest starts with
  // its prefix, so one range per column family covers it.
  const std::string begin = CollectionPrefix(collection);
  const std::string end = PrefixEnd(begin);
  for (ColumnFamily cf : kCollectionFamilies) {
    DeleteRange(cf, begin, end);
  }
  if (engine_.fence_registry.Find(collection) != nullptr) {
    const std::string states = FencesPrefix(collection, kFenceStateTag);
    DeleteRange(ColumnFamily::kFences, states, PrefixEnd(states));
  }
  Delete(ColumnFamily::kDefault, RegistryKey(collection)).IgnoreError();
  index_changes_.push_back(
      {LatestIndex::Change::Kind::kDropCollection, std::string(collection)});
  if (engine_.collection_expiries.Get(collection) != 0) {
    SetCollectionExpiry(collection, 0);
  }
}

void WriteBatchBuilder::SetCollectionExpiry(absl::string_view collection,
                                            int64_t at_ms) {
  const std::string key = CollectionExpiryKey(collection);
  if (at_ms == 0) {
    Delete(ColumnFamily::kDefault, key).IgnoreError();
  } else {
    std::string value;
    AppendBigEndian64(&value, static_cast<uint64_t>(at_ms));
    Put(ColumnFamily::kDefault, key, value).IgnoreError();
  }
  expiry_changes_.emplace_back(std::string(collection), at_ms);
}

absl::Status WriteBatchBuilder::CopyCollection(absl::string_view src,
                                               absl::string_view dst,
                                               int64_t src_size,
                                               size_t max_bytes) {
  const std::string src_prefix = CollectionPrefix(src);
  const std::string end = PrefixEnd(src_prefix);
  const std::string dst_prefix = CollectionPrefix(dst);
  std::string key;
  for (ColumnFamily cf : kCollectionFamilies) {
    rocksdb::ReadOptions read;
    rocksdb::Slice upper(end);
    if (!end.empty()) read.iterate_upper_bound = &upper;
    read.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(
        engine_.db->NewIterator(read, engine_.cf(cf)));
    for (it->Seek(src_prefix); it->Valid(); it->Next()) {
      // The suffix after the collection prefix is the same in every
      // collection (storage/format/keys.h).
      key.assign(dst_prefix);
      key.append(it->key().data() + src_prefix.size(),
                 it->key().size() - src_prefix.size());
      if (absl::Status s = Put(cf, key, SliceView(it->value())); !s.ok()) {
        return s;
      }
      if (bytes() > max_bytes) {
        return absl::ResourceExhaustedError(
            absl::StrCat("collection '", src, "' is over ", max_bytes,
                         " bytes, more than one atomic copy may hold"));
      }
    }
    if (!it->status().ok()) return FromRocks(it->status(), "copying");
  }
  LatestIndex::Change copy{LatestIndex::Change::Kind::kCopyCollection,
                           std::string(dst)};
  copy.source = std::string(src);
  index_changes_.push_back(std::move(copy));
  if (src_size > 0) {
    return Put(ColumnFamily::kDefault, RegistryKey(dst),
               EncodeCounter(src_size));
  }
  return absl::OkStatus();
}

absl::Status WriteBatchBuilder::Commit(absl::string_view what) {
  if (batch_.Count() > 0) {
    if (absl::Status r = engine_.RefuseOnReplica(what); !r.ok()) return r;
    // While RocksDB stops writes, a write would block until its flushes
    // and compactions catch up (seconds, or for good with a full disk):
    // no_slowdown makes it answer Incomplete at once instead. Not while
    // writes are merely slowed down, which only paces them.
    rocksdb::WriteOptions write = engine_.options.write;
    write.no_slowdown =
        engine_.options.events && engine_.options.events->writes_stopped();
    rocksdb::Status s;
    {
      UncheckedByTsan rocksdb_write_group;
      s = engine_.db->Write(write, &batch_);
    }
    if (write.no_slowdown && s.IsIncomplete()) return WriteStallError(what);
    if (!s.ok()) return FromRocks(s, what);
    engine_.commits.Notify();
  }
  if (engine_.typed_cache) {
    for (const auto& [key, value] : typed_changes_) {
      value ? engine_.typed_cache->Put(key, value)
            : engine_.typed_cache->Erase(key);
    }
  }
  typed_changes_.clear();
  engine_.latest_index.Apply(index_changes_);
  if (!index_changes_.empty()) engine_.ChargeLatestIndex();
  index_changes_.clear();
  for (const auto& [collection, at_ms] : expiry_changes_) {
    engine_.collection_expiries.Set(collection, at_ms);
  }
  expiry_changes_.clear();
  return absl::OkStatus();
}

}  // namespace trackdb::storage
