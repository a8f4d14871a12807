#include "storage/import/history_sink.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"

namespace trackdb::storage {
namespace {

// An iterator over `cf` at the collection's first key, or null when the
// collection has none there.
absl::StatusOr<std::unique_ptr<rocksdb::Iterator>> OverCollection(
    const Engine& engine, rocksdb::ColumnFamilyHandle* cf,
    const std::string& prefix) {
  rocksdb::ReadOptions read;
  read.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(engine.db->NewIterator(read, cf));
  it->Seek(prefix);
  if (!it->status().ok()) return FromRocks(it->status(), "reading history");
  if (!it->Valid() || !absl::StartsWith(SliceView(it->key()), prefix)) {
    return nullptr;
  }
  return it;
}

// Whether `it` (null: nothing stored) holds a key of the entity.
absl::StatusOr<bool> HoldsEntity(rocksdb::Iterator* it,
                                 const std::string& entity_prefix) {
  if (it == nullptr) return false;
  it->Seek(entity_prefix);
  if (!it->status().ok()) return FromRocks(it->status(), "reading history");
  return it->Valid() && IsEntityTimeKey(SliceView(it->key()), entity_prefix);
}

}  // namespace

HistorySink::HistorySink(const Engine& engine, absl::string_view collection,
                         SstSink* points, SstSink* chunks,
                         const FoldOptions& options)
    : collection_prefix_(CollectionPrefix(collection)),
      points_(points),
      chunks_(chunks),
      chunk_fixes_(options.chunk_fixes),
      batch_fixes_(std::max(options.batch_fixes, options.chunk_fixes)) {
  // An error here is met again, and returned, by StartEntity's seeks.
  auto stored = OverCollection(engine, engine.points(), collection_prefix_);
  if (stored.ok()) stored_points_ = std::move(*stored);
  stored = OverCollection(engine, engine.chunks(), collection_prefix_);
  if (stored.ok()) stored_chunks_ = std::move(*stored);
}

absl::Status HistorySink::StartEntity(absl::string_view entity_part) {
  entity_prefix_ = collection_prefix_;
  entity_prefix_.append(entity_part.data(), entity_part.size());
  pending_.clear();
  absl::StatusOr<bool> raw = HoldsEntity(stored_points_.get(), entity_prefix_);
  if (!raw.ok()) return raw.status();
  absl::StatusOr<bool> chunked =
      HoldsEntity(stored_chunks_.get(), entity_prefix_);
  if (!chunked.ok()) return chunked.status();
  chunking_ = !*raw && !*chunked;
  ++(chunking_ ? chunked_entities_ : raw_entities_);
  // Files are cut between entities, so that an entity's history is in
  // one file, unless it alone outgrows several.
  return (chunking_ ? chunks_ : points_)->MaybeCut(1);
}

absl::Status HistorySink::Add(absl::string_view key, absl::string_view value) {
  if (!chunking_) {
    if (absl::Status s = points_->MaybeCut(4); !s.ok()) return s;
    return points_->Put(ToSlice(key), ToSlice(value));
  }
  pending_.emplace_back();
  model::TrackPoint& fix = pending_.back();
  if (absl::Status s = DecodePointValue(value, &fix); !s.ok()) return s;
  fix.loc_time_ms = PointKeyTime(key);
  if (pending_.size() == batch_fixes_) return FlushChunks();
  return absl::OkStatus();
}

absl::Status HistorySink::EndEntity() {
  if (!chunking_ || pending_.empty()) return absl::OkStatus();
  return FlushChunks();
}

// A chunk's key is its last fix's points key in `chunks`.
absl::Status HistorySink::FlushChunks() {
  absl::Status s = ForEachChunk(
      pending_, chunk_fixes_, [&](absl::Span<const model::TrackPoint> piece) {
        if (absl::Status c = chunks_->MaybeCut(4); !c.ok()) return c;
        ++chunks_written_;
        return chunks_->Put(
            EntityTimeKey(entity_prefix_, piece.back().loc_time_ms),
            EncodeChunk(piece));
      });
  pending_.clear();
  return s;
}

}  // namespace trackdb::storage
