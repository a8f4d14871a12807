#include "storage/history_trim.h"

#include <string>
#include <vector>

#include "model/track_point.h"
#include "storage/entity_history.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

// Beyond this many keys before the cut, one range deletion instead.
constexpr size_t kMaxDeletions = 64;

// The keys of [begin, end), of which `keys` are the first (all of them
// when there are at most kMaxDeletions): one by one, or beyond that one
// range deletion (a range tombstone costs every new iterator until it is
// flushed, so they are kept for long runs).
absl::Status DeleteKeys(ColumnFamily cf, const std::string& begin,
                        const std::string& end,
                        const std::vector<std::string>& keys,
                        WriteBatchBuilder& batch) {
  if (keys.size() > kMaxDeletions) {
    batch.DeleteRange(cf, begin, end);
    return absl::OkStatus();
  }
  for (const std::string& key : keys) {
    if (absl::Status s = batch.Delete(cf, key); !s.ok()) return s;
  }
  return absl::OkStatus();
}

class Trimmer {
 public:
  Trimmer(EntityHistory& history, absl::string_view collection,
          absl::string_view entity)
      : history_(history), collection_(collection), entity_(entity) {}

  // The time of the oldest fix to keep; INT64_MIN when there is none.
  absl::StatusOr<int64_t> OldestKept(uint64_t max,
                                     std::optional<int64_t> from_ms);
  // How many fixes lie before `cut`.
  absl::StatusOr<uint64_t> CountBefore(int64_t cut);
  // Everything before `cut` out of both families, into `batch`.
  absl::Status Cut(int64_t cut, WriteBatchBuilder& batch);

 private:
  absl::Status Seek(const HistoryCursor::Range& range) {
    return history_.cursor().Seek(collection_, entity_, range);
  }
  // Steps up to `n` times: false when the history ran out first.
  absl::StatusOr<bool> Skip(uint64_t n);
  absl::StatusOr<uint64_t> CountToEnd();
  absl::Status CutRaw(int64_t cut, WriteBatchBuilder& batch);
  absl::Status CutChunks(int64_t cut, WriteBatchBuilder& batch);

  EntityHistory& history_;
  const absl::string_view collection_, entity_;
};

absl::StatusOr<bool> Trimmer::Skip(uint64_t n) {
  HistoryCursor& c = history_.cursor();
  for (; n > 0 && c.Valid(); --n) {
    if (absl::Status s = c.Next(); !s.ok()) return s;
  }
  return c.Valid();
}

absl::StatusOr<uint64_t> Trimmer::CountToEnd() {
  HistoryCursor& c = history_.cursor();
  uint64_t n = 0;
  for (; c.Valid(); ++n) {
    if (absl::Status s = c.Next(); !s.ok()) return s;
  }
  return n;
}

absl::StatusOr<int64_t> Trimmer::OldestKept(uint64_t max,
                                            std::optional<int64_t> from_ms) {
  HistoryCursor& c = history_.cursor();
  if (from_ms) {  // with max or more from there, the cut is found forward
    const HistoryCursor::Range forward{*from_ms, *from_ms, INT64_MAX};
    if (absl::Status s = Seek(forward); !s.ok()) return s;
    absl::StatusOr<uint64_t> n = CountToEnd();
    if (!n.ok()) return n.status();
    if (*n >= max) {
      if (absl::Status s = Seek(forward); !s.ok()) return s;
      absl::StatusOr<bool> at = Skip(*n - max);
      if (!at.ok()) return at.status();
      return c.time();
    }
  }
  // Back from the newest.
  if (absl::Status s = Seek({INT64_MAX, INT64_MIN, INT64_MAX, true}); !s.ok()) {
    return s;
  }
  if (!c.Valid()) return INT64_MIN;
  absl::StatusOr<bool> at = Skip(max - 1);
  if (!at.ok()) return at.status();
  if (*at) return c.time();
  // max or fewer: every one is kept, from the first.
  if (absl::Status s = Seek({INT64_MIN, INT64_MIN, INT64_MAX}); !s.ok()) {
    return s;
  }
  return c.Valid() ? c.time() : INT64_MIN;
}

