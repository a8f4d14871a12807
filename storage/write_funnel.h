#ifndef TRACKDB_STORAGE_WRITE_FUNNEL_H_
#define TRACKDB_STORAGE_WRITE_FUNNEL_H_

// The write funnel: every change to the store's keys is built here, by one
// WriteBatchBuilder (online writes) or, for the offline import, through the
// same ChangeSink interface into SST files. Nothing else writes a key but
// replication's apply of what another node's funnel wrote, and its own
// state (below).
//
// Invariants, per (collection, entity), after every mutation lands:
//   I1  `latest` holds the entity's point with the greatest loc_time (of
//       equal times, the one written last), or nothing if it has no points.
//   I3  `points` and `chunks` together hold every point written, one per
//       loc_time (a repeated loc_time overwrites; where both hold a time,
//       the `points` one, written later, is the fix), but those its
//       collection's retention has expired or trimmed
//       (storage/points/retention.h): compaction drops expired ones, so
//       I1's latest point may outlive its copy in history.
//   I9  One entity's chunks never overlap in time: each holds fixes no
//       other of its chunks spans (storage/history_chunker.h).
//   I4  The registry entry of a collection (storage/format/keys.h RegistryKey)
//       counts the entities that have a latest point; it is absent or 0 for
//       a collection with none.
//   I6  The latest index (engine.latest_index, storage/points/latest_index.h)
//       holds exactly the entities `latest` holds, at their positions.
//   I7  Every fix in `points` has its history cell key there too
//       (storage/points/history_cells.h states it and why it holds).
//   I5  A string cache entry (storage/strings/string_cache.h) for a name holds the
//       name's value in `kv`, or its absence. (Compaction drops expired
//       values the cache may still hold: they read as absent either way.)
//   I8  A typed cache entry (storage/typed/typed_cache.h) for a key of `types`
//       holds that key's value there, or its absence. (Compaction drops
//       expired metas and the members of removed values, which read as
//       absent or unreachable either way.)
//
// Why they hold:
//   - I3 and I9 across a fold: HistoryChunker deletes the raw keys it
//     folds and writes the chunks they go into in one batch, under the
//     entity's stripe, and joins a fix to a chunk only where no other
//     chunk spans its time; readers merge both (storage/points/
//     history_cursor.h), the raw fix first, and a snapshot sees a fold
//     whole or not at all, so every fix reads once, before, during and
//     after a fold.
//   - I1 follows from one rule, PlanLatestMove below, used by the online
//     path and the import alike: a point replaces the stored latest when
//     its loc_time is >= the stored one's; then `latest` is rewritten in the
//     same batch as the history.
//   (I2, a copy of `latest` keyed by S2 cell, was retired: the latest index
//   answers region queries, so nothing spatial is stored twice.)
//   - I6: WriteBatchBuilder records the index change of every change to
//     `latest` it is given (LatestMoved, DeleteEntity, DeleteCollection,
//     CopyCollection) and applies them once its batch is written, before
//     the caller lets go of its locks; Open builds the index from `latest`
//     (LoadLatestIndex) and the import reloads what it ingested.
//   - Each call's changes go in ONE WriteBatch: it lands whole or not at
//     all, so a crash at any moment leaves the state before or after.
//   - Callers hold the locks that make their read-decide-write atomic: an
//     entity's stripe (storage/engine/entity_locks.h) for points, the collection's
//     lock shared for entity writes and exclusively for whole-collection
//     changes (so I4's count is exact), and a name's stripe for strings:
//     a string write sets (value or absence) or erases the cache entries
//     of what it wrote before it lets go of the stripes, and a read fills
//     entries only while holding them (shared: readers fill the same
//     value, and no writer runs beside them), so it cannot put back a
//     value a write has replaced (I5).
//   - I8 the same way: every write of a `types` key holds its name's
//     stripe (UpdateTyped, the whole-name operations, a replicated apply),
//     and WriteBatchBuilder::Commit sets or drops the cache entries of the
//     keys it wrote before the caller lets go of it, except keys that can
//     have none (PutUncached, DeleteUncached: members of a version no meta
//     has held yet, and walked-only keys, which no read caches,
//     storage/format/typed_values.h); reads fill entries only
//     inside UpdateTyped's or ReadTyped's transaction, holding the stripes
//     of its names (ReadTyped shared). Each TypedCache::Put or Erase also
//     outdates every thread's copy of the key (storage/memory/read_front.h).
//
// Every mutation, by entry point (TrackStore, storage/track_store.h):
//   AddPoints           write_path.cc   history, its cells, latest moves,
//                                       registry +n,
//                       fence_eval.cc   fence states and events (below)
//   DeleteEntity        write_path.cc   one entity's keys, registry -1
//   DeleteCollection    collections.cc  a collection's ranges and registry
//   UpdateStrings,
//   PutString           kv_ops.cc       strings (Put / Delete in `kv`)
//   UpdateTyped         typed_ops.cc    Redis hashes, sets, sorted sets,
//                                       lists: a meta key and members
//                                       (storage/format/typed_values.h)
//   DeleteNames,
//   CopyName,
//   ReplaceWithPoints,
//   ReplaceWithStrings  name_ops.cc     whole names (a string, a typed
//                                       value and/or a collection)
//                                       replaced, copied or renamed in one
//                                       batch
//   fences().Put,
//   fences().Delete     fence_store.cc  a fence and its entities' states
//   SetCollectionExpiry,
//   ExpireCollection(s) collection_expiry_ops.cc  a GEO key's expiry; an
//                                       expired collection, as
//                                       DeleteCollection
//   retention().Set,
//   retention().ExpireEntities,
//   retention().TrimHistories
//                       retention_store.cc  a collection's retention
//                                       policy; expired entities, as
//                                       DeleteEntity; history past
//                                       max_points per entity, raw
//                                       fixes and chunks (history_trim.cc:
//                                       deletions, the chunk across the
//                                       cut rewritten)
//   chunker().Fold*     history_chunker.cc  raw fixes folded into chunks
//                                       (raw keys deleted, chunks put),
//                                       one entity a batch; the history
//                                       cells stay
//   SetBulkLoad         bulk_load.cc    options only, no keys
//   Open (schema 1->3)  collections.cc  the registry built from `latest`
//   Open (schema 3->4)  history_cells_build.cc  history cells from `points`
//   Open (schema 4->5)  track_store.cc  the version only: `chunks` starts
//                                       empty
//   SstImport           sst_import.cc   step 6: the imported history
//                                       folded, as chunker().Fold*
//   SstImport           sst_import.cc   offline: SST files through the same
//                                       PlanLatestMove, one ingestion
//   ApplyShipped,       replica_apply.cc  a replica's copy of its primary's
//   FullSync            full_sync.cc      batches (or of the difference from
//                                       its snapshot), the only writes a
//                                       replica takes; the derived
//                                       structures follow each batch
//                                       (storage/replication/replication.h)
//   ApplyMigrated,      replica_apply.cc  a migrated slot's names arriving
//   DeleteNamesWhere                  and leaving (the same apply)
//   SetReplica,         replica_apply.cc, replication.cc: this node's own
//   PrimaryReplid                     replication mark and id, in
//                                       `default` under kReplicationKeyPrefix
//                                       (never replicated)
//
// Fences (storage/fences/fence_registry.h): a points write evaluates the
// collection's fences (AppendFenceEvents) in its own batch, so a point,
// the fence states it changes and the events it causes land together;
// DeleteEntity and DeleteCollection remove the entities' fence states
// with them (an entity that comes back is outside every fence).
// ReplaceWithPoints and CopyName's collections are not evaluated: their
// entities start outside every fence.
// Expiry writes nothing: expired strings read as absent and compaction
// drops them (storage/strings/kv_expiry.h), typed values likewise with their
// members (storage/typed/typed_gc.h); so does history past its collection's
// retention (storage/points/retention.h, storage/points/history_expiry.h), except
// ExpireEntities' removal of expired latest points, which the latest index
// and the registry must follow (I1, I4, I6).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "model/track_point.h"
#include "rocksdb/write_batch.h"
#include "storage/engine/engine.h"
#include "storage/fences/fence_registry.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/track_store.h"

