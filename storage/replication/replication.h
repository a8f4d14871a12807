#ifndef TRACKDB_STORAGE_REPLICATION_REPLICATION_H_
#define TRACKDB_STORAGE_REPLICATION_REPLICATION_H_

// Replication over RocksDB's WAL, in Redis's shape: a primary's history of
// writes is named by a replication id and numbered by its RocksDB sequence
// numbers (Redis's replid and offset); a replica copies the primary's keys
// once (a full sync, from a snapshot) and then applies the primary's WAL
// batches in order (a partial sync, from the sequence it needs next).
//
// The rules:
// - A replica writes nothing of its own: while SetReplica(true) holds, the
//   write funnel refuses every write (FAILED_PRECONDITION, Redis's READONLY
//   words) and only ApplyShipped and FullSync change keys.
// - What a replica applied is its ReplicationMark, written in the same
//   batch as what it applied, so a crash leaves the mark and the keys
//   agreeing and a restart resumes from the mark.
// - Every derived in-memory structure (the latest index, GEO keys'
//   expiries, retention policies, the fence registry's fences and log
//   bounds, the string cache) follows the replicated keys as it follows
//   the write funnel's; promotion (SetReplica(false)) reloads what only a
//   writer needs (typed versions' floor, fence states).
// - Batches travel portable: a column family is named by ColumnFamily
//   (storage/format/keys.h), not by the primary's RocksDB id, which differs
//   between data dirs of different histories; keys under
//   kReplicationKeyPrefix (this node's own replication state) never travel.
// - A full sync needs no empty store: the replica walks its own keys beside
//   the primary's snapshot and writes only the difference (what it lacks,
//   what differs, what the primary no longer has), through the same apply
//   as the WAL's batches. Its mark is cleared first, so an interrupted full
//   sync is redone, never resumed as a partial one.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "storage/track_store.h"

namespace trackdb::storage {

// Keys of `default` that hold this node's own replication state.
inline constexpr char kReplicationKeyPrefix[] = "trackdb.repl.";

// One WAL batch of a primary, portable.
struct ShippedBatch {
  uint64_t sequence = 0;  // of its first record
  uint64_t count = 0;     // its records: the next batch starts at the sum
  std::string data;
  uint64_t kept = 0;  // records in `data` (fewer than count when filtered)
};

// Which names' keys to read (a slot's, for a migration); null: all.
using NameFilter = std::function<bool(absl::string_view name)>;

// What a replica has applied: the primary's history and the next sequence
// of it to apply.
struct ReplicationMark {
  std::string replid;
  uint64_t next = 0;
};

// One key of a primary's snapshot.
struct SnapshotRecord {
  ColumnFamily cf = ColumnFamily::kDefault;
  std::string key;
  std::string value;
};

// --- The primary's side ---

// The sequence of the store's last write (Redis's master_repl_offset).
uint64_t LatestSequence(TrackStore& store);
// This store's replication id as a primary: 40 hex digits, made once and
// kept (so that replicas resume across the primary's restarts).
absl::StatusOr<std::string> PrimaryReplid(TrackStore& store);
// A new id (a promoted replica starts a history of its own).
absl::StatusOr<std::string> NewPrimaryReplid(TrackStore& store);
// The whole batches from sequence `next` on, at least one and then up to
// about `max_bytes`; none when `next` is past the last write. OUT_OF_RANGE
// when the WAL no longer holds `next` (retention removed it, or an SST
// ingestion wrote around the WAL) or `next` is beyond the last write + 1:
// the replica needs a full sync.
absl::StatusOr<std::vector<ShippedBatch>> ReadUpdatesSince(
    TrackStore& store, uint64_t next, size_t max_bytes,
    const NameFilter& keep = nullptr);
// Waits until the store holds sequence `next` (a write since) or
// `deadline`; whether it does.
bool WaitForSequence(TrackStore& store, uint64_t next, absl::Time deadline);

// A consistent view of every key, read a piece at a time in (column
// family, key) order.
class SnapshotReader {
 public:
  static absl::StatusOr<std::unique_ptr<SnapshotReader>> Open(
      TrackStore& store, NameFilter keep = nullptr);
  virtual ~SnapshotReader() = default;
  // The sequence the view holds: a replica follows from the one after it.
  virtual uint64_t sequence() const = 0;
  // The next keys, about `max_bytes` of them; none when all were read.
  virtual absl::StatusOr<std::vector<SnapshotRecord>> Next(
      size_t max_bytes) = 0;
};

// A digest of every key and value (this node's replication state left
// out), for checking that a replica holds what its primary holds: 32 hex
// digits, equal for equal contents. Not cryptographic. Typed keys that no
// read sees (an expired value's, the members an O(1) delete left) are left
// out: compaction drops them on each node at its own pace. Expired strings
// and collection keys are not: two equal stores can differ here while
// either holds such keys.
absl::StatusOr<std::string> StoreDigest(TrackStore& store);

// --- A slot's migration (CLUSTERX MIGRATE) ---
// The source reads the slot's names from a snapshot, then from its WAL,
// both filtered by name, and the destination applies what it receives as
// a replica applies its primary's batches (derived structures following),
// on top of its own names.
// Snapshot records as one portable batch of puts.
std::string EncodeRecords(absl::Span<const SnapshotRecord> records);
absl::Status ApplyMigrated(TrackStore& store,
                           absl::Span<const std::string> portable_batches);
// Removes every key of the names `keep` accepts (a slot handed over), in
// pieces; how many keys.
absl::StatusOr<uint64_t> DeleteNamesWhere(TrackStore& store,
                                          const NameFilter& keep);

// --- The replica's side ---

// Turns replica mode on (local writes refused) or off: a primary again,
// once what only writers need is reloaded; a store with a mark (it
// followed a primary, before a restart too) also drops the mark and takes
// a new replication id, so that its own writes are never taken for its
// old primary's and following a primary later starts with a full sync.
// A node that starts as a primary calls it with false before any write.
absl::Status SetReplica(TrackStore& store, bool replica);
bool IsReplica(TrackStore& store);
// The mark, if a sync completed (none: a full sync is needed).
absl::StatusOr<std::optional<ReplicationMark>> ReadReplicationMark(
    TrackStore& store);
// Applies `batches` of primary `replid` in one write, with the mark moved
// past them. FAILED_PRECONDITION, applying nothing, unless they continue
// the mark's history from its `next` without a gap.
absl::Status ApplyShipped(TrackStore& store, absl::string_view replid,
                          absl::Span<const ShippedBatch> batches);

// A full sync: Begin clears the mark; Absorb takes the primary's snapshot
// records in order; Finish removes what the primary does not have and sets
// the mark to (replid, sequence + 1).
class FullSync {
 public:
  static absl::StatusOr<std::unique_ptr<FullSync>> Begin(TrackStore& store);
  virtual ~FullSync() = default;
  virtual absl::Status Absorb(absl::Span<const SnapshotRecord> records) = 0;
  virtual absl::Status Finish(absl::string_view replid, uint64_t sequence) = 0;
  // Keys written and deleted so far (what differed).
  virtual uint64_t changed() const = 0;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_REPLICATION_REPLICATION_H_
