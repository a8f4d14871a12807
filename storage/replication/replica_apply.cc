// The replica's side of replication (storage/replication/replication.h):
// portable batches applied with every derived structure following them, full
// syncs as differences, the mark, and the replica's role.
#include "storage/replication/replica_apply.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "rocksdb/write_batch.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/format/typed_codec.h"
#include "storage/points/retention.h"
#include "storage/replication/portable_batch.h"
#include "storage/replication/replication.h"
#include "storage/strings/string_cache.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {

// What replication needs of TrackStore's private parts.
class ReplicaAccess {
 public:
  static EntityLocks::Held LockStrings(TrackStore& store,
                                       absl::Span<const std::string> names) {
    return store.locks_.Lock(TrackStore::StringStripes(names));
  }
  static std::vector<absl::Mutex*> CollectionLocks(
      TrackStore& store, absl::Span<const std::string> names) {
    return store.CollectionLocks(names);
  }
  static absl::Status LoadTypedVersionFloor(TrackStore& store) {
    return store.LoadTypedVersionFloor();
  }
};

namespace {

constexpr char kMarkKey[] = "trackdb.repl.applied";

// A key's collection (its CollectionPrefix) and what follows it.
std::optional<std::pair<absl::string_view, absl::string_view>> SplitCollection(
    absl::string_view key) {
  uint32_t len = 0;
  if (!ReadVarint32(&key, &len) || key.size() < len) return std::nullopt;
  return std::make_pair(key.substr(0, len), key.substr(len));
}

absl::Status Corrupt(absl::string_view what, const rocksdb::Slice& key) {
  return absl::DataLossError(absl::StrCat("replicated ", what, " with key ",
                                          absl::CEscape(SliceView(key))));
}

// What a replicated batch changes beside its keys, gathered while the batch
// is rebuilt with this store's handles.
struct DerivedChanges {
  std::vector<LatestIndex::Change> latest;
  std::vector<std::string> strings;
  std::vector<std::string> typed_keys;   // `types` keys written
  std::vector<std::string> typed_names;  // and their names
  std::vector<std::pair<std::string, int64_t>> expiries;
  std::vector<std::pair<std::string, RetentionPolicy>> retention;
  std::set<std::string> fences_reloaded;  // definitions or bounds changed
  absl::flat_hash_map<std::string, uint64_t> fence_log_next;
  std::vector<std::pair<std::string, std::string>> fence_states;
  bool any_fence = false;
};

class ReplicaDecoder : public rocksdb::WriteBatch::Handler {
 public:
  explicit ReplicaDecoder(Engine& engine) : engine_(engine) {}

  rocksdb::Status PutCF(uint32_t id, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    if (id >= kColumnFamilyCount) return BadFamily(id);
    if (Own(id, key)) return rocksdb::Status::OK();
    rocksdb::Status s = out_.Put(engine_.handles[id], key, value);
    if (s.ok()) Note(Derive(static_cast<ColumnFamily>(id), key, &value));
    return s.ok() ? Result() : s;
  }
  rocksdb::Status DeleteCF(uint32_t id, const rocksdb::Slice& key) override {
    if (id >= kColumnFamilyCount) return BadFamily(id);
    if (Own(id, key)) return rocksdb::Status::OK();
    rocksdb::Status s = out_.Delete(engine_.handles[id], key);
    if (s.ok()) Note(Derive(static_cast<ColumnFamily>(id), key, nullptr));
    return s.ok() ? Result() : s;
  }
  rocksdb::Status SingleDeleteCF(uint32_t id,
                                 const rocksdb::Slice& key) override {
    return DeleteCF(id, key);
  }
  rocksdb::Status MergeCF(uint32_t id, const rocksdb::Slice& key,
                          const rocksdb::Slice& value) override {
    if (id >= kColumnFamilyCount) return BadFamily(id);
    // Merges add to the registry's counts, which nothing derives from.
    return out_.Merge(engine_.handles[id], key, value);
  }
  rocksdb::Status DeleteRangeCF(uint32_t id, const rocksdb::Slice& begin,
                                const rocksdb::Slice& end) override {
    if (id >= kColumnFamilyCount) return BadFamily(id);
    rocksdb::Status s = out_.DeleteRange(engine_.handles[id], begin, end);
    if (s.ok()) Note(DeriveRange(static_cast<ColumnFamily>(id), begin, end));
    return s.ok() ? Result() : s;
  }