namespace trackdb::storage {

// The move rule (I1), written once.
struct LatestMove {
  bool replaces = false;     // the incoming point becomes the entity's latest
  bool new_entity = false;   // it had no latest point (I4 +1)
  PointPosition position{};  // the incoming point's
};
// Whether a point at `incoming_ms` replaces `stored` as the latest: it does
// when there is none or its loc_time is >= the stored one's (a repeated
// loc_time overwrites, in latest as in history).
bool ReplacesLatest(const std::optional<PointPosition>& stored,
                    int64_t incoming_ms);
LatestMove PlanLatestMove(const std::optional<PointPosition>& stored,
                          const PointPosition& incoming);

// Where changes go: a WriteBatch online, SST files in the import.
class ChangeSink {
 public:
  virtual ~ChangeSink() = default;
  virtual absl::Status Put(ColumnFamily cf, absl::string_view key,
                           absl::string_view value) = 0;
  virtual absl::Status Delete(ColumnFamily cf, absl::string_view key) = 0;
  // An entity's latest point moved to `position` (I6). Sinks that feed no
  // live index ignore it.
  virtual void LatestMoved(absl::string_view collection,
                           absl::string_view entity,
                           const PointPosition& position) {}
};

// The keys of a planned move (move.replaces must be true): `latest` gets
// `encoded_point`, and the sink hears that the entity moved (I6).
absl::Status WriteLatestMove(ChangeSink& sink, absl::string_view collection,
                             absl::string_view entity, const LatestMove& move,
                             absl::string_view encoded_point);

// One batch of changes, committed atomically.
class WriteBatchBuilder : public ChangeSink {
 public:
  explicit WriteBatchBuilder(Engine& engine) : engine_(engine) {}

