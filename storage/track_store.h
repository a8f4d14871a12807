#ifndef TRACKDB_STORAGE_TRACK_STORE_H_
#define TRACKDB_STORAGE_TRACK_STORE_H_

// TrackStore: the only code that touches RocksDB. One DB, column families
// and key encodings as in storage/keys.h.
//
// Every mutation goes through the write funnel (storage/write_funnel.h),
// which states the invariants I1-I5 the methods below keep and lists each
// method's mutation; the reads below see them hold.

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "index/region.h"
#include "model/track_point.h"
#include "storage/engine/activity_counters.h"
#include "storage/engine/collection_lock_table.h"
#include "storage/engine/disk_faults.h"
#include "storage/engine/entity_locks.h"
#include "storage/fence_store.h"
#include "storage/format/keys.h"
#include "storage/format/kv_codec.h"
#include "storage/format/typed_values.h"
#include "storage/history_chunker.h"
#include "storage/points/latest_feed.h"
#include "storage/points/retention.h"
#include "storage/retention_store.h"
#include "trackdb/v1/config.pb.h"
#include "trackdb/v1/fence.pb.h"

namespace trackdb::storage {

struct Engine;
class WriteBatchBuilder;
struct StoreOptions;
class StringCache;

struct TrackQuery {
  std::string collection;
  std::string entity;
  int64_t start_ms = INT64_MIN;  // inclusive
  int64_t end_ms = INT64_MAX;    // inclusive
  int limit = 100;               // points per page, >= 1
  std::string page_token;        // from a previous page; empty for the first
  bool descending = false;       // newest first
};

struct TrackPage {
  std::vector<model::TrackPoint> points;
  std::string next_page_token;  // empty on the last page
};

struct FixesAround {
  std::optional<model::TrackPoint> before;  // at or before the time
  std::optional<model::TrackPoint> after;   // the first after it
};

// Fixes inside a region during [start_ms, end_ms] (SearchHistory).
struct HistoryQuery {
  std::string collection;
  const index::Region* region = nullptr;  // required; outlives the call
  int64_t start_ms = INT64_MIN;           // inclusive
  int64_t end_ms = INT64_MAX;             // inclusive
  // One row per entity (its first and last fix inside, and how many)
  // rather than every fix.
  bool per_entity = false;
  int limit = 100;         // rows per page, >= 1
  std::string page_token;  // from a previous page; empty for the first
};
// One entity's fixes inside the region (per_entity).
struct HistoryVisit {
  model::TrackPoint first;
  model::TrackPoint last;
  uint64_t fixes = 0;
};
struct HistoryPage {
  std::vector<model::TrackPoint> points;  // !per_entity: by entity, time
  std::vector<HistoryVisit> visits;       // per_entity: by entity
  std::string next_page_token;            // empty on the last page
  // What the search read: the evidence that it costs what the space-time
  // box holds.
  uint64_t cells_read = 0;  // history cell keys
  uint64_t fixes_read = 0;  // fixes of candidate entities checked
};

struct AddPointsOptions {
  // Which entities' points to store (GEOADD's NX and XX): points of the
  // other entities are skipped, not errors.
  enum class Only { kAll, kNewEntities, kExistingEntities };
  Only only = Only::kAll;
  // If set, decides each entity's position while its stripe is held, from
  // its latest position before the call (nullopt: a new entity): every
  // point of the entity is written there, or the entity is skipped on
  // nullopt; an error ends the call, which writes nothing and returns it.
  // For writes whose position depends on the stored one (ZADD's GT, LT and
  // INCR on a GEO key), which a read before the call could not make
  // atomic. Called once per distinct entity not skipped by `only`, in order
  // of first appearance.
  std::function<absl::StatusOr<std::optional<index::LatLng>>(
      size_t entity, const std::optional<index::LatLng>& prior)>
      position;
  // With `position`: a point older than its entity's stored latest takes
  // the stored latest's time, so that it replaces it (a ZADD's new score
  // is the member's position, whatever time a clock says).
  bool replace_latest = false;
};

// What AddPoints did to each distinct entity of the call, in order of first
// appearance.
struct EntityOutcome {
  std::string entity;
  std::optional<index::LatLng> prior;  // its latest position before the call
  bool written = false;                // false: skipped by AddPointsOptions
  bool latest_moved = false;           // its latest point was replaced
};
struct AddPointsResult {
  int64_t new_entities = 0;
  std::vector<EntityOutcome> entities;
};

// What ScanRegion calls read: the evidence that a search costs what its
// hits and covering cost, not what the collection holds.
struct ScanStats {
  uint64_t ranges = 0;     // covering ranges sought
  uint64_t keys_read = 0;  // index entries examined: hits + covering's extras
  uint64_t hits = 0;       // entries the region contains (passed to visit)
};

struct ScanOptions {
  // Decode only entity, loc_time_ms, lat and lon of each hit; the point's
  // optional fields and attributes are left empty. For callers that answer
  // with ids and positions only (cheaper: most of a value is skipped).
  bool positions_only = false;
  // If set, what the scan read is added to it (not reset first).
  ScanStats* stats = nullptr;
};

class TrackStore {
 public:
  // Opens (creating if missing) the DB in `data_dir`. FAILED_PRECONDITION
  // with a clear message when another process holds it.
  // `faults` (tests only; storage/engine/disk_faults.h) makes its disk fail on
  // demand.
  static absl::StatusOr<std::unique_ptr<TrackStore>> Open(
      const std::string& data_dir, const v1::StorageConfig& config,
      std::shared_ptr<DiskFaults> faults = nullptr);

