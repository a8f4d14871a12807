#ifndef TRACKDB_FENCE_FENCE_H_
#define TRACKDB_FENCE_FENCE_H_

// A fence as the detector uses it: trackdb.v1.Fence checked once and
// compiled (shape, which events, debounce, dwell, accuracy gate, late
// fixes, entity filter). fence/detector.h says what each setting does.

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fence/shape.h"
#include "model/limits.h"
#include "model/track_point.h"
#include "trackdb/v1/fence.pb.h"

namespace trackdb::fence {

inline constexpr int kMaxWheres = 16;
inline constexpr size_t kMaxWhereFieldBytes = 256;

// A roaming fence's targets (trackdb.v1.FenceRoam): "inside" is within
// radius_m of one of them.
struct Roam {
  std::string collection;  // never empty: the fence's own when unset
  std::string entity_glob;
  double radius_m = 0;

  // Whether `entity` of `collection` may be a target of a fix of `watched`
  // in the fence's collection `own`.
  bool Targets(absl::string_view own, absl::string_view watched,
               absl::string_view entity) const;
};

// A filter on a fix (trackdb.v1.FenceWhere), checked once.
struct Where {
  enum class Field { kSpeed, kDirection, kHeight, kAccuracy, kAttribute };
  Field field = Field::kAttribute;
  std::string attribute;  // kAttribute: its name
  std::optional<double> min, max;
  std::vector<std::string> in;  // empty: a range

  bool Matches(const model::TrackPoint& point) const;
};

struct Fence {
  std::string collection;
  std::string name;
  // Exactly one: a fixed area, or the targets of a roaming fence.
  std::optional<FenceShape> shape;
  std::optional<Roam> roam;
  std::bitset<8> detect;  // by v1::FenceEventKind
  std::string entity_glob;
  uint32_t debounce_fixes = 1;
  int64_t debounce_ms = 0;
  int64_t dwell_ms = 0;
  std::optional<double> max_accuracy_m;
  v1::LatePoints late_points = v1::LATE_POINTS_DROP;
  std::vector<Where> where;  // every one must match

  bool Detects(v1::FenceEventKind kind) const { return detect[kind]; }
  // Whether the fence watches this entity (entity_glob).
  bool Applies(absl::string_view entity_id) const;
  // Whether a fix of it meets every `where`.
  bool Matches(const model::TrackPoint& point) const;
};

// INVALID_ARGUMENT naming the field for: a collection or name that is not
// a valid name (an empty fence name included), a bad shape (FenceShape::
// FromProto), an unknown event kind, a negative debounce_ms or dwell_ms,
// DWELL without dwell_ms, a max_accuracy_m that is not a finite number >=
// 0, an unknown late_points, an entity_glob over kMaxEntityIdBytes, a name
// or entity_glob that is not UTF-8; for a roaming fence, a bad target
// collection (or one that is not UTF-8) or glob (as above), a radius_m that is
// not > 0 or beyond limits.max_radius_m, and CROSS; a `where` with an
// empty, long or non-UTF-8 field, with neither a range nor values (or
// both), a NaN bound or a min above its max, or values for a numeric
// field, and more than kMaxWheres of them. (The collection may be any
// bytes a collection name may be.)
absl::StatusOr<Fence> CompileFence(const v1::Fence& proto,
                                   const model::Limits& limits);

}  // namespace trackdb::fence

#endif  // TRACKDB_FENCE_FENCE_H_
