#include "storage/history_chunker.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "storage/engine/engine.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

using model::TrackPoint;

struct RawFix {
  std::string key;
  TrackPoint point;
};

struct StoredChunk {
  std::string key;
  std::vector<TrackPoint> fixes;
};

// Whether the iterator is on a key of the entity whose prefix is `prefix`.
bool OfEntity(const rocksdb::Iterator& it, absl::string_view prefix) {
  return it.Valid() && IsEntityTimeKey(SliceView(it.key()), prefix);
}

// Up to `max` of the entity's raw fixes, oldest first; *more when more
// remain.
absl::Status ReadRaw(const Engine& engine, const std::string& prefix,
                     size_t max, std::vector<RawFix>* raw, bool* more) {
  const std::string end = prefix + std::string(9, '\xff');
  rocksdb::Slice lower(prefix), upper(end);
  rocksdb::ReadOptions read;
  read.iterate_lower_bound = &lower;
  read.iterate_upper_bound = &upper;
  read.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(
      engine.db->NewIterator(read, engine.points()));
  *more = false;
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    if (!OfEntity(*it, prefix)) continue;
    if (raw->size() == max) {
      *more = true;
      break;
    }
    RawFix fix{it->key().ToString(), {}};
    if (absl::Status s = DecodePointValue(SliceView(it->value()), &fix.point);
        !s.ok()) {
      return s;
    }
    raw->push_back(std::move(fix));
  }
  return FromRocks(it->status(), "reading history to fold");
}

absl::StatusOr<std::optional<StoredChunk>> ChunkAt(const rocksdb::Iterator& it,
                                                   absl::string_view prefix) {
  if (!OfEntity(it, prefix)) {
    if (absl::Status s = FromRocks(it.status(), "reading chunks"); !s.ok()) {
      return s;
    }
    return std::nullopt;
  }
  StoredChunk chunk{it.key().ToString(), {}};
  if (absl::Status s = DecodeChunk(SliceView(it.value()), &chunk.fixes);
      !s.ok()) {
    return s;
  }
  return chunk;
}

// `older`'s fixes and `newer`'s in time order; at one time, newer's.
std::vector<TrackPoint> Merge(std::vector<TrackPoint> older,
                              absl::Span<const RawFix> newer) {
  std::vector<TrackPoint> out;
  out.reserve(older.size() + newer.size());
  size_t i = 0, j = 0;
  while (i < older.size() || j < newer.size()) {
    if (j == newer.size() ||
        (i < older.size() &&
         older[i].loc_time_ms < newer[j].point.loc_time_ms)) {
      out.push_back(std::move(older[i++]));
      continue;
    }
    if (i < older.size() &&
        older[i].loc_time_ms == newer[j].point.loc_time_ms) {
      ++i;  // replaced
    }
    out.push_back(newer[j++].point);
  }
  return out;
}

// `fixes` as chunks of at most `max` fixes, of even sizes, each keyed by
// its last fix.
absl::Status PutChunks(WriteBatchBuilder& batch, absl::string_view prefix,
                       absl::Span<const TrackPoint> fixes, size_t max,
                       FoldCounts* counts) {
  return ForEachChunk(fixes, max, [&](absl::Span<const TrackPoint> piece) {
    ++counts->chunks;
    return batch.Put(ColumnFamily::kChunks,
                     EntityTimeKey(prefix, piece.back().loc_time_ms),
                     EncodeChunk(piece));
  });
}

// One batch's plan: the chunks it replaces and writes.
class FoldPlan {
 public:
  FoldPlan(const Engine& engine, WriteBatchBuilder& batch, std::string prefix,
           const FoldOptions& options, FoldCounts* counts)
      : chunks_(
            engine.db->NewIterator(rocksdb::ReadOptions(), engine.chunks())),
        batch_(batch),
        prefix_(std::move(prefix)),
        options_(options),
        counts_(counts) {}

  // Folds raw[begin..] as far as one chunk or gap goes; returns where the
  // next one begins.
  absl::StatusOr<size_t> FoldFrom(absl::Span<const RawFix> raw, size_t begin);