  ~TrackStore();  // Close()s if still open.

  // Flushes the memtables (so reopening replays no log) and closes the DB.
  absl::Status Close();
  // Writes every memtable to its files and syncs the WAL, the store staying
  // open (SHUTDOWN SAVE, a backup's start). UNAVAILABLE after a disk error
  // RocksDB has not recovered from.
  absl::Status Flush();

  // --- Write path (write_path.cc) ---

  // Stores `points` (any entities, any order) atomically. Each point goes to
  // history; an entity's newest point (loc_time >= its current latest)
  // becomes its latest (and moves in the latest index). Older points are
  // history only. INVALID_ARGUMENT naming points[i] and the field, with nothing
  // written, if any point is invalid; WRONGTYPE (storage/format/wrong_type.h),
  // with nothing written, if the name holds a string or a typed value.
  absl::Status AddPoints(absl::string_view collection,
                         absl::Span<const model::TrackPoint> points);
  // The same, with options, saying what happened to each entity.
  absl::StatusOr<AddPointsResult> AddPoints(
      absl::string_view collection, absl::Span<const model::TrackPoint> points,
      const AddPointsOptions& options);

  // Removes an entity's history and latest point together.
  // Returns whether it had a latest point.
  absl::StatusOr<bool> DeleteEntity(absl::string_view collection,
                                    absl::string_view entity);

  // --- Reads (track_reads.cc) ---

  absl::StatusOr<std::optional<model::TrackPoint>> GetLatest(
      absl::string_view collection, absl::string_view entity);
  // One result per entity, in order; nullopt where it has no points.
  absl::StatusOr<std::vector<std::optional<model::TrackPoint>>> GetLatest(
      absl::string_view collection, absl::Span<const std::string> entities);

  // One page of an entity's history in [start_ms, end_ms].
  absl::StatusOr<TrackPage> GetTrack(const TrackQuery& query);
  // The entity's fix at or before `time_ms` and its first fix after it
  // (either absent when there is none, or it is past retention), from one
  // view of its history.
  absl::StatusOr<FixesAround> GetFixesAround(absl::string_view collection,
                                             absl::string_view entity,
                                             int64_t time_ms);

  // --- Spatial (spatial_scan.cc) ---

