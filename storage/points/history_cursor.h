#ifndef TRACKDB_STORAGE_POINTS_HISTORY_CURSOR_H_
#define TRACKDB_STORAGE_POINTS_HISTORY_CURSOR_H_

// One entity's history in time order (or against it), from both places a
// fix can be (storage/format/keys.h): its own key in `points`, or a chunk in
// `chunks`. Where both hold a time, the points one was written later and
// is the fix. Every reader of history reads through this.
//
// The two iterators must see one state of the store: made by one
// NewIterators call, or both under one snapshot, so that a fold (raw fixes
// moved into a chunk in one batch) is seen whole or not at all. They are
// the caller's, reused across entities; bounds on them are not needed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "model/track_point.h"
#include "rocksdb/iterator.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/point_codec.h"

namespace trackdb::storage {

class HistoryCursor {
 public:
  HistoryCursor(rocksdb::Iterator* points, rocksdb::Iterator* chunks)
      : points_(points), chunks_(chunks) {}

  struct Range {
    int64_t from_ms;  // the first fix is the nearest to it inside the range
    int64_t start_ms;
    int64_t end_ms;
    bool descending = false;
  };
  // At the entity's first fix at or after range.from_ms (at or before,
  // descending), inside [start_ms, end_ms]; not Valid() when none.
  absl::Status Seek(absl::string_view collection, absl::string_view entity,
                    const Range& range);
  bool Valid() const { return raw_ || chunked_; }
  int64_t time() const;
  // The fix's time and position (a raw fix's without decoding the rest).
  absl::StatusOr<PointPosition> Position() const;
  // The whole fix into *p, its entity untouched.
  absl::Status Read(model::TrackPoint* p) const;
  absl::Status Next();

 private:
  bool FromRaw() const;
  void CheckRaw();
  absl::Status LoadChunk();
  void SeekChunkForward(int64_t from_ms);
  void SeekChunkBackward(int64_t from_ms);
  absl::Status PlaceInChunk(int64_t from_ms);
  absl::Status StepChunk();
  void CheckChunk();
  bool InRange(int64_t t) const;

  rocksdb::Iterator* const points_;
  rocksdb::Iterator* const chunks_;
  std::string prefix_;  // the entity's key prefix (both families)
  Range range_;
  bool raw_ = false;  // points_ is at a fix of the range
  int64_t raw_time_ = 0;
  ChunkColumns chunk_;     // the chunk chunks_ is at
  bool loaded_ = false;    // chunk_ holds it
  std::string chunk_key_;  // its key: a seek back to it decodes nothing
  int64_t index_ = -1;     // into chunk_; -1: no chunk
  bool chunked_ = false;  // chunk_ at index_ is a fix of the range
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_POINTS_HISTORY_CURSOR_H_
