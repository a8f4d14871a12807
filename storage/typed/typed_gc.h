#ifndef TRACKDB_STORAGE_TYPED_TYPED_GC_H_
#define TRACKDB_STORAGE_TYPED_TYPED_GC_H_

// Compaction of the `types` column family (storage/format/typed_codec.h) drops
// what reads no longer see: a meta key whose value has expired, and every
// member key whose name's live meta has another version, has expired or
// is gone (a value deleted, expired or replaced in O(1) leaves its members
// behind for this filter). Reads never depend on it: they look only under
// the live meta's version.
//
// Members of an expired value are kept a minute past its expiry (a
// command whose clock was read just before may still write its meta back).
// A member's fate needs its name's meta, which the filter reads from the
// DB itself (as Kvrocks's subkey filter does), once per name: keys arrive
// sorted, so a name's members come together. Until TrackStore::Open has
// attached the DB, and after Close detaches it, the filter keeps every
// member.

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "rocksdb/compaction_filter.h"
#include "rocksdb/db.h"

namespace trackdb::storage {

// The DB the filter reads metas from, attached once it is open.
class TypedGcTarget {
 public:
  void Attach(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* types);
  void Detach();
  // Reads name's meta key (a TypedMetaKey) into *value. False when no DB
  // is attached or the read failed (the filter then keeps the member);
  // *found says whether the key exists.
  bool ReadMeta(const rocksdb::Slice& key, std::string* value, bool* found);

 private:
  absl::Mutex mu_;
  rocksdb::DB* db_ ABSL_GUARDED_BY(mu_) = nullptr;
  rocksdb::ColumnFamilyHandle* types_ ABSL_GUARDED_BY(mu_) = nullptr;
};

std::shared_ptr<rocksdb::CompactionFilterFactory> NewTypedGcFilterFactory(
    std::shared_ptr<TypedGcTarget> target, std::function<int64_t()> clock_ms);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_TYPED_TYPED_GC_H_