  // Calls `visit` with the latest point of every entity of `collection`
  // whose latest position `region` contains, exactly those, each once, in
  // index order, from one consistent view of the latest index (ids and
  // positions). Whole points are then read from `latest`: an entity that
  // moved out of the region in between is left out. Stops early when
  // `visit` returns false.
  absl::Status ScanRegion(
      absl::string_view collection, const index::Region& region,
      const std::function<bool(const model::TrackPoint&)>& visit);
  // The same, with options.
  absl::Status ScanRegion(
      absl::string_view collection, const index::Region& region,
      const std::function<bool(const model::TrackPoint&)>& visit,
      const ScanOptions& options);

  // --- History in space and time (history_search.cc) ---
  // Every fix of `collection` whose position query.region contains and
  // whose loc_time is in [start_ms, end_ms] (and not past retention), in
  // (entity, loc_time) order, a page at a time; or one row per entity.
  // Exact: candidates come from the history cells
  // (storage/points/history_cells.h) and every fix is checked. INVALID_ARGUMENT
  // for a bad limit, range or page token.
  absl::StatusOr<HistoryPage> SearchHistory(const HistoryQuery& query);

  // --- Collections (collections.cc) ---

  // Entities with a latest point (I4); 0 for an unknown collection and
  // for one past its expiry.
  absl::StatusOr<int64_t> CollectionSize(absl::string_view collection);
  // --- GEO keys' expiry (collection_expiry_ops.cc; the rules:
  // storage/collections/collection_expiry.h) ---
  // Sets when `collection` expires (Unix ms; 0: never). False, setting
  // nothing, when it has no entities (or has expired).
  absl::StatusOr<bool> SetCollectionExpiry(absl::string_view collection,
                                           int64_t at_ms);
  // SetCollectionExpiry when `holds(current)` (current: its expiry, 0:
  // never) is true, checked under the collection's lock so that no other
  // change comes between (EXPIRE's NX/XX/GT/LT). An at_ms <= now_ms
  // removes the collection instead, as Redis removes a key given a time
  // already past. False, changing nothing, when the collection has no
  // entities or `holds` is false.
  absl::StatusOr<bool> SetCollectionExpiryIf(
      absl::string_view collection, int64_t at_ms, int64_t now_ms,
      const std::function<bool(int64_t current)>& holds);
  // When `collection` expires; 0: never.
  int64_t CollectionExpiry(absl::string_view collection) const;
  // Removes `collection`, as DeleteCollection, if its expiry is <= now_ms;
  // whether it did.
  absl::StatusOr<bool> ExpireCollection(absl::string_view collection,
                                        int64_t now_ms);
  // ExpireCollection of every collection due at now_ms; how many went.
  absl::StatusOr<int64_t> ExpireCollections(int64_t now_ms);

  // Every collection with at least one entity, in registry key order
  // (shorter names first), with its size. Stops when `visit` returns false.
  absl::Status ScanCollections(
      const std::function<bool(absl::string_view collection, int64_t size)>&
          visit);
  // Calls `visit` with every latest point of `collection`, in entity order.
  absl::Status ScanLatest(
      absl::string_view collection,
      const std::function<bool(const model::TrackPoint&)>& visit);
  // Removes a whole collection: history, latest and registry, in one
  // batch. Returns how many entities it had.
  absl::StatusOr<int64_t> DeleteCollection(absl::string_view collection);

  // --- Fences (fence_store.h) ---

  FenceStore& fences() { return *fences_; }

  // --- History retention (retention_store.h) ---

  // Moves history from a key a fix into chunks (storage/history_chunker.h).
  HistoryChunker& chunker() { return *chunker_; }
  RetentionStore& retention() { return *retention_; }
  const RetentionStore& retention() const { return *retention_; }

  // --- Whole names (name_ops.cc) ---
  // A name holds one type (Redis: a key has one type; typed_values.h says
  // how the store keeps that). Each call below is one batch, so
  // a reader or a crash sees all of it or none, and holds the names'
  // collection locks exclusively and their string stripes meanwhile.

