#include "fence/fence.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "model/glob.h"
#include "model/validate.h"

namespace trackdb::fence {
namespace {

absl::Status CheckGlob(absl::string_view glob, absl::string_view field) {
  // A proto3 string (the API, events' JSON); a RESP client may send any
  // bytes.
  if (!model::IsUtf8(glob)) {
    return absl::InvalidArgumentError(absl::StrCat(field, " must be UTF-8"));
  }
  if (glob.size() > model::kMaxEntityIdBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " must be at most ", model::kMaxEntityIdBytes,
                     " bytes, got ", glob.size()));
  }
  return absl::OkStatus();
}

absl::Status CheckNames(const v1::Fence& proto) {
  absl::Status s = model::ValidateCollection(proto.collection());
  if (!s.ok()) return s;
  s = model::ValidateFenceName(proto.name());
  if (!s.ok()) return s;
  return CheckGlob(proto.entity_glob(), "entity_glob");
}

absl::StatusOr<Roam> CompileRoam(const v1::Fence& proto,
                                 const model::Limits& limits) {
  const v1::FenceRoam& r = proto.roam();
  Roam roam{r.collection().empty() ? proto.collection() : r.collection(),
            r.entity_glob(), r.radius_m()};
  absl::Status s;
  if (!r.collection().empty()) {
    s = model::ValidateCollection(r.collection(), "roam.collection");
    if (!s.ok()) return s;
    // Stored as a proto3 string, as gRPC sends it (a RESP key of another
    // database is not one: its door says so).
    if (!model::IsUtf8(r.collection())) {
      return absl::InvalidArgumentError("roam.collection must be UTF-8");
    }
  }
  s = CheckGlob(r.entity_glob(), "roam.entity_glob");
  if (!s.ok()) return s;
  if (!(r.radius_m() > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("roam.radius_m must be a number > 0, got ", r.radius_m()));
  }
  s = model::ValidateRadius(r.radius_m(), "roam.radius_m", limits);
  if (!s.ok()) return s;
  return roam;
}

// The area, or a roaming fence's targets.
absl::Status CompileWhere(const v1::Fence& proto, const model::Limits& limits,
                          Fence* fence) {
  if (proto.has_roam()) {
    auto roam = CompileRoam(proto, limits);
    if (!roam.ok()) return roam.status();
    fence->roam = *std::move(roam);
    return absl::OkStatus();
  }
  auto shape = FenceShape::FromProto(proto, limits);
  if (!shape.ok()) return shape.status();
  fence->shape = *std::move(shape);
  return absl::OkStatus();
}

absl::Status CompileDetect(const v1::Fence& proto, Fence* fence) {
  for (int i = 0; i < proto.detect_size(); ++i) {
    const int kind = proto.detect(i);
    if (kind <= v1::FENCE_EVENT_KIND_UNSPECIFIED ||
        !v1::FenceEventKind_IsValid(kind)) {
      return absl::InvalidArgumentError(
          absl::StrCat("detect[", i,
                       "]: not an event kind (ENTER, EXIT, INSIDE, OUTSIDE, "
                       "CROSS, DWELL), got ",
                       kind));
    }
    if (kind == v1::FENCE_EVENT_CROSS && fence->roam) {
      return absl::InvalidArgumentError(absl::StrCat(
          "detect[", i, "]: CROSS is not defined for a roaming fence"));
    }
    fence->detect.set(kind);
  }
  if (fence->detect.none()) {
    fence->detect.set(v1::FENCE_EVENT_ENTER);
    fence->detect.set(v1::FENCE_EVENT_EXIT);
  }
  return absl::OkStatus();
}

absl::Status CompileTiming(const v1::Fence& proto, Fence* fence) {
  if (proto.debounce_ms() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("debounce_ms must be >= 0, got ", proto.debounce_ms()));
  }
  if (proto.dwell_ms() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("dwell_ms must be >= 0, got ", proto.dwell_ms()));
  }
  if (fence->Detects(v1::FENCE_EVENT_DWELL) && proto.dwell_ms() == 0) {
    return absl::InvalidArgumentError(
        "dwell_ms: required (> 0) when detect has DWELL");
  }
  if (proto.has_max_accuracy_m() &&
      !(std::isfinite(proto.max_accuracy_m()) && proto.max_accuracy_m() >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_accuracy_m must be a finite number >= 0, got ",
                     proto.max_accuracy_m()));
  }
  if (!v1::LatePoints_IsValid(proto.late_points())) {
    return absl::InvalidArgumentError(
        absl::StrCat("late_points: not LATE_POINTS_DROP or "
                     "LATE_POINTS_REPORT, got ",
                     proto.late_points()));
  }
  fence->debounce_fixes = std::max<uint32_t>(1, proto.debounce_fixes());
  fence->debounce_ms = proto.debounce_ms();
  fence->dwell_ms = proto.dwell_ms();
  if (proto.has_max_accuracy_m()) {
    fence->max_accuracy_m = proto.max_accuracy_m();
  }
  fence->late_points = proto.late_points();
  return absl::OkStatus();
}

