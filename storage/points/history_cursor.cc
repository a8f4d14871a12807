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
  chunked_ = index_ >= 0 && index_ < static_cast<int64_t>(fixes_.size()) &&
             InRange(fixes_[index_].loc_time_ms);
}

absl::Status HistoryCursor::LoadChunk() {
  fixes_.clear();
  index_ = -1;
  if (!OfEntity(*chunks_, prefix_))
    return FromRocks(chunks_->status(), "reading history");
  return DecodeChunk(SliceView(chunks_->value()), &fixes_);
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
  if (fixes_.empty()) return absl::OkStatus();
  const auto at = [](const model::TrackPoint& p, int64_t t) {
    return p.loc_time_ms < t;
  };
  auto it = std::lower_bound(fixes_.begin(), fixes_.end(), from_ms, at);
  if (range_.descending && (it == fixes_.end() || it->loc_time_ms > from_ms)) {
    --it;  // the chunk begins at or before from_ms, so one is there
  }
  index_ = it - fixes_.begin();
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
  return FromRaw() ? raw_time_ : fixes_[index_].loc_time_ms;
}

// The raw fix when it comes first in the cursor's order, or at the same
// time as the chunk's (it replaced that one).
bool HistoryCursor::FromRaw() const {
  if (!chunked_) return raw_;
  if (!raw_) return false;
  const int64_t chunk_time = fixes_[index_].loc_time_ms;
  return range_.descending ? raw_time_ >= chunk_time : raw_time_ <= chunk_time;
}

absl::StatusOr<PointPosition> HistoryCursor::Position() const {
  if (!FromRaw()) {
    const model::TrackPoint& p = fixes_[index_];
    return PointPosition{p.loc_time_ms, p.lat, p.lon};
  }
  std::optional<PointPosition> at = DecodePosition(SliceView(points_->value()));
  if (!at) return absl::DataLossError("corrupt point value in storage");
  return *at;
}

absl::Status HistoryCursor::Read(model::TrackPoint* p) const {
  if (FromRaw()) return DecodePointValue(SliceView(points_->value()), p);
  const model::TrackPoint& fix = fixes_[index_];
  std::string entity = std::move(p->entity);
  *p = fix;
  p->entity = std::move(entity);
  return absl::OkStatus();
}

absl::Status HistoryCursor::StepChunk() {
  index_ += range_.descending ? -1 : 1;
  if (index_ < 0 || index_ >= static_cast<int64_t>(fixes_.size())) {
    if (range_.descending) {
      chunks_->Prev();
    } else {
      chunks_->Next();
    }
    if (absl::Status s = LoadChunk(); !s.ok()) return s;
    if (!fixes_.empty()) {
      index_ = range_.descending ? static_cast<int64_t>(fixes_.size()) - 1 : 0;
    }
  }
  CheckChunk();
  return absl::OkStatus();
}

absl::Status HistoryCursor::Next() {
  const bool from_raw = FromRaw();
  const bool both =
      from_raw && chunked_ && fixes_[index_].loc_time_ms == raw_time_;
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