  // What a name held.
  struct NameContents {
    bool string = false;             // an unexpired string
    int64_t entities = 0;            // its collection's size (0: none)
    std::optional<ValueType> typed;  // an unexpired typed value's type
    bool exists() const { return string || entities > 0 || typed; }
  };
  // Removes every name's string and collection. Returns what each held.
  absl::StatusOr<std::vector<NameContents>> DeleteNames(
      absl::Span<const std::string> names, int64_t now_ms);

  struct CopyNameOptions {
    bool remove_source = false;  // rename rather than copy
    bool replace = false;        // replace what `dst` holds
  };
  enum class CopyNameResult { kCopied, kNoSource, kDestinationExists };
  // Gives `dst` what `src` holds: its string (with its expiry) if it has
  // one, else its typed value (a new version, expiry kept), else its
  // collection with all history; with remove_source, `src`
  // is removed in the same batch. kDestinationExists, changing nothing,
  // when `dst` holds something and not options.replace. `src` and `dst`
  // must differ. RESOURCE_EXHAUSTED, changing nothing, for a collection
  // or typed value whose copy exceeds StoreOptions' max_atomic_copy_bytes.
  absl::StatusOr<CopyNameResult> CopyName(absl::string_view src,
                                          absl::string_view dst, int64_t now_ms,
                                          const CopyNameOptions& options);
  // Replaces whatever `name` holds with a collection of `points` (none:
  // `name` ends empty). INVALID_ARGUMENT, changing nothing, as AddPoints.
  absl::Status ReplaceWithPoints(absl::string_view name,
                                 absl::Span<const model::TrackPoint> points);
  // Sets each name's string, removing its collection if it has one (a
  // string replacing a GEO key). The last value of a repeated name wins.
  absl::Status ReplaceWithStrings(absl::Span<const std::string> names,
                                  absl::Span<const StringValue> values);

  // --- Redis hashes, sets, sorted sets, lists (typed_ops.cc) ---
  // storage/format/typed_values.h says what a transaction may do.

  // Runs `update` in one transaction over `names` (every name it touches
  // must be among them): it holds the names' stripes, the ones strings
  // use, so string and typed commands on a name are serialised, and
  // commits what `update` staged in one batch if it returns OK. A call
  // that stages nothing writes nothing (reads use it too).
  // `replaceable` names (also among `names`) may have a string or a
  // collection removed (TypedTxn::RemoveOtherTypes): their collection
  // locks are held exclusively too.
  absl::Status UpdateTyped(absl::Span<const std::string> names, int64_t now_ms,
                           const TypedUpdate& update,
                           absl::Span<const std::string> replaceable = {});
  // UpdateTyped for a transaction that only reads: it holds the stripes
  // shared, so reads of one name run side by side (writers still wait for
  // them, and they for writers). FAILED_PRECONDITION
  // (kReadOnlyTxnStagedWrite), with nothing written, if `read` stages a
  // change or creates a value.
  absl::Status ReadTyped(absl::Span<const std::string> names, int64_t now_ms,
                         const TypedUpdate& read);
  // Whether the typed cache says that none of `names` holds a typed value
  // (hash, set, sorted set or list), without locks or I/O: a guess, since
  // a writer may be changing that, for a caller choosing ReadTyped over
  // UpdateTyped (a pop from an empty list stages nothing, so it may run
  // beside other reads). False says nothing.
  bool TypedValuesKnownAbsent(absl::Span<const std::string> names);
  // name's unexpired typed value, read without locks.
  absl::StatusOr<std::optional<TypedMeta>> GetTypedMeta(absl::string_view name,
                                                        int64_t now_ms);
  // Every unexpired typed value, in key order (shorter names first), from
  // the one after `after` (nullopt: the first), until `visit` returns false.
  absl::Status ScanTyped(const std::optional<std::string>& after,
                         int64_t now_ms,
                         const std::function<bool(absl::string_view name,
                                                  const TypedMeta&)>& visit);