// The field a filter looks at: one of a point's numbers by its name, or
// else the attribute of that name.
void SetWhereField(const v1::FenceWhere& w, Where* where) {
  static const auto* const kNumeric =
      new std::vector<std::pair<absl::string_view, Where::Field>>{
          {"speed_kmh", Where::Field::kSpeed},
          {"direction_deg", Where::Field::kDirection},
          {"height_m", Where::Field::kHeight},
          {"accuracy_m", Where::Field::kAccuracy}};
  where->attribute = w.field();
  for (const auto& [name, field] : *kNumeric) {
    if (w.field() == name) where->field = field;
  }
}

// A filter takes either a range (min, max or both) or a list (in), and a
// list only for an attribute.
absl::Status CheckWhereBounds(const v1::FenceWhere& w, const std::string& at,
                              Where::Field field) {
  const bool range = w.has_min() || w.has_max();
  if (range == (w.in_size() > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(at, ": set either min/max or in"));
  }
  if (std::isnan(w.min()) || std::isnan(w.max()) ||
      (w.has_min() && w.has_max() && w.min() > w.max())) {
    return absl::InvalidArgumentError(
        absl::StrCat(at, ": min and max must be numbers, min <= max"));
  }
  if (!range && field != Where::Field::kAttribute) {
    return absl::InvalidArgumentError(
        absl::StrCat(at, ".in: ", w.field(), " is a number: give min and max"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Where> CompileWhere(const v1::FenceWhere& w,
                                   const std::string& at) {
  if (w.field().empty() || w.field().size() > kMaxWhereFieldBytes ||
      !model::IsUtf8(w.field())) {
    return absl::InvalidArgumentError(absl::StrCat(
        at, ".field must be 1 to ", kMaxWhereFieldBytes, " bytes of UTF-8"));
  }
  Where where;
  SetWhereField(w, &where);
  if (absl::Status s = CheckWhereBounds(w, at, where.field); !s.ok()) return s;
  if (w.has_min()) where.min = w.min();
  if (w.has_max()) where.max = w.max();
  where.in.assign(w.in().begin(), w.in().end());
  return where;
}

absl::Status CompileWheres(const v1::Fence& proto, Fence* fence) {
  if (proto.where_size() > kMaxWheres) {
    return absl::InvalidArgumentError(absl::StrCat(
        "where: at most ", kMaxWheres, " filters, got ", proto.where_size()));
  }
  for (int i = 0; i < proto.where_size(); ++i) {
    auto w = CompileWhere(proto.where(i), absl::StrCat("where[", i, "]"));
    if (!w.ok()) return w.status();
    fence->where.push_back(*std::move(w));
  }
  return absl::OkStatus();
}

// The number `w` looks at in `p` (none for an attribute: Where::Matches).
std::optional<double> NumericField(const Where& w, const model::TrackPoint& p) {
  switch (w.field) {
    case Where::Field::kSpeed:
      return p.speed_kmh;
    case Where::Field::kDirection:
      return p.direction_deg;
    case Where::Field::kHeight:
      return p.height_m;
    case Where::Field::kAccuracy:
      return p.accuracy_m;
    case Where::Field::kAttribute:
      break;
  }
  return std::nullopt;
}

}  // namespace

bool Where::Matches(const model::TrackPoint& p) const {
  std::optional<double> number = NumericField(*this, p);
  if (field == Field::kAttribute) {
    const std::string* value = nullptr;
    for (const auto& [name, v] : p.attributes) {
      if (name == attribute) value = &v;
    }
    if (value == nullptr) return false;
    if (!in.empty()) {
      return std::find(in.begin(), in.end(), *value) != in.end();
    }
    double d = 0;
    if (!absl::SimpleAtod(*value, &d) || std::isnan(d)) return false;
    number = d;
  }
  return number && (!min || *number >= *min) && (!max || *number <= *max);
}

bool Fence::Matches(const model::TrackPoint& point) const {
  for (const Where& w : where) {
    if (!w.Matches(point)) return false;
  }
  return true;
}

bool Roam::Targets(absl::string_view own, absl::string_view watched,
                   absl::string_view entity) const {
  if (collection == own && entity == watched) return false;
  return entity_glob.empty() || model::GlobMatch(entity_glob, entity);
}

bool Fence::Applies(absl::string_view entity_id) const {
  return entity_glob.empty() || model::GlobMatch(entity_glob, entity_id);
}

absl::StatusOr<Fence> CompileFence(const v1::Fence& proto,
                                   const model::Limits& limits) {
  absl::Status s = CheckNames(proto);
  if (!s.ok()) return s;
  Fence fence{proto.collection(), proto.name()};
  s = CompileWhere(proto, limits, &fence);
  if (!s.ok()) return s;
  fence.entity_glob = proto.entity_glob();
  s = CompileDetect(proto, &fence);
  if (!s.ok()) return s;
  s = CompileTiming(proto, &fence);
  if (!s.ok()) return s;
  s = CompileWheres(proto, &fence);
  if (!s.ok()) return s;
  return fence;
}

}  // namespace trackdb::fence
