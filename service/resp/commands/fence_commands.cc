// Geofences over RESP, with module-style names as Redis modules use
// (FENCE.SET, ...). A GEO key is a collection, so a fence on key "fleet"
// watches the members GEOADD moves there (and the points gRPC's AddPoints
// writes to collection "fleet"): storage evaluates every point in its
// write path (fence/detector.h has the rules). A key's fences do not make
// the key exist (EXISTS, TYPE, DBSIZE and KEYS do not see them).
//
//   FENCE.SET key name shape [DETECT kind[,kind...]] [MATCH pattern]
//             [DEBOUNCE fixes milliseconds] [DWELL milliseconds]
//             [MAXACCURACY meters] [LATE DROP|REPORT]
//             [WHERE field min max]... [WHEREIN field n value...]...
//     (WHERE/WHEREIN as Tile38's: a fix counts only if it meets them all;
//      field: speed_kmh, direction_deg, height_m, accuracy_m or an
//      attribute's name; trackdb.v1.FenceWhere)
//     shape: CIRCLE lon lat radius m|km|ft|mi
//          | RECT west_lon south_lat east_lon north_lat
//          | POLYGON n lon lat ... [HOLE n lon lat ...]...
//          | ROAM key pattern radius m|km|ft|mi
//              (within radius of a member of `key` whose name matches
//              `pattern`, as Tile38's ROAM: trackdb.v1.FenceRoam; `key`
//              is the fence's own key or, from database 0, another
//              UTF-8 key; events carry the nearest member as "nearby")
//     kinds: enter exit inside outside cross dwell (default enter,exit)
//     -> :1 created, :0 replaced (every entity's state for it reset)
//   FENCE.GET key name     -> the fence in proto3 JSON (trackdb.v1.Fence,
//                             as gRPC's GetFence), or nil
//   FENCE.DEL key name [name ...]      -> how many existed
//   FENCE.LIST key                     -> the fence names, sorted
//   FENCE.STATE key name   -> the members inside it now, sorted
//   FENCE.EVENTS key offset [COUNT n]  -> [next offset, [event JSON...]]:
//     up to n (default 10, at most 1000) events of the key's log from
//     `offset` (0: its oldest), each trackdb.v1.FenceEvent in proto3 JSON
//     as gRPC's Watch streams it; read again from the next offset.
// (fence_json.h: how keys and members that are not UTF-8 are shown.)
//
// Every argument is checked before anything is written, and the fence by
// the same rules as gRPC's PutFence (fence::CompileFence): a bad one gets
// an -ERR naming the field, and nothing changes.

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "index/latlng.h"
#include "model/limits.h"
#include "model/validate.h"
#include "service/events/fence_json.h"
#include "service/resp/commands/geo_args.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"

namespace trackdb::resp {
namespace {

using LatLngs = google::protobuf::RepeatedPtrField<v1::LatLng>;

// Polygon rings are bounded by the request size limits only; this keeps
// one ring's vertex count an int.
constexpr int64_t kMaxRingVertices = 1 << 20;
constexpr int64_t kDefaultEventCount = 10;

// A fence's name as every door checks it (model::ValidateFenceName).
bool ValidFenceNameOrReply(CommandContext& ctx, absl::string_view name) {
  const absl::Status s = model::ValidateFenceName(name, "fence name");
  if (!s.ok()) ctx.reply.Error(s.message());
  return s.ok();
}

// Reads FENCE.SET's arguments after the key and the name, replying with
// the first error.
class FenceSetParser {
 public:
  explicit FenceSetParser(CommandContext& ctx) : ctx_(ctx) {}

  bool Parse(v1::Fence* fence) {
    if (!Shape(fence)) return false;
    while (next_ < ctx_.argv.size()) {
      if (!Option(fence)) return false;
    }
    return true;
  }

