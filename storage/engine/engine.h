#ifndef TRACKDB_STORAGE_ENGINE_ENGINE_H_
#define TRACKDB_STORAGE_ENGINE_ENGINE_H_

// The RocksDB objects behind a TrackStore: storage's own code (the write
// funnel, reads, import, stats, the doctor and storage's tests) reaches
// them here; nothing outside storage/ sees this header (its target is
// visible to storage only), so no rocksdb type crosses storage's API.

#include <atomic>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rocksdb/db.h"
#include "storage/collections/collection_expiry.h"
#include "storage/engine/activity_counters.h"
#include "storage/engine/commit_signal.h"
#include "storage/engine/options.h"
#include "storage/fences/fence_registry.h"
#include "storage/format/keys.h"
#include "storage/memory/cache_reservation.h"
#include "storage/points/latest_index.h"
#include "storage/typed/typed_cache.h"

namespace trackdb::storage {

struct Engine {
  StoreOptions options;
  std::unique_ptr<rocksdb::DB> db;
  // One per column family, in options.column_families order, which is the
  // order of ColumnFamily (storage/format/keys.h; BuildStoreOptions keeps them so).
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  // Every entity's latest position, derived from `latest` (built on open,
  // kept by the write funnel).
  LatestIndex latest_index;
  // The index's memory, charged to the block cache so that the memory
  // budget holds it (set by TrackStore::Open; null: not charged).
  std::unique_ptr<CacheReservation> latest_index_charge;
  // Typed values' keys as stored in `types` (storage/typed/typed_cache.h; kept
  // by the write funnel, I8). Set by TrackStore::Open; never null after.
  std::unique_ptr<TypedCache> typed_cache;
  // Every collection's fences (built on open, kept by FenceStore, storage/fence_store.h).
  FenceRegistry fence_registry;
  // GEO keys' expiry (loaded on open, kept by WriteBatchBuilder).
  CollectionExpiries collection_expiries;
  // Set while the store follows a primary (storage/replication/replication.h): only
  // replicated batches change keys then.
  std::atomic<bool> replica{false};
  // Notified after every write (storage/engine/commit_signal.h).
  CommitSignal commits;
  // Fixes, fence events and searches since open (the metrics port).
  ActivityCounters activity;

  // OK, or Redis's READONLY refusal of `what` on a replica.
  absl::Status RefuseOnReplica(absl::string_view what) const {
    if (!replica.load(std::memory_order_relaxed)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "READONLY You can't write against a read only replica. (", what, ")"));
  }

  // Brings the charge up to date; after every change to the index.
  void ChargeLatestIndex() {
    if (latest_index_charge) {
      latest_index_charge->Set(latest_index.ApproximateBytes());
    }
  }

  rocksdb::ColumnFamilyHandle* cf(ColumnFamily family) const {
    return handles[static_cast<size_t>(family)];
  }
  rocksdb::ColumnFamilyHandle* metadata() const {
    return cf(ColumnFamily::kDefault);
  }
  rocksdb::ColumnFamilyHandle* points() const {
    return cf(ColumnFamily::kPoints);
  }
  rocksdb::ColumnFamilyHandle* latest() const {
    return cf(ColumnFamily::kLatest);
  }
  rocksdb::ColumnFamilyHandle* kv() const { return cf(ColumnFamily::kKv); }
  rocksdb::ColumnFamilyHandle* fences() const {
    return cf(ColumnFamily::kFences);
  }
  rocksdb::ColumnFamilyHandle* types() const {
    return cf(ColumnFamily::kTypes);
  }
  rocksdb::ColumnFamilyHandle* chunks() const {
    return cf(ColumnFamily::kChunks);
  }
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_ENGINE_H_
