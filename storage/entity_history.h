#ifndef TRACKDB_STORAGE_ENTITY_HISTORY_H_
#define TRACKDB_STORAGE_ENTITY_HISTORY_H_

// One entity's history over one view of `points` and `chunks` (a fold
// moving fixes between them is seen whole or not at all), bounded to the
// entity's keys, with the cursor that reads both as one
// (storage/points/history_cursor.h). Not movable: the iterators point at
// its bounds.

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "rocksdb/iterator.h"
#include "rocksdb/slice.h"
#include "storage/engine/engine.h"
#include "storage/points/history_cursor.h"

namespace trackdb::storage {

class EntityHistory {
 public:
  EntityHistory(absl::string_view collection, absl::string_view entity);
  EntityHistory(const EntityHistory&) = delete;
  EntityHistory& operator=(const EntityHistory&) = delete;

  absl::Status Open(const Engine& engine);

  HistoryCursor& cursor() { return *cursor_; }
  // The iterators under the cursor: the entity's raw fixes, its chunks.
  rocksdb::Iterator& points() { return *points_; }
  rocksdb::Iterator& chunks() { return *chunks_; }
  // Both families' keys of the entity start with this (EntityPointsPrefix).
  const std::string& prefix() const { return begin_; }

 private:
  const std::string begin_, end_;
  const rocksdb::Slice lower_, upper_;
  std::unique_ptr<rocksdb::Iterator> points_, chunks_;
  std::optional<HistoryCursor> cursor_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENTITY_HISTORY_H_