 private:
  const std::string& Arg(size_t i) const { return ctx_.argv[i]; }
  // Whether `n` arguments remain; else replies a syntax error.
  bool Have(size_t n) {
    if (next_ + n <= ctx_.argv.size()) return true;
    ctx_.reply.Error(kSyntaxError);
    return false;
  }
  bool LonLat(v1::LatLng* out) {
    if (!Have(2)) return false;
    index::LatLng p;
    if (!ParseLonLatOrReply(ctx_, Arg(next_), Arg(next_ + 1), &p)) {
      return false;
    }
    next_ += 2;
    out->set_latitude(p.lat);
    out->set_longitude(p.lon);
    return true;
  }
  bool Integer(int64_t min, int64_t max, int64_t* out) {
    if (!Have(1)) return false;
    if (!types::ParseInt64(Arg(next_), out) || *out < min || *out > max) {
      ctx_.reply.Error(kNotIntegerError);
      return false;
    }
    ++next_;
    return true;
  }

  bool Shape(v1::Fence* fence) {
    if (!Have(1)) return false;
    const std::string& word = Arg(next_++);
    if (IsWord(word, "circle")) {
      v1::FenceCircle* circle = fence->mutable_circle();
      if (!LonLat(circle->mutable_center()) || !Have(2)) return false;
      double radius = 0, to_meters = 0;
      if (!ParseDistanceOrReply(ctx_, Arg(next_), Arg(next_ + 1), &radius,
                                &to_meters)) {
        return false;
      }
      next_ += 2;
      circle->set_radius_m(radius * to_meters);
      return true;
    }
    if (IsWord(word, "roam")) return Roam(fence->mutable_roam());
    if (IsWord(word, "rect")) {
      v1::FenceRect* rect = fence->mutable_rect();
      return LonLat(rect->mutable_south_west()) &&
             LonLat(rect->mutable_north_east());
    }
    if (IsWord(word, "polygon")) {
      v1::FencePolygon* polygon = fence->mutable_polygon();
      if (!Ring(polygon->mutable_vertices())) return false;
      while (next_ < ctx_.argv.size() && IsWord(Arg(next_), "hole")) {
        ++next_;
        if (!Ring(polygon->add_holes()->mutable_vertices())) return false;
      }
      return true;
    }
    ctx_.reply.Error(kSyntaxError);
    return false;
  }

  // key pattern radius unit.
  bool Roam(v1::FenceRoam* roam) {
    if (!Have(4)) return false;
    const std::string& key = Arg(next_);
    if (!ValidGeoKeyOrReply(ctx_, key)) return false;
    if (key != ctx_.argv[1]) {
      // A collection in the fence's definition is a proto3 string.
      std::string name = ctx_.Name(key);
      if (!model::IsUtf8(name)) {
        ctx_.reply.Error(
            "ROAM key must be the fence's own key, or a UTF-8 key of "
            "database 0");
        return false;
      }
      roam->set_collection(std::move(name));
    }
    roam->set_entity_glob(Arg(next_ + 1));
    double radius = 0, to_meters = 0;
    if (!ParseDistanceOrReply(ctx_, Arg(next_ + 2), Arg(next_ + 3), &radius,
                              &to_meters)) {
      return false;
    }
    next_ += 4;
    roam->set_radius_m(radius * to_meters);
    return true;
  }

  // n lon lat ... (n pairs).
  bool Ring(LatLngs* ring) {
    int64_t n = 0;
    if (!Integer(0, kMaxRingVertices, &n)) return false;
    for (int64_t i = 0; i < n; ++i) {
      if (!LonLat(ring->Add())) return false;
    }
    return true;
  }

  bool Option(v1::Fence* fence) {
    const std::string& word = Arg(next_++);
    if (IsWord(word, "detect")) return Detect(fence);
    if (IsWord(word, "debounce")) return Debounce(fence);
    if (IsWord(word, "where")) return Where(fence->add_where());
    if (IsWord(word, "wherein")) return WhereIn(fence->add_where());
    if (IsWord(word, "dwell")) return Dwell(fence);
    if (IsWord(word, "match") || IsWord(word, "maxaccuracy") ||
        IsWord(word, "late")) {
      return WordOption(word, fence);
    }
    ctx_.reply.Error(kSyntaxError);
    return false;
  }

