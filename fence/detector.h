#ifndef TRACKDB_FENCE_DETECTOR_H_
#define TRACKDB_FENCE_DETECTOR_H_

// What one fix of one entity means for one fence: the events it causes and
// the entity's new state for that fence. Pure: the caller keeps the state
// (one EntityFenceState per fence and entity) and writes the events.
//
// The rules, all by the fixes' own times (loc_time), never by arrival:
// - The prior fix. The caller passes the entity's newest fix before this
//   one, whatever its accuracy (the store: its latest point). A fix older
//   than it is late. One as old as it at the same position repeats it (a
//   retried write) and changes nothing; one as old as it elsewhere replaces
//   it, as it replaces the store's latest point, and is evaluated as newer
//   (OrderOf).
// - Counted fixes. A fix whose accuracy_m is worse than max_accuracy_m is
//   not counted: no event, no change (a fix without accuracy_m counts);
//   nor is one that fails the fence's `where` filters (Fence::Matches). A
//   late fix is not counted either: under LATE_POINTS_DROP nothing happens,
//   under LATE_POINTS_REPORT it is reported as INSIDE/OUTSIDE of where it
//   lies, marked late. So a late fix never causes ENTER, EXIT, CROSS or
//   DWELL.
// - Sides. Each counted fix is observed inside (FenceShape::Contains; a
//   roaming fence: within its radius of a target, fence::Roam) or
//   outside. The confirmed side starts outside (an entity never seen is
//   outside) and changes when the fixes since the last one on the confirmed
//   side number at least debounce_fixes and span at least debounce_ms from
//   the first of them to this one. That change is ENTER or EXIT, at the fix
//   that confirms it.
// - DWELL: once per stay, at the first counted fix at least dwell_ms after
//   the stay began (the first fix of the run that confirmed the ENTER).
//   With no fix there is no event: nothing fires on a timer.
// - CROSS: the fence's last counted fix and this one are both observed
//   outside, the confirmed side stays outside, and the path from the prior
//   fix to this one meets the area (FenceShape::PathMeets).
// - INSIDE / OUTSIDE: every counted fix, by the confirmed side after it.
// Events of one fix come in the order CROSS, ENTER/EXIT, DWELL,
// INSIDE/OUTSIDE; only the kinds the fence detects are returned.
//
// A state that is outside with nothing pending (Resting) is the state of
// an entity the fence has never seen, and a fix observed outside leaves it
// so: a fence whose area neither holds a fix nor meets its path from the
// prior fix, and that does not report OUTSIDE, need not be evaluated, and
// a store keeps states only where they are not resting.

#include <cstdint>
#include <optional>
#include <vector>

#include "fence/fence.h"
#include "model/track_point.h"

namespace trackdb::fence {

// One entity's state for one fence. Zero-initialised: never seen.
struct EntityFenceState {
  bool inside = false;       // the confirmed side
  bool last_inside = false;  // the side the last counted fix was on
  bool dwell_reported = false;
  int64_t stay_start_ms = 0;  // inside: when the stay began
  // Counted fixes since the last one on the confirmed side, and the time
  // of the first of them.
  uint32_t pending_fixes = 0;
  int64_t pending_since_ms = 0;

  bool Resting() const { return !inside && !last_inside && pending_fixes == 0; }
  bool operator==(const EntityFenceState& o) const;
};

// The entity's newest fix before the one evaluated.
struct PriorFix {
  int64_t loc_time_ms = 0;
  double lat = 0, lon = 0;
};

// How a fix stands to the entity's prior fix (the rules above).
enum class FixOrder { kNewer, kRepeat, kLate };
FixOrder OrderOf(const model::TrackPoint& point,
                 const std::optional<PriorFix>& prior);

struct FenceHit {
  v1::FenceEventKind kind;
  bool late = false;
  int64_t dwell_ms = 0;  // DWELL: how long inside so far
};

// The events `point` causes for `fence` (which must match its entity:
// Fence::Applies, and have a fixed area: Fence::shape), updating *state;
// `prior` is the entity's newest fix before `point` (none: its first).
std::vector<FenceHit> Evaluate(const Fence& fence,
                               const model::TrackPoint& point,
                               const std::optional<PriorFix>& prior,
                               EntityFenceState* state);
// The same for a fence whose side the caller observes: `observed_inside`
// is where `point` lies (a roaming fence: near a target). CROSS needs an
// area: none without one.
std::vector<FenceHit> Evaluate(const Fence& fence,
                               const model::TrackPoint& point,
                               const std::optional<PriorFix>& prior,
                               bool observed_inside, EntityFenceState* state);

}  // namespace trackdb::fence

#endif  // TRACKDB_FENCE_DETECTOR_H_
