#ifndef TRACKDB_STORAGE_REPLICATION_PORTABLE_BATCH_H_
#define TRACKDB_STORAGE_REPLICATION_PORTABLE_BATCH_H_

// A replicated batch names each record's column family by its ColumnFamily
// value (storage/format/keys.h) rather than by the RocksDB id it has in one data
// dir: ids are handed out in creation order, so two data dirs with
// different histories (one that dropped the retired geo family) number
// the same family differently. PortableFamily is a stand-in handle whose
// id is that value, for building such a batch with WriteBatch's own calls;
// it is never given to the DB.

#include "rocksdb/comparator.h"
#include "rocksdb/db.h"
#include "storage/format/keys.h"

namespace trackdb::storage {

rocksdb::ColumnFamilyHandle* PortableFamily(ColumnFamily cf);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_REPLICATION_PORTABLE_BATCH_H_
