#ifndef TRACKDB_FENCE_FENCE_H_
#define TRACKDB_FENCE_FENCE_H_

// A fence as the detector uses it: trackdb.v1.Fence checked once and
// compiled (shape, which events, debounce, dwell, accuracy gate, late
// fixes, entity filter). fence/detector.h says what each setting does.

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fence/shape.h"
#include "model/limits.h"
#include "trackdb/v1/fence.pb.h"

namespace trackdb::fence {

struct Fence {
  std::string collection;
  std::string name;
  FenceShape shape;
  std::bitset<8> detect;  // by v1::FenceEventKind
  std::string entity_glob;
  uint32_t debounce_fixes = 1;
  int64_t debounce_ms = 0;
  int64_t dwell_ms = 0;
  std::optional<double> max_accuracy_m;
  v1::LatePoints late_points = v1::LATE_POINTS_DROP;

  bool Detects(v1::FenceEventKind kind) const { return detect[kind]; }
  // Whether the fence watches this entity (entity_glob).
  bool Applies(absl::string_view entity_id) const;
};

// INVALID_ARGUMENT naming the field for: a collection or name that is not
// a valid name (an empty fence name included), a bad shape (FenceShape::
// FromProto), an unknown event kind, a negative debounce_ms or dwell_ms,
// DWELL without dwell_ms, a max_accuracy_m that is not a finite number >=
// 0, an unknown late_points, an entity_glob over kMaxEntityIdBytes, a name
// or entity_glob that is not UTF-8. (The collection may be any bytes a
// collection name may be.)
absl::StatusOr<Fence> CompileFence(const v1::Fence& proto,
                                   const model::Limits& limits);

}  // namespace trackdb::fence

#endif  // TRACKDB_FENCE_FENCE_H_
