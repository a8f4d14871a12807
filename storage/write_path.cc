// The one write path: every mutation of points, latest and geo is here.
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "index/covering.h"
#include "index/latlng.h"
#include "model/validate.h"
#include "rocksdb/write_batch.h"
#include "storage/counter_merge.h"
#include "storage/engine.h"
#include "storage/keys.h"
#include "storage/point_codec.h"
#include "storage/rocks_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

// What the call knows about one entity it writes.
struct EntityUpdate {
  absl::string_view entity;
  std::string latest_key;
  std::optional<PointPosition> stored;  // its latest before this call
  int newest = -1;                      // index into points of its new latest
};

}  // namespace

absl::Status TrackStore::AddPoints(absl::string_view collection,
                                   absl::Span<const model::TrackPoint> points) {
  return AddPoints(collection, points, AddPointsOptions()).status();
}

absl::StatusOr<AddPointsResult> TrackStore::AddPoints(
    absl::string_view collection, absl::Span<const model::TrackPoint> points,
    const AddPointsOptions& options) {
  for (size_t i = 0; i < points.size(); ++i) {
    if (absl::Status s = model::ValidateStoredPoint(
            points[i], absl::StrCat("points[", i, "]"));
        !s.ok()) {
      return s;
    }
  }
  AddPointsResult result;
  if (points.empty()) return result;

  // One update slot per distinct entity, and its lock stripe.
  absl::flat_hash_map<absl::string_view, size_t> slot_of;
  std::vector<EntityUpdate> updates;
  std::vector<size_t> stripes;
  std::vector<size_t> point_slot(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    auto [it, inserted] = slot_of.try_emplace(points[i].entity, updates.size());
    if (inserted) {
      updates.push_back({points[i].entity,
                         LatestKey(collection, points[i].entity), std::nullopt,
                         -1});
      stripes.push_back(EntityLocks::StripeOf(collection, points[i].entity));
    }
    point_slot[i] = it->second;
  }

  absl::ReaderMutexLock collection_lock(&CollectionLock(collection));
  EntityLocks::Held held = locks_.Lock(std::move(stripes));

  // Read every entity's current latest point in one MultiGet.
  const size_t n = updates.size();
  std::vector<rocksdb::Slice> keys;
  keys.reserve(n);
  for (const EntityUpdate& u : updates) keys.emplace_back(u.latest_key);
  std::vector<rocksdb::PinnableSlice> values(n);
  std::vector<rocksdb::Status> statuses(n);
  engine_->db->MultiGet(rocksdb::ReadOptions(), engine_->latest(), n,
                        keys.data(), values.data(), statuses.data());
  for (size_t i = 0; i < n; ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return FromRocks(statuses[i], "reading latest");
    updates[i].stored = DecodePosition(SliceView(values[i]));
    if (!updates[i].stored) {
      return absl::DataLossError(absl::StrCat(
          "corrupt latest value for entity '", updates[i].entity, "'"));
    }
  }

  // Which entities this call may write.
  std::vector<bool> skip(n, false);
  result.entities.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const EntityUpdate& u = updates[i];
    EntityOutcome& out = result.entities[i];
    out.entity = std::string(u.entity);
    if (u.stored) out.prior = index::LatLng{u.stored->lat, u.stored->lon};
    skip[i] =
        (options.only == AddPointsOptions::Only::kNewEntities && u.stored) ||
        (options.only == AddPointsOptions::Only::kExistingEntities &&
         !u.stored);
    out.written = !skip[i];
  }

  // History for every point; pick each entity's newest.
  rocksdb::WriteBatch batch;
  std::vector<std::string> encoded(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const model::TrackPoint& p = points[i];
    if (skip[point_slot[i]]) continue;
    encoded[i] = EncodePointValue(p);
    batch.Put(engine_->points(), PointKey(collection, p.entity, p.loc_time_ms),
              encoded[i]);
    EntityUpdate& u = updates[point_slot[i]];
    // ">=": a repeated loc_time overwrites, in latest as in history.
    if (u.newest >= 0) {
      if (p.loc_time_ms >= points[u.newest].loc_time_ms) u.newest = i;
    } else if (!u.stored || p.loc_time_ms >= u.stored->loc_time_ms) {
      u.newest = i;
    }
  }

  // Move latest and the geo entry of every entity that got a newer point.
  for (size_t slot = 0; slot < n; ++slot) {
    const EntityUpdate& u = updates[slot];
    if (u.newest < 0) continue;  // only older points: history only
    result.entities[slot].latest_moved = true;
    if (!u.stored) ++result.new_entities;
    const model::TrackPoint& p = points[u.newest];
    batch.Put(engine_->latest(), u.latest_key, encoded[u.newest]);
    const uint64_t cell = index::CellIdOf({p.lat, p.lon});
    if (u.stored) {
      const uint64_t old_cell = index::CellIdOf({u.stored->lat, u.stored->lon});
      // Same cell: the Put below overwrites the entry in place.
      if (old_cell != cell) {
        batch.Delete(engine_->geo(), GeoKey(collection, old_cell, u.entity));
      }
    }
    // Always Put: the geo value carries the whole latest point so that a
    // spatial query reads one column family.
    batch.Put(engine_->geo(), GeoKey(collection, cell, u.entity),
              encoded[u.newest]);
  }
  if (result.new_entities > 0) {
    batch.Merge(engine_->metadata(), RegistryKey(collection),
                EncodeCounter(result.new_entities));
  }
  if (batch.Count() == 0) return result;
  if (absl::Status s = FromRocks(
          engine_->db->Write(engine_->options.write, &batch), "writing points");
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

  const std::string latest_key = LatestKey(collection, entity);
  rocksdb::PinnableSlice value;
  rocksdb::Status s = engine_->db->Get(rocksdb::ReadOptions(),
                                       engine_->latest(), latest_key, &value);
  if (!s.ok() && !s.IsNotFound()) return FromRocks(s, "reading latest");
  const bool existed = s.ok();

  rocksdb::WriteBatch batch;
  // Every points key of the entity is the prefix plus 8 time bytes, so the
  // prefix plus nine 0xff bytes is past all of them.
  const std::string begin = EntityPointsPrefix(collection, entity);
  const std::string end = begin + std::string(9, '\xff');
  batch.DeleteRange(engine_->points(), begin, end);
  if (existed) {
    const std::optional<PointPosition> pos = DecodePosition(SliceView(value));
    if (!pos) {
      return absl::DataLossError(
          absl::StrCat("corrupt latest value for entity '", entity, "'"));
    }
    batch.Delete(engine_->latest(), latest_key);
    batch.Delete(
        engine_->geo(),
        GeoKey(collection, index::CellIdOf({pos->lat, pos->lon}), entity));
    batch.Merge(engine_->metadata(), RegistryKey(collection),
                EncodeCounter(-1));
  }
  if (absl::Status w =
          FromRocks(engine_->db->Write(engine_->options.write, &batch),
                    "deleting entity");
      !w.ok()) {
    return w;
  }
  return existed;
}

}  // namespace trackdb::storage
