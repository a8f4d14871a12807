#include "storage/points/history_cursor.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"

namespace trackdb::storage {
namespace {

// Whether the iterator is on a key of the entity whose prefix is `prefix`.
bool OfEntity(const rocksdb::Iterator& it, absl::string_view prefix) {
  return it.Valid() && IsEntityTimeKey(SliceView(it.key()), prefix);
}

}  // namespace

bool HistoryCursor::InRange(int64_t t) const {
  return t >= range_.start_ms && t <= range_.end_ms;
}

void HistoryCursor::CheckRaw() {
  raw_ = OfEntity(*points_, prefix_);
  if (raw_) raw_time_ = PointKeyTime(SliceView(points_->key()));
  raw_ = raw_ && InRange(raw_time_);
}

void HistoryCursor::CheckChunk() {
  chunked_ = loaded_ && index_ >= 0 &&
             index_ < static_cast<int64_t>(chunk_.size()) &&
             InRange(chunk_.times()[index_]);
}

absl::Status HistoryCursor::LoadChunk() {
  index_ = -1;
  if (!OfEntity(*chunks_, prefix_)) {
    loaded_ = false;
    return FromRocks(chunks_->status(), "reading history");
  }
  const absl::string_view key = SliceView(chunks_->key());
  if (loaded_ && key == chunk_key_) return absl::OkStatus();
  chunk_key_.assign(key.data(), key.size());
  loaded_ = false;
  if (absl::Status s = DecodeChunkColumns(SliceView(chunks_->value()), &chunk_);
      !s.ok()) {
    return s;
  }
  loaded_ = true;
  return absl::OkStatus();
}

// The first chunk whose last fix is at or after `from_ms`.
void HistoryCursor::SeekChunkForward(int64_t from_ms) {
  chunks_->Seek(EntityTimeKey(prefix_, from_ms));
}

void HistoryCursor::SeekChunkBackward(int64_t from_ms) {
  const std::string key = EntityTimeKey(prefix_, from_ms);
  // The chunk holding from_ms ends at or after it; if the first such chunk
  // begins after it, the one before it (ending before from_ms) is next.
  chunks_->Seek(key);
  if (OfEntity(*chunks_, prefix_)) {
    const std::optional<ChunkSpan> span =
        DecodeChunkSpan(SliceView(chunks_->value()));
    if (span && span->first_ms <= from_ms) return;
  }
  chunks_->SeekForPrev(key);
}

absl::Status HistoryCursor::PlaceInChunk(int64_t from_ms) {
  if (absl::Status s = LoadChunk(); !s.ok()) return s;
  if (!loaded_) {
    chunked_ = false;  // what a Seek before this one found is gone
    return absl::OkStatus();
  }
  const std::vector<int64_t>& times = chunk_.times();
  auto it = std::lower_bound(times.begin(), times.end(), from_ms);
  if (range_.descending && (it == times.end() || *it > from_ms)) {
    --it;  // the chunk begins at or before from_ms, so one is there
  }
  index_ = it - times.begin();
  CheckChunk();
  return absl::OkStatus();
}

absl::Status HistoryCursor::Seek(absl::string_view collection,
                                 absl::string_view entity, const Range& range) {
  prefix_ = EntityPointsPrefix(collection, entity);
  range_ = range;
  const std::string key = PointKey(collection, entity, range.from_ms);
  if (range.descending) {
    points_->SeekForPrev(key);
    SeekChunkBackward(range.from_ms);
  } else {
    points_->Seek(key);
    SeekChunkForward(range.from_ms);
  }
  CheckRaw();
  if (absl::Status s = PlaceInChunk(range.from_ms); !s.ok()) return s;
  return FromRocks(points_->status(), "reading history");
}

int64_t HistoryCursor::time() const {
  return FromRaw() ? raw_time_ : chunk_.times()[index_];
}

// The raw fix when it comes first in the cursor's order, or at the same
// time as the chunk's (it replaced that one).
bool HistoryCursor::FromRaw() const {
  if (!chunked_) return raw_;
  if (!raw_) return false;
  const int64_t chunk_time = chunk_.times()[index_];
  return range_.descending ? raw_time_ >= chunk_time : raw_time_ <= chunk_time;
}

absl::StatusOr<PointPosition> HistoryCursor::Position() const {
  if (!FromRaw()) {
    return PointPosition{chunk_.times()[index_], chunk_.lat(index_),
                         chunk_.lon(index_)};
  }
  std::optional<PointPosition> at = DecodePosition(SliceView(points_->value()));
  if (!at) return absl::DataLossError("corrupt point value in storage");
  return *at;
}

absl::Status HistoryCursor::Read(model::TrackPoint* p) const {
  if (FromRaw()) return DecodePointValue(SliceView(points_->value()), p);
  chunk_.Fill(index_, p);
  return absl::OkStatus();
}

absl::Status HistoryCursor::StepChunk() {
  index_ += range_.descending ? -1 : 1;
  if (index_ < 0 || index_ >= static_cast<int64_t>(chunk_.size())) {
    if (range_.descending) {
      chunks_->Prev();
    } else {
      chunks_->Next();
    }
    if (absl::Status s = LoadChunk(); !s.ok()) return s;
    if (loaded_) {
      index_ = range_.descending ? static_cast<int64_t>(chunk_.size()) - 1 : 0;
    }
  }
  CheckChunk();
  return absl::OkStatus();
}

absl::Status HistoryCursor::Next() {
  const bool from_raw = FromRaw();
  const bool both =
      from_raw && chunked_ && chunk_.times()[index_] == raw_time_;
  if (from_raw) {
    if (range_.descending) {
      points_->Prev();
    } else {
      points_->Next();
    }
    CheckRaw();
    if (absl::Status s = FromRocks(points_->status(), "reading history");
        !s.ok()) {
      return s;
    }
  }
  if (!from_raw || both) return StepChunk();
  return absl::OkStatus();
}

}  // namespace trackdb::storage