  rocksdb::WriteBatch& batch() { return out_; }
  DerivedChanges& changes() { return changes_; }
  const absl::Status& error() const { return error_; }

 private:
  static rocksdb::Status BadFamily(uint32_t id) {
    return rocksdb::Status::Corruption(
        absl::StrCat("replicated record of unknown column family ", id));
  }
  static bool Own(uint32_t id, const rocksdb::Slice& key) {
    return id == 0 && key.starts_with(kReplicationKeyPrefix);
  }
  void Note(absl::Status s) {
    if (error_.ok()) error_ = std::move(s);
  }
  rocksdb::Status Result() const {
    return error_.ok() ? rocksdb::Status::OK()
                       : rocksdb::Status::Corruption(error_.ToString());
  }

  absl::Status Derive(ColumnFamily cf, const rocksdb::Slice& key,
                      const rocksdb::Slice* value) {
    switch (cf) {
      case ColumnFamily::kLatest:
        return DeriveLatest(key, value);
      case ColumnFamily::kKv:
        changes_.strings.emplace_back(SliceView(key));
        return absl::OkStatus();
      case ColumnFamily::kFences:
        return DeriveFence(key, value);
      case ColumnFamily::kDefault:
        return DeriveMetadata(key, value);
      case ColumnFamily::kTypes:
        return DeriveTyped(key);
      case ColumnFamily::kPoints:
      case ColumnFamily::kChunks:
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  absl::Status DeriveTyped(const rocksdb::Slice& key) {
    const std::optional<TypedKeyParts> parts = ParseTypedKey(SliceView(key));
    if (!parts) return Corrupt("typed value key", key);
    changes_.typed_keys.emplace_back(SliceView(key));
    changes_.typed_names.emplace_back(parts->name);
    return absl::OkStatus();
  }

  absl::Status DeriveLatest(const rocksdb::Slice& key,
                            const rocksdb::Slice* value) {
    const std::optional<LatestKeyParts> parts = ParseLatestKey(SliceView(key));
    if (!parts) return Corrupt("latest point", key);
    LatestIndex::Change c{LatestIndex::Change::Kind::kErase,
                          std::string(parts->collection),
                          std::string(parts->entity)};
    if (value != nullptr) {
      const std::optional<PointPosition> position =
          DecodePosition(SliceView(*value));
      if (!position) return Corrupt("latest point", key);
      c.kind = LatestIndex::Change::Kind::kSet;
      c.position = *position;
    }
    changes_.latest.push_back(std::move(c));
    return absl::OkStatus();
  }

  absl::Status DeriveFence(const rocksdb::Slice& key,
                           const rocksdb::Slice* value) {
    const auto split = SplitCollection(SliceView(key));
    if (!split || split->second.empty()) return Corrupt("fence key", key);
    const std::string collection(split->first);
    changes_.any_fence = true;
    switch (split->second[0]) {
      case kFenceEventTag: {
        if (value == nullptr || split->second.size() != 9) break;
        uint64_t& next = changes_.fence_log_next[collection];
        next = std::max(next, ReadBigEndian64(split->second.substr(1)) + 1);
        break;
      }
      case kFenceStateTag:
        if (value == nullptr) break;
        if (auto parts = ParseFenceStateKey(collection, SliceView(key))) {
          changes_.fence_states.emplace_back(collection, parts->entity);
        }
        break;
      case kFenceCursorTag:
        break;
      default:  // definitions and the log's kept start
        changes_.fences_reloaded.insert(collection);
    }
    return absl::OkStatus();
  }

  absl::Status DeriveMetadata(const rocksdb::Slice& key,
                              const rocksdb::Slice* value) {
    const absl::string_view k = SliceView(key);
    if (auto c = ParseCollectionExpiryKey(k)) {
      int64_t at_ms = 0;
      if (value != nullptr) {
        if (value->size() != 8) return Corrupt("expiry", key);
        at_ms = static_cast<int64_t>(ReadBigEndian64(SliceView(*value)));
      }
      changes_.expiries.emplace_back(std::string(*c), at_ms);
    } else if (auto c = ParseRetentionKey(k)) {
      RetentionPolicy policy;
      if (value != nullptr) {
        std::optional<RetentionPolicy> p =
            DecodeRetentionPolicy(SliceView(*value));
        if (!p) return Corrupt("retention policy", key);
        policy = *p;
      }
      changes_.retention.emplace_back(std::string(*c), policy);
    }
    return absl::OkStatus();
  }

  // The write funnel's range deletions: a collection's latest points
  // (DeleteCollection), its history (raw and chunked) and fence states, and a
  // log's trimmed events (whose kept start is a key of its own).
  absl::Status DeriveRange(ColumnFamily cf, const rocksdb::Slice& begin,
                           const rocksdb::Slice& end) {
    // History, raw or chunked, has nothing derived from it.
    if (cf == ColumnFamily::kPoints || cf == ColumnFamily::kChunks) {
      return absl::OkStatus();
    }
    const auto split = SplitCollection(SliceView(begin));
    if (cf == ColumnFamily::kLatest && split && split->second.empty() &&
        SliceView(end) == PrefixEnd(SliceView(begin))) {
      changes_.latest.push_back({LatestIndex::Change::Kind::kDropCollection,
                                 std::string(split->first)});
      return absl::OkStatus();
    }
    if (cf == ColumnFamily::kFences && split) {
      changes_.any_fence = true;
      changes_.fences_reloaded.insert(std::string(split->first));
      return absl::OkStatus();
    }
    return Corrupt("range deletion the write funnel never writes", begin);
  }

  Engine& engine_;
  rocksdb::WriteBatch out_;
  DerivedChanges changes_;
  absl::Status error_;
};

std::string EncodeMark(const ReplicationMark& mark) {
  std::string value = mark.replid;
  AppendBigEndian64(&value, mark.next);
  return value;
}

absl::Status ApplyFenceChanges(Engine& engine, const DerivedChanges& c) {
  for (const std::string& collection : c.fences_reloaded) {
    if (absl::Status s = ReloadFences(engine, collection); !s.ok()) return s;
  }
  for (const auto& [collection, next] : c.fence_log_next) {
    CollectionFences& f = engine.fence_registry.FindOrAdd(collection);
    f.SetLoaded(f.first_kept(), std::max(f.visible(), next));
  }
  for (const auto& [collection, entity] : c.fence_states) {
    engine.fence_registry.FindOrAdd(collection).MayHaveStates(entity, true);
  }
  if (c.any_fence) engine.fence_registry.clock().Tick();
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyPortable(TrackStore& store,
                           absl::Span<const std::string> portable_batches,
                           const std::optional<ReplicationMark>& mark,
                           bool clear_mark) {
  Engine& engine = store.engine();
  ReplicaDecoder decoder(engine);
  rocksdb::Status s;
  for (const std::string& data : portable_batches) {
    rocksdb::WriteBatch portable(data);
    s = portable.Iterate(&decoder);
    if (!decoder.error().ok()) return decoder.error();
    if (!s.ok()) return FromRocks(s, "decoding a replicated batch");
  }
  DerivedChanges& changes = decoder.changes();
  rocksdb::WriteBatch& batch = decoder.batch();
  if (mark) {
    s = batch.Put(engine.metadata(), kMarkKey, EncodeMark(*mark));
  } else if (clear_mark) {
    s = batch.Delete(engine.metadata(), kMarkKey);
  }
  if (!s.ok()) return FromRocks(s, "staging the replication mark");
  std::vector<std::string> reloaded(changes.fences_reloaded.begin(),
                                    changes.fences_reloaded.end());
  ExclusiveLocks collections(ReplicaAccess::CollectionLocks(store, reloaded));
  // The names whose strings or typed keys the batch writes, whose cache
  // entries it erases (I5, I8).
  std::vector<std::string> named = changes.strings;
  named.insert(named.end(), changes.typed_names.begin(),
               changes.typed_names.end());
  EntityLocks::Held strings = ReplicaAccess::LockStrings(store, named);
  s = engine.db->Write(engine.options.write, &batch);
  if (!s.ok()) return FromRocks(s, "applying a replicated batch");
  engine.latest_index.Apply(changes.latest);
  if (!changes.latest.empty()) engine.ChargeLatestIndex();
  for (const std::string& name : changes.strings) {
    store.string_cache().Erase(name);
  }
  for (const std::string& key : changes.typed_keys) {
    engine.typed_cache->Erase(key);
  }
  for (const auto& [collection, at_ms] : changes.expiries) {
    engine.collection_expiries.Set(collection, at_ms);
  }
  for (const auto& [collection, policy] : changes.retention) {
    engine.options.retention->Set(collection, policy);
  }
  if (absl::Status f = ApplyFenceChanges(engine, changes); !f.ok()) return f;
  engine.commits.Notify();
  return absl::OkStatus();
}

bool IsReplica(TrackStore& store) { return store.engine().replica.load(); }

absl::Status ApplyMigrated(TrackStore& store,
                           absl::Span<const std::string> portable_batches) {
  return ApplyPortable(store, portable_batches, std::nullopt, false);
}

absl::StatusOr<uint64_t> DeleteNamesWhere(TrackStore& store,
                                          const NameFilter& keep) {
  absl::StatusOr<std::unique_ptr<SnapshotReader>> reader =
      SnapshotReader::Open(store, keep);
  if (!reader.ok()) return reader.status();
  uint64_t deleted = 0;
  while (true) {
    absl::StatusOr<std::vector<SnapshotRecord>> records =
        (*reader)->Next(1 << 20);
    if (!records.ok()) return records.status();
    if (records->empty()) return deleted;
    rocksdb::WriteBatch piece;
    for (const SnapshotRecord& r : *records) {
      rocksdb::Status s = piece.Delete(PortableFamily(r.cf), r.key);
      if (!s.ok()) return FromRocks(s, "staging a handed-over key's removal");
    }
    deleted += records->size();
    std::vector<std::string> data{piece.Data()};
    if (absl::Status s = ApplyPortable(store, data, std::nullopt, false);
        !s.ok()) {
      return s;
    }
  }
}

absl::Status SetReplica(TrackStore& store, bool replica) {
  Engine& engine = store.engine();
  if (replica) {
    engine.replica.store(true);
    return absl::OkStatus();
  }
  absl::StatusOr<std::optional<ReplicationMark>> mark =
      ReadReplicationMark(store);
  if (!mark.ok()) return mark.status();
  if (!engine.replica.load() && !*mark) return absl::OkStatus();
  // What only a writer needs, taken from the keys as they now stand, while
  // writes are still refused.
  if (absl::Status t = ReplicaAccess::LoadTypedVersionFloor(store); !t.ok()) {
    return t;
  }
  if (absl::Status f = LoadFences(engine); !f.ok()) return f;
  if (*mark) {
    // It followed a primary (before a restart, too): its writes from now on
    // are a history of its own.
    rocksdb::Status s =
        engine.db->Delete(engine.options.write, engine.metadata(), kMarkKey);
    if (!s.ok()) return FromRocks(s, "removing the replication mark");
    if (absl::Status r = NewPrimaryReplid(store).status(); !r.ok()) return r;
  }
  engine.replica.store(false);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<ReplicationMark>> ReadReplicationMark(
    TrackStore& store) {
  Engine& engine = store.engine();
  std::string value;
  rocksdb::Status s = engine.db->Get(rocksdb::ReadOptions(), engine.metadata(),
                                     kMarkKey, &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "reading the replication mark");
  if (value.size() < 8) return absl::DataLossError("corrupt replication mark");
  ReplicationMark mark;
  mark.replid = value.substr(0, value.size() - 8);
  mark.next =
      ReadBigEndian64(absl::string_view(value).substr(mark.replid.size()));
  return mark;
}

absl::Status ApplyShipped(TrackStore& store, absl::string_view replid,
                          absl::Span<const ShippedBatch> batches) {
  if (batches.empty()) return absl::OkStatus();
  absl::StatusOr<std::optional<ReplicationMark>> mark =
      ReadReplicationMark(store);
  if (!mark.ok()) return mark.status();
  if (!*mark || (*mark)->replid != replid) {
    return absl::FailedPreconditionError(
        "replicated batches of a history this replica does not follow");
  }
  ReplicationMark after = **mark;
  for (const ShippedBatch& b : batches) {
    if (b.sequence != after.next) {
      return absl::FailedPreconditionError(
          absl::StrCat("replicated batch at sequence ", b.sequence, " where ",
                       after.next, " was expected"));
    }
    after.next = b.sequence + b.count;
  }
  // One write for all of them, so that the mark moves with their keys
  // (a registry count's merge must not be applied twice).
  std::vector<std::string> data;
  data.reserve(batches.size());
  for (const ShippedBatch& b : batches) data.push_back(b.data);
  return ApplyPortable(store, data, after, false);
}

}  // namespace trackdb::storage