  // fixes ms.
  bool Debounce(v1::Fence* fence) {
    int64_t n = 0;
    if (!Integer(0, UINT32_MAX, &n)) return false;
    fence->set_debounce_fixes(static_cast<uint32_t>(n));
    if (!Integer(0, INT64_MAX, &n)) return false;
    fence->set_debounce_ms(n);
    return true;
  }

  // ms.
  bool Dwell(v1::Fence* fence) {
    int64_t n = 0;
    if (!Integer(0, INT64_MAX, &n)) return false;
    fence->set_dwell_ms(n);
    return true;
  }

  // The options of one argument: MATCH glob, MAXACCURACY meters, LATE
  // DROP|REPORT (`word` is one of them).
  bool WordOption(const std::string& word, v1::Fence* fence) {
    if (!Have(1)) return false;
    const std::string& value = Arg(next_++);
    if (IsWord(word, "match")) {
      fence->set_entity_glob(value);
      return true;
    }
    if (IsWord(word, "maxaccuracy")) {
      double meters = 0;
      if (!types::ParseRedisDouble(value, &meters)) {
        ctx_.reply.Error(kNotFloatError);
        return false;
      }
      fence->set_max_accuracy_m(meters);
      return true;
    }
    if (!IsWord(value, "drop") && !IsWord(value, "report")) {
      ctx_.reply.Error(kSyntaxError);
      return false;
    }
    fence->set_late_points(IsWord(value, "drop") ? v1::LATE_POINTS_DROP
                                                 : v1::LATE_POINTS_REPORT);
    return true;
  }

  // field min max (-inf / +inf: open), as Tile38's WHERE.
  bool Where(v1::FenceWhere* where) {
    if (!Have(3)) return false;
    where->set_field(Arg(next_));
    double bound[2];
    for (int i = 0; i < 2; ++i) {
      if (!types::ParseRedisDouble(Arg(next_ + 1 + i), &bound[i])) {
        ctx_.reply.Error(kNotFloatError);
        return false;
      }
    }
    next_ += 3;
    if (!std::isinf(bound[0])) where->set_min(bound[0]);
    if (!std::isinf(bound[1])) where->set_max(bound[1]);
    // Both open: any value of the field, which it must have.
    if (!where->has_min() && !where->has_max()) where->set_min(-HUGE_VAL);
    return true;
  }

  // field count value..., as Tile38's WHEREIN.
  bool WhereIn(v1::FenceWhere* where) {
    if (!Have(1)) return false;
    where->set_field(Arg(next_++));
    int64_t n = 0;
    if (!Integer(1, kMaxRingVertices, &n) || !Have(static_cast<size_t>(n))) {
      return false;
    }
    for (int64_t i = 0; i < n; ++i) where->add_in(Arg(next_++));
    return true;
  }

  // kind[,kind...], e.g. enter,exit,dwell.
  bool Detect(v1::Fence* fence) {
    if (!Have(1)) return false;
    for (absl::string_view kind : absl::StrSplit(Arg(next_++), ',')) {
      v1::FenceEventKind k;
      const std::string name =
          absl::StrCat("FENCE_EVENT_", absl::AsciiStrToUpper(kind));
      if (kind.empty() || !v1::FenceEventKind_Parse(name, &k) ||
          k == v1::FENCE_EVENT_KIND_UNSPECIFIED) {
        // At most 64 bytes of it: an error does not echo a huge argument.
        ctx_.reply.Error(
            absl::StrCat("unknown fence event '", kind.substr(0, 64),
                         "': enter, exit, inside, outside, cross or dwell"));
        return false;
      }
      fence->add_detect(k);
    }
    return true;
  }

  CommandContext& ctx_;
  size_t next_ = 3;
};

void FenceSet(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1]) ||
      !ValidFenceNameOrReply(ctx, ctx.argv[2])) {
    return;
  }
  v1::Fence fence;
  fence.set_collection(ctx.Name(ctx.argv[1]));
  fence.set_name(ctx.argv[2]);
  if (!FenceSetParser(ctx).Parse(&fence)) return;
  absl::StatusOr<bool> created = ctx.store().fences().Put(fence);
  if (!created.ok() &&
      created.status().code() == absl::StatusCode::kInvalidArgument) {
    ctx.reply.Error(created.status().message());
    return;
  }
  if (!ctx.Check(created.status())) return;
  ctx.reply.Integer(*created ? 1 : 0);
}

