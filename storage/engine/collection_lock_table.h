#ifndef TRACKDB_STORAGE_ENGINE_COLLECTION_LOCK_TABLE_H_
#define TRACKDB_STORAGE_ENGINE_COLLECTION_LOCK_TABLE_H_

// The locks of whole collections (GEO keys), a fixed table of stripes by
// the name's hash. A points write holds its collection's stripe shared; a
// change to the collection as a whole (a fence, its expiry, its removal,
// a whole-name operation) holds it exclusively, so that no points write
// sees half of it.

#include <array>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"

namespace trackdb::storage {

class CollectionLockTable {
 public:
  // The lock of `collection` (shared by the names of its stripe).
  absl::Mutex& For(absl::string_view collection);
  // Each distinct lock of `names`, in one fixed order (so that two callers
  // that take them in turn cannot deadlock).
  std::vector<absl::Mutex*> ForAll(absl::Span<const std::string> names);

 private:
  std::array<absl::Mutex, 64> locks_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_COLLECTION_LOCK_TABLE_H_