absl::StatusOr<uint64_t> Trimmer::CountBefore(int64_t cut) {
  if (cut == INT64_MIN) return 0;
  if (absl::Status s = Seek({INT64_MIN, INT64_MIN, cut - 1}); !s.ok()) {
    return s;
  }
  return CountToEnd();
}

absl::Status Trimmer::CutRaw(int64_t cut, WriteBatchBuilder& batch) {
  rocksdb::Iterator& it = history_.points();
  const std::string& prefix = history_.prefix();
  std::vector<std::string> keys;
  for (it.Seek(prefix); it.Valid() && keys.size() <= kMaxDeletions; it.Next()) {
    const absl::string_view key = SliceView(it.key());
    if (!IsEntityTimeKey(key, prefix) || PointKeyTime(key) >= cut) break;
    keys.emplace_back(key);
  }
  if (absl::Status s = FromRocks(it.status(), "trimming history"); !s.ok()) {
    return s;
  }
  return DeleteKeys(ColumnFamily::kPoints, prefix, EntityTimeKey(prefix, cut),
                    keys, batch);
}

// A chunk's key is its last fix's time: those before the cut's key end
// before it; the first one after may begin before it.
absl::Status Trimmer::CutChunks(int64_t cut, WriteBatchBuilder& batch) {
  rocksdb::Iterator& it = history_.chunks();
  const std::string& prefix = history_.prefix();
  const std::string cut_key = EntityTimeKey(prefix, cut);
  std::vector<std::string> before;  // up to one more than kMaxDeletions
  for (it.Seek(prefix); it.Valid(); it.Next()) {
    const absl::string_view key = SliceView(it.key());
    if (!IsEntityTimeKey(key, prefix)) break;
    if (key >= cut_key) {
      std::vector<model::TrackPoint> fixes;
      if (absl::Status s = DecodeChunk(SliceView(it.value()), &fixes);
          !s.ok()) {
        return s;
      }
      size_t gone = 0;
      while (fixes[gone].loc_time_ms < cut) ++gone;
      if (gone == 0) break;
      const absl::Span<const model::TrackPoint> kept =
          absl::MakeConstSpan(fixes).subspan(gone);
      if (absl::Status s = batch.Put(ColumnFamily::kChunks, key,
                                     EncodeChunk(kept));
          !s.ok()) {
        return s;
      }
      break;
    }
    if (before.size() <= kMaxDeletions) before.emplace_back(key);
  }
  if (absl::Status s = FromRocks(it.status(), "trimming history"); !s.ok()) {
    return s;
  }
  return DeleteKeys(ColumnFamily::kChunks, prefix, cut_key, before, batch);
}

absl::Status Trimmer::Cut(int64_t cut, WriteBatchBuilder& batch) {
  if (absl::Status s = CutRaw(cut, batch); !s.ok()) return s;
  return CutChunks(cut, batch);
}

}  // namespace

absl::StatusOr<HistoryTrim> TrimEntityHistory(Engine& engine,
                                              absl::string_view collection,
                                              absl::string_view entity,
                                              uint64_t max,
                                              std::optional<int64_t> from_ms) {
  EntityHistory history(collection, entity);
  if (absl::Status s = history.Open(engine); !s.ok()) return s;
  Trimmer trimmer(history, collection, entity);
  absl::StatusOr<int64_t> kept = trimmer.OldestKept(max, from_ms);
  if (!kept.ok()) return kept.status();
  HistoryTrim trim;
  trim.oldest_kept_ms = *kept;
  absl::StatusOr<uint64_t> removed = trimmer.CountBefore(*kept);
  if (!removed.ok()) return removed.status();
  if (*removed == 0) return trim;
  WriteBatchBuilder batch(engine);
  if (absl::Status s = trimmer.Cut(*kept, batch); !s.ok()) return s;
  if (absl::Status s = batch.Commit("trimming history"); !s.ok()) return s;
  trim.removed = *removed;
  return trim;
}

}  // namespace trackdb::storage