  // --- Strings with expiry (kv_ops.cc) ---
  // `now_ms` decides what has expired: expired values read as absent.

  absl::StatusOr<std::optional<StringValue>> GetString(absl::string_view name,
                                                       int64_t now_ms);
  absl::StatusOr<std::vector<std::optional<StringValue>>> GetStrings(
      absl::Span<const std::string> names, int64_t now_ms);
  // Atomic read-modify-write of `names` (repeats allowed; each name is read
  // once): `update` gets their current values, in order, and changes them in
  // place (nullopt deletes). Nothing is written unless it returns OK, and
  // then all of it in one batch; names left unchanged are not rewritten.
  using StringUpdate =
      std::function<absl::Status(std::vector<std::optional<StringValue>>*)>;
  absl::Status UpdateStrings(absl::Span<const std::string> names,
                             int64_t now_ms, const StringUpdate& update);
  // Sets `name` to `value` whatever it held, without reading the old value
  // (Redis's plain SET): an UpdateStrings that needs no decision. A value
  // equal to the cached one is not rewritten; a collection of that name is
  // removed in the same batch (ReplaceWithStrings). Returns whether the
  // cache showed a live value before (false: absent, or not cached).
  absl::StatusOr<bool> PutString(absl::string_view name,
                                 const StringValue& value, int64_t now_ms);
  // Every unexpired string with a name >= `start`, in name order.
  absl::Status ScanStrings(
      absl::string_view start, int64_t now_ms,
      const std::function<bool(absl::string_view name, const StringValue&)>&
          visit);
  // Hits and misses of GetString(s) and UpdateStrings; I5 checks.
  StringCache& string_cache() { return *string_cache_; }

  // The options the store was opened with (storage/engine/options.h).
  const StoreOptions& options() const;
  // Fixes, fence events and searches since open (the metrics port).
  Activity activity() const;
  // Entities with a latest position, in every collection (the latest
  // index's size, expired GEO keys included until they are removed).
  int64_t EntityCount() const;
  // The latest index's changes as they are applied, for live watchers.
  LatestFeed& latest_feed();
  // The RocksDB objects, for storage's own code only: Engine is defined in
  // storage/engine/engine.h, which nothing outside storage/ can include.
  Engine& engine() { return *engine_; }

  // --- Operations (bulk_load.cc) ---

  struct BulkLoadChange {
    bool was_on = false;
    bool on = false;
    // Turning off: the full compaction's wall time and the L0 files it
    // removed (summed over column families).
    double compaction_seconds = 0;
    int l0_files_before = 0;
    int l0_files_after = 0;
  };
  // Bulk-load mode on: every column family gets PrepareForBulkLoad's
  // settings (storage/engine/options.h BulkLoadCfOptions) live. Off: a full
  // compaction (CompactRange over every column family) runs, then the
  // configured values come back, before this returns, so reads and
  // reopening are fast again. Writes continue meanwhile.
  // Turning off when already off still compacts (an import that ran with
  // the mode off). Calls are serialised. Open() turns it on when
  // config.bulk_load() is set.
  absl::StatusOr<BulkLoadChange> SetBulkLoad(bool on);
  bool bulk_load() const { return bulk_load_.load(); }