 private:
  // Removes a stored chunk this batch replaces.
  absl::Status Replace(const StoredChunk& chunk) {
    replaced_.insert(chunk.key);
    return batch_.Delete(ColumnFamily::kChunks, chunk.key);
  }
  // The chunk before time `t` if this batch may join fixes to it.
  absl::StatusOr<std::optional<StoredChunk>> RoomBefore(int64_t t);

  std::unique_ptr<rocksdb::Iterator> chunks_;
  WriteBatchBuilder& batch_;
  const std::string prefix_;
  const FoldOptions& options_;
  FoldCounts* const counts_;
  absl::flat_hash_set<std::string> replaced_;
};

absl::StatusOr<std::optional<StoredChunk>> FoldPlan::RoomBefore(int64_t t) {
  chunks_->SeekForPrev(EntityTimeKey(prefix_, t));
  absl::StatusOr<std::optional<StoredChunk>> prev = ChunkAt(*chunks_, prefix_);
  if (!prev.ok() || !*prev) return prev;
  // One this batch rewrote already is not read again: what it holds now
  // is in the batch, not in the store.
  if ((*prev)->fixes.size() >= options_.chunk_fixes ||
      replaced_.contains((*prev)->key)) {
    return std::nullopt;
  }
  return prev;
}

absl::StatusOr<size_t> FoldPlan::FoldFrom(absl::Span<const RawFix> raw,
                                          size_t begin) {
  const int64_t t = raw[begin].point.loc_time_ms;
  chunks_->Seek(
      EntityTimeKey(prefix_, t));  // the first chunk ending at or after t
  absl::StatusOr<std::optional<StoredChunk>> next = ChunkAt(*chunks_, prefix_);
  if (!next.ok()) return next.status();
  std::optional<StoredChunk> older;
  size_t end = begin;
  if (*next && (*next)->fixes.front().loc_time_ms <= t) {
    // Inside that chunk: every raw fix of its span goes into it.
    const int64_t last = (*next)->fixes.back().loc_time_ms;
    while (end < raw.size() && raw[end].point.loc_time_ms <= last) ++end;
    older = std::move(**next);
  } else {
    // A gap: up to the next chunk, joined to the one before while it has
    // room.
    while (end < raw.size() &&
           (!*next ||
            raw[end].point.loc_time_ms < (*next)->fixes.front().loc_time_ms)) {
      ++end;
    }
    absl::StatusOr<std::optional<StoredChunk>> prev = RoomBefore(t);
    if (!prev.ok()) return prev.status();
    older = *std::move(prev);
  }
  std::vector<TrackPoint> fixes;
  if (older) {
    if (absl::Status s = Replace(*older); !s.ok()) return s;
    fixes = std::move(older->fixes);
  }
  fixes = Merge(std::move(fixes), raw.subspan(begin, end - begin));
  if (absl::Status s =
          PutChunks(batch_, prefix_, fixes, options_.chunk_fixes, counts_);
      !s.ok()) {
    return s;
  }
  return end;
}

// A points key's collection and entity; nullopt for a history cell key
// or a malformed one.
struct EntityOfKey {
  absl::string_view collection;
  absl::string_view entity;
  bool cells = false;  // a history cell key of `collection`
};
std::optional<EntityOfKey> ParsePointsKey(absl::string_view key) {
  uint32_t length = 0;
  EntityOfKey out;
  if (!ReadVarint32(&key, &length) || key.size() < length) return std::nullopt;
  out.collection = key.substr(0, length);
  key.remove_prefix(length);
  if (absl::StartsWith(key, kHistoryCellsTag)) {
    out.cells = true;
    return out;
  }
  if (!ReadVarint32(&key, &length) || key.size() != length + 8) {
    return std::nullopt;
  }
  out.entity = key.substr(0, length);
  return out;
}

}  // namespace