  absl::Status Put(ColumnFamily cf, absl::string_view key,
                   absl::string_view value) override;
  absl::Status Delete(ColumnFamily cf, absl::string_view key) override;
  // Put and Delete of a `types` key drop its typed cache entry once
  // committed (I8). PutCached leaves the value there instead: for a key
  // the caller has just read, whose entry a read is likely to want again
  // (an HSET's field). Inserting every written key would cost a write more
  // than the reads it saves (LPUSH's elements, never read back by a push).
  absl::Status PutCached(absl::string_view key, absl::string_view value);
  // Put and Delete of a `types` key that no typed cache entry can exist
  // for (a member of a version no meta has held yet, a sorted set's score
  // key: storage/format/typed_codec.h, IsWalkedOnly): they leave the cache alone.
  absl::Status PutUncached(absl::string_view key, absl::string_view value);
  absl::Status DeleteUncached(absl::string_view key);
  void LatestMoved(absl::string_view collection, absl::string_view entity,
                   const PointPosition& position) override;
  void DeleteRange(ColumnFamily cf, absl::string_view begin,
                   absl::string_view end);

  // I4: adds `delta` to the collection's entity count (a merge: no read).
  void CountEntities(absl::string_view collection, int64_t delta);
  // One entity's history and latest point (`latest` is its stored
  // position, if any), and its count.
  void DeleteEntity(absl::string_view collection, absl::string_view entity,
                    const std::optional<PointPosition>& latest);
  // Every key of a collection in points and latest, its registry entry and
  // its expiry. The caller holds the collection exclusively.
  void DeleteCollection(absl::string_view collection);
  // Sets (0: removes) the collection's expiry (storage/collections/collection_expiry.h),
  // in `default` and, once committed, in memory.
  void SetCollectionExpiry(absl::string_view collection, int64_t at_ms);
  // Copies every key of collection `src` (history, latest) to `dst`,
  // and sets dst's count to `src_size`. `dst` must be empty or deleted
  // earlier in this batch. RESOURCE_EXHAUSTED, leaving the batch unusable,
  // once the batch outgrows `max_bytes`. Reads from the DB as it stands:
  // the caller holds both collections exclusively.
  absl::Status CopyCollection(absl::string_view src, absl::string_view dst,
                              int64_t src_size, size_t max_bytes);

  size_t count() const { return batch_.Count(); }
  size_t bytes() const { return batch_.GetDataSize(); }
  // Writes the batch (nothing if empty), then applies its latest index
  // changes (I6); `what` names the operation in errors.
  absl::Status Commit(absl::string_view what);

