#ifndef TRACKDB_STORAGE_ENGINE_H_
#define TRACKDB_STORAGE_ENGINE_H_

// The RocksDB objects behind a TrackStore: storage's own code (the write
// funnel, reads, import, stats, the doctor and storage's tests) reaches
// them here; nothing outside storage/ sees this header (its target is
// visible to storage only), so no rocksdb type crosses storage's API.

#include <memory>
#include <vector>

#include "rocksdb/db.h"
#include "storage/cache_reservation.h"
#include "storage/collection_expiry.h"
#include "storage/fence_registry.h"
#include "storage/keys.h"
#include "storage/latest_index.h"
#include "storage/options.h"

namespace trackdb::storage {

struct Engine {
  StoreOptions options;
  std::unique_ptr<rocksdb::DB> db;
  // One per column family, in options.column_families order, which is the
  // order of ColumnFamily (storage/keys.h; BuildStoreOptions keeps them so).
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  // Every entity's latest position, derived from `latest` (built on open,
  // kept by the write funnel).
  LatestIndex latest_index;
  // The index's memory, charged to the block cache so that the memory
  // budget holds it (set by TrackStore::Open; null: not charged).
  std::unique_ptr<CacheReservation> latest_index_charge;
  // Every collection's fences (built on open, kept by fence_ops.cc).
  FenceRegistry fence_registry;
  // GEO keys' expiry (loaded on open, kept by WriteBatchBuilder).
  CollectionExpiries collection_expiries;

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
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_H_
