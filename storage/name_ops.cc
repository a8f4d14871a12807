// Whole names: a string, a typed value and a collection under one name,
// removed, copied, renamed or replaced in one batch
// (storage/write_funnel.h). A typed value goes in O(1): its meta key only
// (storage/format/typed_codec.h).
#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "model/limits.h"
#include "model/validate.h"
#include "storage/engine/engine.h"
#include "storage/strings/string_cache.h"
#include "storage/track_store.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

// Stages the removal of a stored typed value's meta (expired or not).
absl::Status DeleteTyped(absl::string_view name,
                         const std::optional<TypedMeta>& stored,
                         WriteBatchBuilder& batch) {
  if (!stored) return absl::OkStatus();
  return batch.Delete(ColumnFamily::kTypes, TypedMetaKey(name));
}

}  // namespace

absl::StatusOr<std::vector<TrackStore::NameContents>> TrackStore::DeleteNames(
    absl::Span<const std::string> names, int64_t now_ms) {
  ExclusiveLocks collections(CollectionLocks(names));
  EntityLocks::Held held = locks_.Lock(StringStripes(names));
  absl::StatusOr<std::vector<std::optional<StringValue>>> strings =
      LoadStrings(names);
  if (!strings.ok()) return strings.status();
  std::vector<NameContents> out(names.size());
  WriteBatchBuilder batch(*engine_);
  std::vector<StringChange> changes;
  const std::optional<StringValue> absent;
  absl::flat_hash_set<absl::string_view> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    // A repeated name was removed by its first.
    if (!seen.insert(names[i]).second) continue;
    const std::optional<StringValue>& s = (*strings)[i];
    out[i].string = Unexpired(s, now_ms).has_value();
    if (s.has_value()) changes.push_back({names[i], &absent});
    const int64_t size = StoredCollectionSize(names[i]);
    if (size > 0) batch.DeleteCollection(names[i]);
    // An expired collection goes too, but was no key.
    absl::StatusOr<int64_t> live = CollectionSize(names[i]);
    if (!live.ok()) return live.status();
    out[i].entities = *live;
    absl::StatusOr<std::optional<TypedMeta>> typed = StoredTypedMeta(names[i]);
    if (!typed.ok()) return typed.status();
    if (absl::Status s = DeleteTyped(names[i], *typed, batch); !s.ok()) {
      return s;
    }
    if (*typed && !(*typed)->expired_at(now_ms)) out[i].typed = (*typed)->type;
  }
  if (absl::Status s = WriteStrings(changes, batch, "deleting names");
      !s.ok()) {
    return s;
  }
  return out;
}

struct TrackStore::CopyEnds {
  // Both names' stored strings, expired ones included.
  std::vector<std::optional<StringValue>> strings;
  std::optional<StringValue> src_string;  // unexpired
  bool dst_string = false;                // unexpired
  int64_t src_size = 0;
  int64_t dst_size = 0;
  int64_t dst_stored = 0;  // expired entities included
  std::optional<TypedMeta> src_typed;
  std::optional<TypedMeta> dst_typed;
  bool src_typed_live = false;
  bool dst_typed_live = false;
};

absl::Status TrackStore::LoadCopyEnds(const std::string (&names)[2],
                                      int64_t now_ms, CopyEnds* ends) {
  const absl::string_view src = names[0];
  const absl::string_view dst = names[1];
  absl::StatusOr<std::vector<std::optional<StringValue>>> strings =
      LoadStrings(names);
  if (!strings.ok()) return strings.status();
  ends->strings = *std::move(strings);
  ends->src_string = Unexpired(ends->strings[0], now_ms);
  ends->dst_string = Unexpired(ends->strings[1], now_ms).has_value();
  absl::StatusOr<int64_t> src_size = CollectionSize(src);
  if (!src_size.ok()) return src_size.status();
  ends->src_size = *src_size;
  absl::StatusOr<int64_t> dst_size = CollectionSize(dst);
  if (!dst_size.ok()) return dst_size.status();
  ends->dst_size = *dst_size;
  ends->dst_stored = StoredCollectionSize(dst);
  absl::StatusOr<std::optional<TypedMeta>> src_typed = StoredTypedMeta(src);
  if (!src_typed.ok()) return src_typed.status();
  ends->src_typed = *src_typed;
  absl::StatusOr<std::optional<TypedMeta>> dst_typed = StoredTypedMeta(dst);
  if (!dst_typed.ok()) return dst_typed.status();
  ends->dst_typed = *dst_typed;
  ends->src_typed_live = *src_typed && !(*src_typed)->expired_at(now_ms);
  ends->dst_typed_live = *dst_typed && !(*dst_typed)->expired_at(now_ms);
  return absl::OkStatus();
}

