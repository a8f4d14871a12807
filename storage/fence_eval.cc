// The write funnel's fence step: what a points write means for the
// collection's fences (fence/detector.h's rules), as state and event-log
// changes in the same batch as the points (storage/write_funnel.h).
//
// Per entity, its points are evaluated in loc_time order (a call's points
// may come in any order), each against the fences that can see it: those
// whose area may hold it (the fence index), those whose area may meet its
// path from the prior fix (if any fence detects CROSS), those the entity
// has a stored state for (not Resting: inside or about to change), and
// those that report OUTSIDE, and roaming fences (near a target: the
// targets' latest positions before the write, so a call's own points of
// other entities are not seen yet). Every other fence's state is Resting
// and a fix outside it leaves it so, with no event. The prior fix is the
// entity's latest point before the call, then each newer point in turn.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "index/covering.h"
#include "index/distance.h"
#include "index/region.h"
#include "storage/engine/engine.h"
#include "storage/fence_codec.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

struct StateRow {
  fence::EntityFenceState state;
  fence::EntityFenceState stored;
  bool had_row = false;
};
using StateRows = absl::flat_hash_map<uint64_t, StateRow>;

// The entity's stored states, by fence id (rows of fences since removed
// are left to the fence's removal).
absl::Status ReadStates(const Engine& engine, absl::string_view collection,
                        absl::string_view entity, const CollectionFences& f,
                        StateRows* rows) {
  const std::string prefix = EntityFenceStatesPrefix(collection, entity);
  const std::string end = PrefixEnd(prefix);
  rocksdb::ReadOptions read;
  rocksdb::Slice upper = ToSlice(end);
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      engine.db->NewIterator(read, engine.fences()));
  for (it->Seek(ToSlice(prefix)); it->Valid(); it->Next()) {
    absl::string_view name = SliceView(it->key()).substr(prefix.size());
    auto id = f.ids.find(name);
    if (id == f.ids.end()) continue;
    std::optional<fence::EntityFenceState> s =
        DecodeFenceState(SliceView(it->value()));
    if (!s) {
      return absl::DataLossError(absl::StrCat("corrupt fence state of '",
                                              entity, "' for '", name, "'"));
    }
    rows->insert({id->second, {*s, *s, true}});
  }
  return FromRocks(it->status(), "reading fence states");
}

// The fences that can see `p` (see the top of this file), each once.
void FencesToEvaluate(const CollectionFences& f, const model::TrackPoint& p,
                      const std::optional<fence::PriorFix>& prior,
                      const StateRows& rows, std::vector<uint64_t>* ids) {
  ids->clear();
  const index::LatLng here{p.lat, p.lon};
  f.index.Candidates(here, ids);
  if (prior && f.crossing > 0 &&
      fence::OrderOf(p, prior) == fence::FixOrder::kNewer) {
    f.index.PathCandidates({prior->lat, prior->lon}, here, ids);
  }
  for (const auto& [id, row] : rows) ids->push_back(id);
  ids->insert(ids->end(), f.every_fix.begin(), f.every_fix.end());
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
}

// The nearest of a roaming fence's targets within its radius of `p`, by
// their latest positions as indexed before this write (the store's latest
// index, storage/points/latest_index.h); ties go to the smaller entity id.
struct Nearest {
  std::string entity;
  double distance_m = 0;
};
std::optional<Nearest> NearestTarget(const Engine& engine,
                                     absl::string_view collection,
                                     const fence::Roam& roam,
                                     const model::TrackPoint& p) {
  const index::LatLng here{p.lat, p.lon};
  // The radius was checked when the fence was compiled.
  absl::StatusOr<index::CircleRegion> disc =
      index::CircleRegion::Create(here, roam.radius_m);
  if (!disc.ok()) return std::nullopt;
  std::vector<LatestIndex::Hit> hits;
  engine.latest_index.Scan(
      roam.collection, index::Covering(*disc),
      [&](const PointPosition& q) {
        return disc->Contains({q.lat, q.lon});
      },
      &hits);
  std::optional<Nearest> best;
  for (const LatestIndex::Hit& hit : hits) {
    if (!roam.Targets(collection, p.entity, hit.entity)) continue;
    const double d =
        index::HaversineMeters(here, {hit.position.lat, hit.position.lon});
    if (!best || d < best->distance_m ||
        (d == best->distance_m && hit.entity < best->entity)) {
      best = Nearest{hit.entity, d};
    }
  }
  return best;
}

struct EvalContext {
  const Engine& engine;
  absl::string_view collection;
  const CollectionFences& f;
  int64_t now_ms;
};

