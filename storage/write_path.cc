// Points and entities: AddPoints and DeleteEntity, built by the write funnel
// (storage/write_funnel.h states the invariants they keep).
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "model/validate.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/kv_codec.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/format/typed_codec.h"
#include "storage/format/wrong_type.h"
#include "storage/points/history_cells.h"
#include "storage/strings/kv_expiry.h"
#include "storage/track_store.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

absl::Status CorruptLatest(absl::string_view entity) {
  return absl::DataLossError(
      absl::StrCat("corrupt latest value for entity '", entity, "'"));
}

// Fills each entity's stored latest position from the latest index (I6:
// while the caller holds the entities' stripes, it is what `latest` holds;
// before, a guess).
void ReadStoredLatest(const Engine& engine, absl::string_view collection,
                      PointsPlan* plan) {
  std::vector<absl::string_view> names;
  names.reserve(plan->entities.size());
  for (const PointsPlan::Entity& e : plan->entities) names.push_back(e.name);
  std::vector<std::optional<PointPosition>> stored =
      engine.latest_index.Find(collection, names);
  for (size_t i = 0; i < stored.size(); ++i) {
    plan->entities[i].stored = stored[i];
  }
}

// INVALID_ARGUMENT naming points[i] and its field, for the first bad one.
absl::Status ValidatePoints(absl::Span<const model::TrackPoint> points) {
  for (size_t i = 0; i < points.size(); ++i) {
    if (absl::Status s = model::ValidateStoredPoint(
            points[i], absl::StrCat("points[", i, "]"));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

bool AnyStored(const PointsPlan& plan) {
  for (const PointsPlan::Entity& e : plan.entities) {
    if (e.stored) return true;
  }
  return false;
}

// GEOADD's NX and XX, in storage's terms: which entities may be written.
void ApplyOnly(AddPointsOptions::Only only, PointsPlan* plan) {
  for (PointsPlan::Entity& e : plan->entities) {
    e.skip = (only == AddPointsOptions::Only::kNewEntities && e.stored) ||
             (only == AddPointsOptions::Only::kExistingEntities && !e.stored);
  }
}

// I7 (storage/points/history_cells.h): each fix's history cell key, unless the
// entity's stored latest point stands for it or this batch wrote it. The
// keys go into the batch after the fixes, sorted and each once (an entity
// may come back to a cell within one batch).
class HistoryCellWrites {
 public:
  // Each entity's stored latest cell, once: a batch may hold many of its
  // fixes.
  explicit HistoryCellWrites(const PointsPlan& plan)
      : plan_(plan), stored_(plan.entities.size()), last_(stored_.size()) {
    for (size_t e = 0; e < stored_.size(); ++e) {
      if (const auto& at = plan.entities[e].stored) {
        stored_[e] = HistoryCellOf(at->loc_time_ms, at->lat, at->lon);
      }
    }
  }

  void Add(absl::string_view collection, size_t e, const model::TrackPoint& p) {
    const HistoryCell cell = HistoryCellOf(p.loc_time_ms, p.lat, p.lon);
    if (last_[e] == cell) return;
    const std::optional<PointPosition>& stored = plan_.entities[e].stored;
    if (stored && p.loc_time_ms >= stored->loc_time_ms && stored_[e] == cell) {
      return;
    }
    last_[e] = cell;
    keys_.push_back(
        HistoryCellKey(collection, cell.bucket, cell.cell, p.entity));
  }

  absl::Status Write(WriteBatchBuilder& batch) {
    std::sort(keys_.begin(), keys_.end());
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (i > 0 && keys_[i] == keys_[i - 1]) continue;
      if (absl::Status s = batch.Put(ColumnFamily::kPoints, keys_[i], "");
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

 private:
  const PointsPlan& plan_;
  std::vector<std::optional<HistoryCell>> stored_;  // the stored latest's
  std::vector<std::optional<HistoryCell>> last_;  // the last added, per entity
  std::vector<std::string> keys_;
};

// AddPointsOptions::position over `plan`'s entities (skipping those it
// refuses): `points` at the positions it gave, checked as the caller's
// were.
absl::StatusOr<std::vector<model::TrackPoint>> PlacePoints(
    absl::Span<const model::TrackPoint> points, const AddPointsOptions& options,
    PointsPlan* plan) {
  const auto& position = options.position;
  std::vector<std::optional<index::LatLng>> at(plan->entities.size());
  for (size_t e = 0; e < plan->entities.size(); ++e) {
    PointsPlan::Entity& entity = plan->entities[e];
    if (entity.skip) continue;
    std::optional<index::LatLng> prior;
    if (entity.stored) {
      prior = index::LatLng{entity.stored->lat, entity.stored->lon};
    }
    absl::StatusOr<std::optional<index::LatLng>> decided = position(e, prior);
    if (!decided.ok()) return decided.status();
    at[e] = *decided;
    entity.skip = !at[e].has_value();
  }
  std::vector<model::TrackPoint> placed(points.begin(), points.end());
  for (size_t i = 0; i < placed.size(); ++i) {
    const size_t e = plan->entity_of[i];
    if (const auto& p = at[e]) {
      placed[i].lat = p->lat;
      placed[i].lon = p->lon;
    }
    const std::optional<PointPosition>& stored = plan->entities[e].stored;
    if (options.replace_latest && stored) {
      placed[i].loc_time_ms =
          std::max(placed[i].loc_time_ms, stored->loc_time_ms);
    }
  }
  if (absl::Status s = ValidatePoints(placed); !s.ok()) return s;
  return placed;
}

}  // namespace

PointsPlan PlanPoints(absl::Span<const model::TrackPoint> points) {
  PointsPlan plan;
  absl::flat_hash_map<absl::string_view, size_t> index_of;
  plan.entity_of.resize(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    auto [it, inserted] =
        index_of.try_emplace(points[i].entity, plan.entities.size());
    if (inserted) plan.entities.push_back({points[i].entity});
    plan.entity_of[i] = it->second;
  }
  return plan;
}

absl::Status AppendPoints(WriteBatchBuilder& batch,
                          absl::string_view collection,
                          absl::Span<const model::TrackPoint> points,
                          const PointsPlan& plan, AddPointsResult* result) {
  const size_t n = plan.entities.size();
  result->entities.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const PointsPlan::Entity& e = plan.entities[i];
    EntityOutcome& out = result->entities[i];
    out.entity = std::string(e.name);
    if (e.stored) out.prior = index::LatLng{e.stored->lat, e.stored->lon};
    out.written = !e.skip;
  }
  // History for every point; pick each entity's newest (the move rule
  // between points of the call, then against the stored latest).
  std::vector<int> newest(n, -1);
  std::vector<std::string> encoded(points.size());
  HistoryCellWrites cells(plan);
  for (size_t i = 0; i < points.size(); ++i) {
    const model::TrackPoint& p = points[i];
    const size_t e = plan.entity_of[i];
    if (plan.entities[e].skip) continue;
    encoded[i] = EncodePointValue(p);
    if (absl::Status s = batch.Put(
            ColumnFamily::kPoints,
            PointKey(collection, p.entity, p.loc_time_ms), encoded[i]);
        !s.ok()) {
      return s;
    }
    cells.Add(collection, e, p);
    const bool newer =
        newest[e] >= 0 ? p.loc_time_ms >= points[newest[e]].loc_time_ms
                       : ReplacesLatest(plan.entities[e].stored, p.loc_time_ms);
    if (newer) newest[e] = static_cast<int>(i);
  }
  if (absl::Status s = cells.Write(batch); !s.ok()) return s;
  for (size_t e = 0; e < n; ++e) {
    if (newest[e] < 0) continue;  // only older points: history only
    const model::TrackPoint& p = points[newest[e]];
    const LatestMove move = PlanLatestMove(
        plan.entities[e].stored, PointPosition{p.loc_time_ms, p.lat, p.lon});
    result->entities[e].latest_moved = true;
    if (move.new_entity) ++result->new_entities;
    if (absl::Status s = WriteLatestMove(batch, collection, p.entity, move,
                                         encoded[newest[e]]);
        !s.ok()) {
      return s;
    }
  }
  batch.CountEntities(collection, result->new_entities);
  return absl::OkStatus();
}

// A name holds one type (storage/format/typed_values.h). The caller holds
// the name's stripe shared, so no string or typed value can appear on it
// meanwhile: their writers hold it exclusively while they check for a
// collection. So a collection with entities has neither, and only a new
// one is checked.
absl::Status TrackStore::RefuseIfOtherType(absl::string_view collection) {
  if (engine_->latest_index.Size(collection) > 0) return absl::OkStatus();
  const int64_t now = SystemNowMs();
  const std::string name[] = {std::string(collection)};
  absl::StatusOr<std::vector<std::optional<StringValue>>> strings =
      LoadStrings(name);
  if (!strings.ok()) return strings.status();
  if (Unexpired((*strings)[0], now)) {
    return WrongTypeError(collection, "a string");
  }
  absl::StatusOr<std::optional<TypedMeta>> meta = GetTypedMeta(collection, now);
  if (!meta.ok()) return meta.status();
  if (*meta) {
    return WrongTypeError(collection,
                          absl::StrCat("a ", ValueTypeName((*meta)->type)));
  }
  return absl::OkStatus();
}

// Takes the collection's lock shared and each entity's stripe, then reads
// the entities' stored latest (read_any_stored, which says whether any
// has one). Points may go to a name that holds no other type: while one of
// the entities exists and its stripe is held, the collection cannot empty,
// so no string or typed value can take the name. Otherwise the name's
// stripe is held shared too and RefuseIfOtherType decides. The guess of
// which case applies is read before locking, and checked after.
absl::Status TrackStore::LockForPoints(
    absl::string_view collection, const std::vector<size_t>& stripes,
    const std::function<bool()>& read_any_stored, PointsLocks* held) {
  bool with_name = !read_any_stored();
  for (;;) {
    held->collection.emplace(&CollectionLock(collection));
    if (with_name) {
      const std::string name[] = {std::string(collection)};
      held->entities.emplace(locks_.Lock(stripes, StringStripes(name)));
    } else {
      held->entities.emplace(locks_.Lock(stripes));
    }
    const bool any_stored = read_any_stored();
    if (with_name) return RefuseIfOtherType(collection);
    if (any_stored) return absl::OkStatus();
    held->entities.reset();  // its entities went meanwhile: again, and check
    held->collection.reset();
    with_name = true;
  }
}

namespace {

// The points of `plan` that AddPointsOptions did not skip.
uint64_t PointsWritten(const PointsPlan& plan) {
  uint64_t written = 0;
  for (size_t entity : plan.entity_of) written += !plan.entities[entity].skip;
  return written;
}

// A planned points write, under its locks, as one batch: the history, the
// latest moves and the fence events it causes.
absl::Status CommitPoints(Engine& engine, absl::string_view collection,
                          absl::Span<const model::TrackPoint> points,
                          const PointsPlan& plan, AddPointsResult* result) {
  WriteBatchBuilder batch(engine);
  if (absl::Status s = AppendPoints(batch, collection, points, plan, result);
      !s.ok()) {
    return s;
  }
  FenceWrite fence_write;
  if (CollectionFences* fences = engine.fence_registry.Find(collection);
      fences != nullptr && !fences->fences.empty()) {
    if (absl::Status s = AppendFenceEvents(batch, engine, collection, points,
                                           plan, *fences, &fence_write);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = batch.Commit("writing points"); !s.ok()) return s;
  fence_write.Committed();
  engine.activity.AddPoints(PointsWritten(plan));
  engine.activity.AddFenceEvents(fence_write.events());
  return absl::OkStatus();
}

}  // namespace

absl::Status TrackStore::AddPoints(absl::string_view collection,
                                   absl::Span<const model::TrackPoint> points) {
  return AddPoints(collection, points, AddPointsOptions()).status();
}

absl::StatusOr<AddPointsResult> TrackStore::AddPoints(
    absl::string_view collection, absl::Span<const model::TrackPoint> points,
    const AddPointsOptions& options) {
  if (absl::Status s = ValidatePoints(points); !s.ok()) return s;
  AddPointsResult result;
  if (points.empty()) return result;
  // Points written after a GEO key's expiry start a new key (Redis's lazy
  // expiry): the expired one goes first.
  if (const int64_t now = SystemNowMs();
      engine_->collection_expiries.Due(collection, now)) {
    if (auto gone = ExpireCollection(collection, now); !gone.ok()) {
      return gone.status();
    }
  } else if (engine_->collection_expiries.Get(collection) != 0 &&
             StoredCollectionSize(collection) == 0) {
    if (absl::Status s = ClearStaleCollectionExpiry(collection); !s.ok()) {
      return s;
    }
  }
  PointsPlan plan = PlanPoints(points);
  std::vector<size_t> stripes;
  stripes.reserve(plan.entities.size());
  for (const PointsPlan::Entity& e : plan.entities) {
    stripes.push_back(EntityLocks::StripeOf(collection, e.name));
  }

  PointsLocks held;
  if (absl::Status s = LockForPoints(
          collection, stripes,
          [&] {
            ReadStoredLatest(*engine_, collection, &plan);
            return AnyStored(plan);
          },
          &held);
      !s.ok()) {
    return s;
  }
  ApplyOnly(options.only, &plan);
  std::vector<model::TrackPoint> placed;
  if (options.position) {
    absl::StatusOr<std::vector<model::TrackPoint>> moved =
        PlacePoints(points, options, &plan);
    if (!moved.ok()) return moved.status();
    placed = *std::move(moved);
    points = placed;
  }
  if (absl::Status s =
          CommitPoints(*engine_, collection, points, plan, &result);
      !s.ok()) {
    return s;
  }
  return result;
}

absl::StatusOr<bool> TrackStore::DeleteEntity(absl::string_view collection,
                                              absl::string_view entity) {
  absl::ReaderMutexLock collection_lock(&CollectionLock(collection));
  EntityLocks::Held held =
      locks_.Lock({EntityLocks::StripeOf(collection, entity)});

  rocksdb::PinnableSlice value;
  rocksdb::Status s =
      engine_->db->Get(rocksdb::ReadOptions(), engine_->latest(),
                       ToSlice(LatestKey(collection, entity)), &value);
  if (!s.ok() && !s.IsNotFound()) return FromRocks(s, "reading latest");
  std::optional<PointPosition> latest;
  if (s.ok()) {
    latest = DecodePosition(SliceView(value));
    if (!latest) return CorruptLatest(entity);
  }
  WriteBatchBuilder batch(*engine_);
  batch.DeleteEntity(collection, entity, latest);
  // The last entity takes the key, and so its expiry, with it.
  if (latest && StoredCollectionSize(collection) == 1 &&
      CollectionExpiry(collection) != 0) {
    batch.SetCollectionExpiry(collection, 0);
  }
  if (absl::Status w = batch.Commit("deleting entity"); !w.ok()) return w;
  return latest.has_value();
}

}  // namespace trackdb::storage