 private:
  TrackStore();
  absl::Status BuildRegistry();      // schema version 1 -> 3
  absl::Status BuildHistoryCells();  // schema version 3 -> 4
  // Brings a data dir of an older schema `version` to kSchemaVersion.
  absl::Status Upgrade(const std::string& data_dir, std::string version);
  absl::Mutex& CollectionLock(absl::string_view collection) {
    return collection_locks_.For(collection);
  }
  // WRONGTYPE if `collection`'s name holds a string or typed value; the
  // caller holds the name's stripe shared (write_path.cc).
  absl::Status RefuseIfOtherType(absl::string_view collection);
  // The locks AddPoints holds (write_path.cc).
  struct PointsLocks {
    std::optional<absl::ReaderMutexLock> collection;
    std::optional<EntityLocks::Held> entities;
  };
  absl::Status LockForPoints(absl::string_view collection,
                             const std::vector<size_t>& stripes,
                             const std::function<bool()>& read_any_stored,
                             PointsLocks* held);
  // The entity-lock stripes that guard strings `names` (kv_ops.cc).
  static std::vector<size_t> StringStripes(absl::Span<const std::string> names);
  // Each distinct collection lock of `names`, in a fixed order (so that two
  // callers cannot deadlock), to be held exclusively.
  std::vector<absl::Mutex*> CollectionLocks(
      absl::Span<const std::string> names) {
    return collection_locks_.ForAll(names);
  }
  // The stored values of `names`, expired ones included, from the string
  // cache or else `kv`, caching what it reads: the caller holds the names'
  // stripes (I5).
  absl::StatusOr<std::vector<std::optional<StringValue>>> LoadStrings(
      absl::Span<const std::string> names);
  // Writes each name's new value (nullopt deletes), with whatever `batch`
  // already holds, in one batch, and updates the string cache to match:
  // the caller holds the names' stripes (I5).
  struct StringChange {
    absl::string_view name;
    const std::optional<StringValue>* after;
  };
  absl::Status WriteStrings(absl::Span<const StringChange> changes,
                            WriteBatchBuilder& batch, absl::string_view what);
  absl::Status WriteStrings(absl::Span<const StringChange> changes);
  friend class TypedTxnImpl;
  friend class ReplicaAccess;  // storage/replication/replica_apply.cc
  // name's typed meta, expired or not (typed_ops.cc).
  absl::StatusOr<std::optional<TypedMeta>> StoredTypedMeta(
      absl::string_view name);
  // A version no typed value of this data dir has had.
  absl::StatusOr<uint64_t> NextTypedVersion();
  absl::Status LoadTypedVersionFloor();  // on open
  // The collection's entities, expired or not (what removal must remove).
  int64_t StoredCollectionSize(absl::string_view collection);
  // Removes the expiry of a collection whose entities are all gone (their
  // removals raced, or retention took them): a new key of that name must
  // not inherit it.
  absl::Status ClearStaleCollectionExpiry(absl::string_view collection);
  // What CopyName finds under its source and destination (name_ops.cc).
  struct CopyEnds;
  absl::Status LoadCopyEnds(const std::string (&names)[2], int64_t now_ms,
                            CopyEnds* ends);
  // Writes CopyName's copy of names[0] to names[1], as `ends` found them,
  // in one batch.
  absl::Status WriteCopy(const std::string (&names)[2], const CopyEnds& ends,
                         const CopyNameOptions& options);
  // Stages `dst` as a copy of `src`'s value `meta` (new version), with its
  // members, in `batch`; RESOURCE_EXHAUSTED past `max_bytes` copied.
  absl::Status CopyTypedValue(absl::string_view src, absl::string_view dst,
                              const TypedMeta& meta, size_t max_bytes,
                              WriteBatchBuilder& batch);

  std::unique_ptr<Engine> engine_;
  EntityLocks locks_;
  CollectionLockTable collection_locks_;
  std::unique_ptr<FenceStore> fences_;
  std::unique_ptr<RetentionStore> retention_;
  std::unique_ptr<HistoryChunker> chunker_;
  std::unique_ptr<StringCache> string_cache_;
  absl::Status ApplyCfOptions(bool bulk_load);  // bulk_load.cc
  absl::Mutex bulk_load_mu_;
  absl::Mutex typed_version_mu_;
  uint64_t next_typed_version_ ABSL_GUARDED_BY(typed_version_mu_) = 0;
  uint64_t typed_version_floor_ ABSL_GUARDED_BY(typed_version_mu_) = 0;
  std::atomic<bool> bulk_load_{false};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_TRACK_STORE_H_