// `fence`'s events for `p`, logged in *events.
void EvaluateFence(const EvalContext& ctx, const fence::Fence& fence,
                   const model::TrackPoint& p,
                   const std::optional<fence::PriorFix>& prior,
                   fence::EntityFenceState* state,
                   std::vector<FenceEventRecord>* events) {
  std::optional<Nearest> nearest;
  std::vector<fence::FenceHit> hits;
  if (fence.roam) {
    nearest = NearestTarget(ctx.engine, ctx.collection, *fence.roam, p);
    hits = fence::Evaluate(fence, p, prior, nearest.has_value(), state);
  } else {
    hits = fence::Evaluate(fence, p, prior, state);
  }
  for (const fence::FenceHit& hit : hits) {
    FenceEventRecord& e = events->emplace_back(FenceEventRecord{
        0, fence.name, hit.kind, hit.late, hit.dwell_ms, ctx.now_ms, p});
    if (nearest) {
      e.nearby = nearest->entity;
      e.nearby_distance_m = nearest->distance_m;
    }
  }
}

// Evaluates one entity's points (indices into `points`, in time order).
void EvaluateEntity(const EvalContext& ctx,
                    absl::Span<const model::TrackPoint> points,
                    const std::vector<size_t>& order,
                    std::optional<fence::PriorFix> prior, StateRows* rows,
                    std::vector<FenceEventRecord>* events) {
  std::vector<uint64_t> ids;
  for (size_t i : order) {
    const model::TrackPoint& p = points[i];
    const bool newer = fence::OrderOf(p, prior) == fence::FixOrder::kNewer;
    FencesToEvaluate(ctx.f, p, prior, *rows, &ids);
    for (uint64_t id : ids) {
      auto fence = ctx.f.fences.find(id);
      if (fence == ctx.f.fences.end() || !fence->second.Applies(p.entity)) {
        continue;
      }
      EvaluateFence(ctx, fence->second, p, prior, &(*rows)[id].state, events);
    }
    if (newer) prior = fence::PriorFix{p.loc_time_ms, p.lat, p.lon};
  }
}

// Writes the states that changed; keeps CollectionFences::MayHaveStates a
// superset of the entities with states: added before the batch, forgotten
// after it when none is left and all were read (`read_all`).
absl::Status WriteStates(ChangeSink& sink, absl::string_view collection,
                         absl::string_view entity, CollectionFences& f,
                         const StateRows& rows, bool read_all,
                         FenceWrite* write) {
  bool any_left = false;
  for (const auto& [id, row] : rows) {
    const std::string& name = f.fences.at(id).name;
    const std::string key = FenceStateKey(collection, entity, name);
    absl::Status s;
    if (row.state.Resting()) {
      if (row.had_row) s = sink.Delete(ColumnFamily::kFences, key);
    } else {
      any_left = true;
      if (!row.had_row || !(row.state == row.stored)) {
        s = sink.Put(ColumnFamily::kFences, key, EncodeFenceState(row.state));
      }
    }
    if (!s.ok()) return s;
  }
  if (any_left) {
    f.MayHaveStates(entity, true);
  } else if (read_all) {
    write->ForgetAfterCommit(f, entity);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AppendFenceEvents(WriteBatchBuilder& batch, const Engine& engine,
                               absl::string_view collection,
                               absl::Span<const model::TrackPoint> points,
                               const PointsPlan& plan, CollectionFences& f,
                               FenceWrite* write) {
  const EvalContext ctx{engine, collection, f, absl::ToUnixMillis(absl::Now())};
  std::vector<std::vector<size_t>> order(plan.entities.size());
  for (size_t i = 0; i < points.size(); ++i) {
    order[plan.entity_of[i]].push_back(i);
  }
  std::vector<FenceEventRecord> events;
  for (size_t e = 0; e < plan.entities.size(); ++e) {
    const PointsPlan::Entity& entity = plan.entities[e];
    if (entity.skip) continue;
    std::stable_sort(order[e].begin(), order[e].end(), [&](size_t a, size_t b) {
      return points[a].loc_time_ms < points[b].loc_time_ms;
    });
    StateRows rows;
    const bool may_have_states = f.MayHaveStates(entity.name);
    if (may_have_states) {
      if (absl::Status s =
              ReadStates(engine, collection, entity.name, f, &rows);
          !s.ok()) {
        return s;
      }
    }
    std::optional<fence::PriorFix> prior;
    if (entity.stored) {
      prior = fence::PriorFix{entity.stored->loc_time_ms, entity.stored->lat,
                              entity.stored->lon};
    }
    EvaluateEntity(ctx, points, order[e], prior, &rows, &events);
    if (absl::Status s = WriteStates(batch, collection, entity.name, f, rows,
                                     may_have_states, write);
        !s.ok()) {
      return s;
    }
  }
  if (events.empty()) return absl::OkStatus();
  const uint64_t first = write->Reserve(f, events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    if (absl::Status s = batch.Put(ColumnFamily::kFences,
                                   FenceEventKey(collection, first + i),
                                   EncodeFenceEvent(events[i]));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace trackdb::storage