void FenceGet(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1]) ||
      !ValidFenceNameOrReply(ctx, ctx.argv[2])) {
    return;
  }
  auto fence = ctx.store().fences().Get(ctx.Name(ctx.argv[1]), ctx.argv[2]);
  if (!ctx.Check(fence.status())) return;
  if (!fence->has_value()) return ctx.reply.Null();
  ctx.reply.Bulk(FenceJson(ctx.argv[1], **std::move(fence)));
}

void FenceDel(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1])) return;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    if (!ValidFenceNameOrReply(ctx, ctx.argv[i])) return;
  }
  int64_t deleted = 0;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    auto existed = ctx.store().fences().Delete(ctx.Name(ctx.argv[1]), ctx.argv[i]);
    if (!ctx.Check(existed.status())) return;
    deleted += *existed ? 1 : 0;
  }
  ctx.reply.Integer(deleted);
}

void FenceList(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1])) return;
  auto fences = ctx.store().fences().List(ctx.Name(ctx.argv[1]));
  if (!ctx.Check(fences.status())) return;
  ctx.reply.Array(fences->size());
  for (const v1::Fence& f : *fences) ctx.reply.Bulk(f.name());
}

void FenceState(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1]) ||
      !ValidFenceNameOrReply(ctx, ctx.argv[2])) {
    return;
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  auto fence = ctx.store().fences().Get(name, ctx.argv[2]);
  if (!ctx.Check(fence.status())) return;
  if (!fence->has_value()) {
    ctx.reply.Error(absl::StrCat("no fence '", ctx.argv[2], "' on this key"));
    return;
  }
  auto inside = ctx.store().fences().Members(name, ctx.argv[2]);
  if (!ctx.Check(inside.status())) return;
  ctx.reply.Array(inside->size());
  for (const std::string& id : *inside) ctx.reply.Bulk(id);
}

void FenceEvents(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1])) return;
  int64_t from = 0, count = kDefaultEventCount;
  if (!types::ParseInt64(ctx.argv[2], &from) || from < 0) {
    return ctx.reply.Error(kNotIntegerError);
  }
  if (ctx.argv.size() != 3) {
    if (ctx.argv.size() != 5 || !IsWord(ctx.argv[3], "count")) {
      return ctx.reply.Error(kSyntaxError);
    }
    if (!types::ParseInt64(ctx.argv[4], &count) || count < 1 ||
        count > model::kMaxPageSize) {
      return ctx.reply.Error(
          absl::StrCat("COUNT must be 1 to ", model::kMaxPageSize));
    }
  }
  auto page = ctx.store().fences().ReadEvents(ctx.Name(ctx.argv[1]),
                                          static_cast<uint64_t>(from),
                                          static_cast<size_t>(count));
  if (!ctx.Check(page.status())) return;
  ctx.reply.Array(2);
  ctx.reply.Integer(static_cast<int64_t>(page->next_offset));
  ctx.reply.Array(page->events.size());
  for (const storage::FenceEventRecord& e : page->events) {
    ctx.reply.Bulk(FenceEventJson(ctx.argv[1], e));
  }
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(fence, table) {
  table->Add("fence.set", -6, FenceSet, {"write", "denyoom"});
  table->Add("fence.get", 3, FenceGet, {"readonly", "fast"});
  table->Add("fence.del", -3, FenceDel, {"write"});
  // Their replies grow with the fences, the members inside, the COUNT.
  table->Add("fence.list", 2, FenceList, {"readonly"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("fence.state", 3, FenceState, {"readonly"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("fence.events", -3, FenceEvents, {"readonly"}, 1, 1, 1,
             RunsOn::kWorker);
}

}  // namespace trackdb::resp