 private:
  Engine& engine_;
  rocksdb::WriteBatch batch_;
  std::vector<LatestIndex::Change> index_changes_;
  std::vector<std::pair<std::string, int64_t>> expiry_changes_;
  // `types` keys written, with the value to cache (nullopt: drop the
  // entry), for the typed cache once committed (I8).
  std::vector<std::pair<std::string, std::optional<std::string>>>
      typed_changes_;
};

// Calls `visit` with every key and value of `default` that starts with
// `tag` (a per-collection table: retention policies, expiries), in key
// order; stops at its first error. `what` names the table in errors.
absl::Status ForEachTagged(
    Engine& engine, char tag, absl::string_view what,
    const std::function<absl::Status(absl::string_view key,
                                     absl::string_view value)>& visit);
// Loads the GEO keys' expiries into engine.collection_expiries (on open).
absl::Status LoadCollectionExpiries(Engine& engine);

// Loads `latest` into engine.latest_index: every collection (the index
// must be empty), or reloads only `collection` (what the index held of it
// is dropped first).
absl::Status LoadLatestIndex(Engine& engine,
                             std::optional<absl::string_view> collection);

// A points write to one collection, planned per distinct entity in order of
// first appearance (write_path.cc).
struct PointsPlan {
  struct Entity {
    absl::string_view name;
    std::optional<PointPosition> stored;  // its latest before the write
    bool skip = false;                    // AddPointsOptions left it out
  };
  std::vector<Entity> entities;
  std::vector<size_t> entity_of;  // per point: its index in `entities`
};
// Groups `points` by entity; `stored` and `skip` left for the caller.
PointsPlan PlanPoints(absl::Span<const model::TrackPoint> points);
// Appends the history of every point not skipped, the latest move of each
// entity that gets a point at least as new as its stored one (PlanLatestMove)
// and the count of new entities; says so per entity in `result`.
absl::Status AppendPoints(WriteBatchBuilder& batch,
                          absl::string_view collection,
                          absl::Span<const model::TrackPoint> points,
                          const PointsPlan& plan, AddPointsResult* result);

// What a points write's fence step leaves to do around its batch: the run
// of event offsets it reserved (storage/fences/fence_registry.h), released once
// the batch is written or has failed, when this goes out of scope after
// Commit; and the entities whose last stored state the batch deletes, which
// CollectionFences::MayHaveStates forgets only once the batch is written
// (Committed), so that it is never narrower than what is stored.
class FenceWrite {
 public:
  FenceWrite() = default;
  FenceWrite(const FenceWrite&) = delete;
  FenceWrite& operator=(const FenceWrite&) = delete;
  ~FenceWrite() {
    if (reserved_ != nullptr) reserved_->Release(first_);
  }
  uint64_t Reserve(CollectionFences& fences, uint64_t n) {
    reserved_ = &fences;
    first_ = fences.Reserve(n);
    events_ = n;
    return first_;
  }
  // The events the batch holds.
  uint64_t events() const { return events_; }
  void ForgetAfterCommit(CollectionFences& fences, absl::string_view entity) {
    fences_ = &fences;
    forget_.emplace_back(entity);
  }
  void Committed() {
    for (const std::string& e : forget_) fences_->MayHaveStates(e, false);
  }

 private:
  CollectionFences* reserved_ = nullptr;
  uint64_t first_ = 0;
  uint64_t events_ = 0;
  CollectionFences* fences_ = nullptr;
  std::vector<std::string> forget_;
};

// The fence states and events of a points write (fence_eval.cc): the
// caller holds the collection's lock shared and the entities' stripes, and
// `plan` is the one AppendPoints wrote. Events get offsets from `write`.
absl::Status AppendFenceEvents(WriteBatchBuilder& batch, const Engine& engine,
                               absl::string_view collection,
                               absl::Span<const model::TrackPoint> points,
                               const PointsPlan& plan, CollectionFences& fences,
                               FenceWrite* write);

// Builds engine.fence_registry from the fences column family (on open).
absl::Status LoadFences(Engine& engine);
// Reloads one collection's fences and log bounds from its keys (a replica,
// after a replicated change to them); the caller holds the collection's
// lock exclusively.
absl::Status ReloadFences(Engine& engine, absl::string_view collection);

// Fills engine.options.retention from the stored policies (on open).
absl::Status LoadRetention(Engine& engine);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_WRITE_FUNNEL_H_