absl::StatusOr<FoldCounts> HistoryChunker::FoldBatch(
    absl::string_view collection, absl::string_view entity,
    const FoldOptions& options, bool* more) {
  *more = false;
  absl::ReaderMutexLock collection_lock(&collection_locks_->For(collection));
  EntityLocks::Held held =
      entity_locks_->Lock({EntityLocks::StripeOf(collection, entity)});
  const std::string prefix = EntityPointsPrefix(collection, entity);
  std::vector<RawFix> raw;
  if (absl::Status s =
          ReadRaw(*engine_, prefix, options.batch_fixes, &raw, more);
      !s.ok()) {
    return s;
  }
  FoldCounts counts;
  if (raw.empty()) return counts;
  WriteBatchBuilder batch(*engine_);
  FoldPlan plan(*engine_, batch, prefix, options, &counts);
  for (size_t i = 0; i < raw.size();) {
    absl::StatusOr<size_t> next = plan.FoldFrom(raw, i);
    if (!next.ok()) return next.status();
    i = *next;
  }
  for (const RawFix& fix : raw) {
    if (absl::Status s = batch.Delete(ColumnFamily::kPoints, fix.key);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = batch.Commit("folding history"); !s.ok()) return s;
  counts.entities = 1;
  counts.fixes = raw.size();
  return counts;
}

absl::StatusOr<FoldCounts> HistoryChunker::FoldEntity(
    absl::string_view collection, absl::string_view entity,
    const FoldOptions& options) {
  FoldCounts total;
  bool more = true;
  while (more) {
    absl::StatusOr<FoldCounts> counts =
        FoldBatch(collection, entity, options, &more);
    if (!counts.ok()) return counts.status();
    total.entities = std::max(total.entities, counts->entities);
    total.fixes += counts->fixes;
    total.chunks += counts->chunks;
  }
  return total;
}

absl::StatusOr<FoldCounts> HistoryChunker::FoldAll(const FoldOptions& options,
                                                   int64_t now_ms) {
  return FoldRange("", "", options, now_ms);
}

absl::StatusOr<FoldCounts> HistoryChunker::FoldCollection(
    absl::string_view collection, const FoldOptions& options) {
  const std::string begin = CollectionPrefix(collection);
  return FoldRange(begin, PrefixEnd(begin), options, INT64_MAX);
}

absl::StatusOr<FoldCounts> HistoryChunker::FoldRange(const std::string& begin,
                                                     const std::string& end,
                                                     const FoldOptions& options,
                                                     int64_t now_ms) {
  rocksdb::ReadOptions read;
  read.fill_cache = false;
  rocksdb::Slice upper(end);
  if (!end.empty()) read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      engine_->db->NewIterator(read, engine_->points()));
  FoldCounts total;
  it->Seek(begin);
  while (it->Valid() && !(options.cancelled && options.cancelled())) {
    const std::optional<EntityOfKey> at = ParsePointsKey(SliceView(it->key()));
    if (!at || at->cells) {
      // Past the collection's cells (or a key no entity has).
      const std::string past = at ? PrefixEnd(CollectionPrefix(at->collection))
                                  : it->key().ToString() + '\0';
      if (past.empty()) break;  // the last collection there can be
      it->Seek(past);
      continue;
    }
    const std::string collection(at->collection), entity(at->entity);
    const std::string prefix = EntityPointsPrefix(collection, entity);
    size_t count = 0;
    int64_t newest = INT64_MIN;
    for (; OfEntity(*it, prefix); it->Next()) {
      ++count;
      newest = PointKeyTime(SliceView(it->key()));
    }
    if (count < options.min_fixes && (now_ms - options.idle_ms <= newest ||
                                      count < options.idle_min_fixes)) {
      continue;
    }
    absl::StatusOr<FoldCounts> counts = FoldEntity(collection, entity, options);
    if (!counts.ok()) return counts.status();
    total.entities += counts->entities;
    total.fixes += counts->fixes;
    total.chunks += counts->chunks;
  }
  if (absl::Status s = FromRocks(it->status(), "folding history"); !s.ok()) {
    return s;
  }
  return total;
}

}  // namespace trackdb::storage