absl::Status TrackStore::WriteCopy(const std::string (&names)[2],
                                   const CopyEnds& ends,
                                   const CopyNameOptions& options) {
  const absl::string_view src = names[0];
  const absl::string_view dst = names[1];
  WriteBatchBuilder batch(*engine_);
  if (ends.dst_stored > 0) batch.DeleteCollection(dst);
  if (absl::Status s = DeleteTyped(dst, ends.dst_typed, batch); !s.ok()) {
    return s;
  }
  // A string wins over a typed value, and that over a collection, of the
  // same name (the doors' TYPE).
  const std::optional<StringValue> absent;
  std::vector<StringChange> changes;
  const size_t max_bytes = engine_->options.config.max_atomic_copy_mb() << 20;
  absl::Status copied;
  if (ends.src_string) {
    changes.push_back({names[1], &ends.src_string});
  } else {
    if (ends.strings[1].has_value()) changes.push_back({names[1], &absent});
    copied = ends.src_typed_live
                 ? CopyTypedValue(src, dst, *ends.src_typed, max_bytes, batch)
                 : batch.CopyCollection(src, dst, ends.src_size, max_bytes);
    // A GEO key's expiry goes with it, as Redis's RENAME and COPY keep TTLs.
    if (const int64_t at = CollectionExpiry(src);
        !ends.src_typed_live && at != 0) {
      batch.SetCollectionExpiry(dst, at);
    }
  }
  if (!copied.ok()) return copied;
  if (options.remove_source) {
    if (ends.strings[0].has_value()) changes.push_back({names[0], &absent});
    if (StoredCollectionSize(src) > 0) batch.DeleteCollection(src);
    if (absl::Status s = DeleteTyped(src, ends.src_typed, batch); !s.ok()) {
      return s;
    }
  }
  return WriteStrings(changes, batch, "copying a name");
}

absl::StatusOr<TrackStore::CopyNameResult> TrackStore::CopyName(
    absl::string_view src, absl::string_view dst, int64_t now_ms,
    const CopyNameOptions& options) {
  if (src == dst) {
    return absl::InvalidArgumentError("source and destination are the same");
  }
  const std::string names[] = {std::string(src), std::string(dst)};
  ExclusiveLocks collections(CollectionLocks(names));
  EntityLocks::Held held = locks_.Lock(StringStripes(names));
  CopyEnds ends;
  if (absl::Status s = LoadCopyEnds(names, now_ms, &ends); !s.ok()) return s;
  if (!ends.src_string && !ends.src_typed_live && ends.src_size == 0) {
    return CopyNameResult::kNoSource;
  }
  if ((ends.dst_string || ends.dst_typed_live || ends.dst_size > 0) &&
      !options.replace) {
    return CopyNameResult::kDestinationExists;
  }
  if (absl::Status s = WriteCopy(names, ends, options); !s.ok()) return s;
  return CopyNameResult::kCopied;
}

absl::Status TrackStore::ReplaceWithPoints(
    absl::string_view name, absl::Span<const model::TrackPoint> points) {
  for (size_t i = 0; i < points.size(); ++i) {
    if (absl::Status s = model::ValidateStoredPoint(
            points[i], absl::StrCat("points[", i, "]"));
        !s.ok()) {
      return s;
    }
  }
  const std::string names[] = {std::string(name)};
  ExclusiveLocks collections(CollectionLocks(names));
  EntityLocks::Held held = locks_.Lock(StringStripes(names));
  absl::StatusOr<std::vector<std::optional<StringValue>>> strings =
      LoadStrings(names);
  if (!strings.ok()) return strings.status();
  const int64_t size = StoredCollectionSize(name);
  absl::StatusOr<std::optional<TypedMeta>> typed = StoredTypedMeta(name);
  if (!typed.ok()) return typed.status();

  WriteBatchBuilder batch(*engine_);
  if (size > 0) batch.DeleteCollection(name);
  if (absl::Status s = DeleteTyped(name, *typed, batch); !s.ok()) return s;
  // The collection is empty from here on in the batch: every entity is new.
  AddPointsResult result;
  if (absl::Status s =
          AppendPoints(batch, name, points, PlanPoints(points), &result);
      !s.ok()) {
    return s;
  }
  const std::optional<StringValue> absent;
  std::vector<StringChange> changes;
  if ((*strings)[0].has_value()) changes.push_back({names[0], &absent});
  return WriteStrings(changes, batch, "replacing a name with points");
}

absl::Status TrackStore::ReplaceWithStrings(
    absl::Span<const std::string> names, absl::Span<const StringValue> values) {
  if (names.size() != values.size()) {
    return absl::InvalidArgumentError("one value per name");
  }
  ExclusiveLocks collections(CollectionLocks(names));
  EntityLocks::Held held = locks_.Lock(StringStripes(names));
  // The last value of a name wins, as in UpdateStrings.
  absl::flat_hash_map<absl::string_view, size_t> last;
  for (size_t i = 0; i < names.size(); ++i) last[names[i]] = i;
  std::vector<std::optional<StringValue>> after(names.size());
  std::vector<StringChange> changes;
  WriteBatchBuilder batch(*engine_);
  for (const auto& [name, i] : last) {
    after[i] = values[i];
    changes.push_back({name, &after[i]});
    if (StoredCollectionSize(name) > 0) batch.DeleteCollection(name);
    absl::StatusOr<std::optional<TypedMeta>> typed = StoredTypedMeta(name);
    if (!typed.ok()) return typed.status();
    if (absl::Status s = DeleteTyped(name, *typed, batch); !s.ok()) return s;
  }
  return WriteStrings(changes, batch, "replacing names with strings");
}

}  // namespace trackdb::storage
