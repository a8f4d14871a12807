#include "fence/detector.h"

namespace trackdb::fence {
namespace {

bool Counts(const Fence& fence, const model::TrackPoint& point) {
  return (!fence.max_accuracy_m || !point.accuracy_m ||
          *point.accuracy_m <= *fence.max_accuracy_m) &&
         fence.Matches(point);
}

void Emit(const Fence& fence, v1::FenceEventKind kind,
          std::vector<FenceHit>* hits, int64_t dwell_ms = 0,
          bool late = false) {
  if (fence.Detects(kind)) hits->push_back({kind, late, dwell_ms});
}

// Moves the confirmed side on by one counted fix; true when it changed.
bool Confirm(const Fence& fence, bool observed_inside, int64_t t,
             EntityFenceState* s) {
  if (observed_inside == s->inside) {
    s->pending_fixes = 0;
    return false;
  }
  if (s->pending_fixes == 0) s->pending_since_ms = t;
  ++s->pending_fixes;
  if (s->pending_fixes < fence.debounce_fixes ||
      t - s->pending_since_ms < fence.debounce_ms) {
    return false;
  }
  s->inside = observed_inside;
  s->pending_fixes = 0;
  if (s->inside) {
    s->stay_start_ms = s->pending_since_ms;
    s->dwell_reported = false;
  }
  return true;
}

// A fix older than the last one: reported as where it is, if the fence
// asks for late points, and never moving the state.
void EmitLate(const Fence& fence, bool observed_inside,
              std::vector<FenceHit>* hits) {
  if (fence.late_points == v1::LATE_POINTS_REPORT) {
    Emit(fence,
         observed_inside ? v1::FENCE_EVENT_INSIDE : v1::FENCE_EVENT_OUTSIDE,
         hits, /*dwell_ms=*/0, /*late=*/true);
  }
}

// Whether the path from the prior fix to `here` passed through the fence
// while the entity stayed outside it (a CROSS the fence asks for).
bool CrossedWhileOutside(const Fence& fence,
                         const std::optional<PriorFix>& prior,
                         const index::LatLng& here, bool was_inside,
                         bool changed, bool observed_inside,
                         const EntityFenceState& s) {
  return prior && !was_inside && !changed && !observed_inside &&
         !s.last_inside && fence.Detects(v1::FENCE_EVENT_CROSS) &&
         fence.shape && fence.shape->PathMeets({prior->lat, prior->lon}, here);
}

// Reports a DWELL once a stay has lasted fence.dwell_ms, once per stay.
void EmitDwellOnce(const Fence& fence, int64_t t, EntityFenceState* s,
                   std::vector<FenceHit>* hits) {
  if (s->inside && !s->dwell_reported && fence.dwell_ms > 0 &&
      t - s->stay_start_ms >= fence.dwell_ms) {
    s->dwell_reported = true;
    Emit(fence, v1::FENCE_EVENT_DWELL, hits, t - s->stay_start_ms);
  }
}

}  // namespace

bool EntityFenceState::operator==(const EntityFenceState& o) const {
  return inside == o.inside && last_inside == o.last_inside &&
         dwell_reported == o.dwell_reported &&
         stay_start_ms == o.stay_start_ms && pending_fixes == o.pending_fixes &&
         pending_since_ms == o.pending_since_ms;
}

FixOrder OrderOf(const model::TrackPoint& point,
                 const std::optional<PriorFix>& prior) {
  if (!prior || point.loc_time_ms > prior->loc_time_ms) return FixOrder::kNewer;
  if (point.loc_time_ms < prior->loc_time_ms) return FixOrder::kLate;
  return point.lat == prior->lat && point.lon == prior->lon ? FixOrder::kRepeat
                                                            : FixOrder::kNewer;
}

std::vector<FenceHit> Evaluate(const Fence& fence,
                               const model::TrackPoint& point,
                               const std::optional<PriorFix>& prior,
                               EntityFenceState* state) {
  return Evaluate(fence, point, prior,
                  fence.shape->Contains({point.lat, point.lon}), state);
}

std::vector<FenceHit> Evaluate(const Fence& fence,
                               const model::TrackPoint& point,
                               const std::optional<PriorFix>& prior,
                               bool observed_inside, EntityFenceState* state) {
  std::vector<FenceHit> hits;
  if (!Counts(fence, point)) return hits;
  const index::LatLng here{point.lat, point.lon};
  const int64_t t = point.loc_time_ms;
  const FixOrder order = OrderOf(point, prior);
  if (order == FixOrder::kRepeat) return hits;
  if (order == FixOrder::kLate) {
    EmitLate(fence, observed_inside, &hits);
    return hits;
  }
  const bool was_inside = state->inside;
  const bool changed = Confirm(fence, observed_inside, t, state);
  if (CrossedWhileOutside(fence, prior, here, was_inside, changed,
                          observed_inside, *state)) {
    Emit(fence, v1::FENCE_EVENT_CROSS, &hits);
  }
  if (changed) {
    Emit(fence, state->inside ? v1::FENCE_EVENT_ENTER : v1::FENCE_EVENT_EXIT,
         &hits);
  }
  EmitDwellOnce(fence, t, state, &hits);
  Emit(fence, state->inside ? v1::FENCE_EVENT_INSIDE : v1::FENCE_EVENT_OUTSIDE,
       &hits);
  state->last_inside = observed_inside;
  return hits;
}

}  // namespace trackdb::fence
