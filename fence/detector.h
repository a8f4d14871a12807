#ifndef TRACKDB_FENCE_DETECTOR_H_
#define TRACKDB_FENCE_DETECTOR_H_

// What one fix of one entity means for one fence: the events it causes and
// the entity's new state for that fence. Pure: the caller keeps the state
// (one EntityFenceState per fence and entity) and writes the events.
//
// The rules, all by the fixes' own times (loc_time), never by arrival:
// - Counted fixes. A fix whose accuracy_m is worse than max_accuracy_m is
//   not counted: no event, no change (a fix without accuracy_m counts). A fix
//   no newer than the last counted one (a late or repeated fix) is not counted
//   either: under LATE_POINTS_DROP nothing happens, under LATE_POINTS_REPORT it
//   is reported as INSIDE/OUTSIDE of where it lies, marked late. So a late fix
//   never causes ENTER, EXIT, CROSS or DWELL.
// - Sides. Each counted fix is observed inside (FenceShape::Contains) or
//   outside. The confirmed side starts outside (an entity never seen is
//   outside) and changes when the fixes since the last one on the confirmed
//   side number at least debounce_fixes and span at least debounce_ms from
//   the first of them to this one. That change is ENTER or EXIT, at the fix
//   that confirms it.
// - DWELL: once per stay, at the first counted fix at least dwell_ms after
//   the stay began (the first fix of the run that confirmed the ENTER).
//   With no fix there is no event: nothing fires on a timer.
// - CROSS: the previous counted fix and this one are both observed
//   outside, the confirmed side stays outside, and the path between them
//   meets the area (FenceShape::PathMeets).
// - INSIDE / OUTSIDE: every counted fix, by the confirmed side after it.
// Events of one fix come in the order CROSS, ENTER/EXIT, DWELL,
// INSIDE/OUTSIDE; only the kinds the fence detects are returned.

#include <cstdint>
#include <vector>

#include "fence/fence.h"
#include "model/track_point.h"

namespace trackdb::fence {

// One entity's state for one fence. Zero-initialised: never seen.
struct EntityFenceState {
  bool seen = false;         // a fix has been counted
  bool inside = false;       // the confirmed side
  bool last_inside = false;  // the side the last counted fix was on
  bool dwell_reported = false;
  int64_t last_ms = 0;  // the last counted fix's loc_time
  double last_lat = 0, last_lon = 0;
  int64_t stay_start_ms = 0;  // inside: when the stay began
  // Counted fixes since the last one on the confirmed side, and the time
  // of the first of them.
  uint32_t pending_fixes = 0;
  int64_t pending_since_ms = 0;

  bool operator==(const EntityFenceState& o) const;
};

struct FenceHit {
  v1::FenceEventKind kind;
  bool late = false;
  int64_t dwell_ms = 0;  // DWELL: how long inside so far
};

// The events `point` causes for `fence` (which must match its entity:
// Fence::Applies), updating *state.
std::vector<FenceHit> Evaluate(const Fence& fence,
                               const model::TrackPoint& point,
                               EntityFenceState* state);

}  // namespace trackdb::fence

#endif  // TRACKDB_FENCE_DETECTOR_H_
