#ifndef TRACKDB_STORAGE_COLLECTIONS_COLLECTION_EXPIRY_H_
#define TRACKDB_STORAGE_COLLECTIONS_COLLECTION_EXPIRY_H_

// GEO keys' expiry: when a collection expires as a whole, as Redis's EXPIRE
// on a key (storage/format/keys.h: CollectionExpiryKey in `default`, and this
// in-memory copy, loaded on open, in Engine).
//
// The rules (TrackStore keeps them; track_store.h):
//   - A collection past its expiry reads as absent: CollectionSize is 0,
//     ScanCollections skips it, so the doors' existence checks see no key.
//   - It is removed as DeleteCollection removes it, by the first of: a write
//     to it (AddPoints removes it first, so a point written after the expiry
//     starts a new key, as in Redis), a whole-name operation (DEL, SET,
//     RENAME, COPY over it), or TrackStore::ExpireCollections, which the
//     server calls every few hundred milliseconds. Until then, reads that
//     do not ask CollectionSize first (gRPC GetLatest, searches) may still
//     see its points.
//   - Removing a collection (DeleteCollection, or its last entity) removes
//     its expiry: a later key of that name starts without one. (When the
//     last entities go by racing removals or by retention, the expiry is
//     left behind but reads as none, and the next write clears it first.)
//     Copying or renaming a collection carries it along.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::storage {

class CollectionExpiries {
 public:
  // When `collection` expires (Unix ms); 0: never. No lock is taken while
  // no collection has an expiry.
  int64_t Get(absl::string_view collection) const;
  bool Due(absl::string_view collection, int64_t now_ms) const {
    const int64_t at = Get(collection);
    return at != 0 && at <= now_ms;
  }
  // Sets (0: removes) `collection`'s expiry.
  void Set(absl::string_view collection, int64_t at_ms);
  // Every collection whose expiry is <= now_ms.
  std::vector<std::string> AllDue(int64_t now_ms) const;
  size_t size() const { return size_.load(std::memory_order_acquire); }

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, int64_t> at_ ABSL_GUARDED_BY(mu_);
  std::atomic<size_t> size_{0};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_COLLECTIONS_COLLECTION_EXPIRY_H_
