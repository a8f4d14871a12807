// TRACK.SEARCH: gRPC SearchHistory on the Redis protocol, the history of a
// GEO key's members in space and time, paged with a cursor as SCAN is.
//
//   TRACK.SEARCH key (FROMLONLAT lon lat BYRADIUS radius m|km|ft|mi
//                     | BYBOUNDS west south east north
//                     | BYPOLYGON num-vertices lon lat [lon lat ...])
//       [FROM ms] [TO ms] [PERENTITY] [COUNT n] [CURSOR cursor]
//
// The areas are trackdb's exact ones (index/region.h), as gRPC's: a circle
// by haversine distance, a longitude/latitude rectangle (west > east
// crosses the antimeridian), a simple polygon with straight lon/lat edges
// as GEOSEARCH BYPOLYGON takes it. FROM and TO bound loc_time (inclusive;
// defaults: all time). The reply is [next-cursor, rows]: "0" ends the
// search (as SCAN's cursor); each row is [member, ms, [lon, lat]] for every
// fix inside, by member then time, or with PERENTITY [member, fixes,
// [first-ms, lon, lat], [last-ms, lon, lat]] once per member. COUNT is the
// rows per page (default 100, at most 1000).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "index/region.h"
#include "model/limits.h"
#include "service/resp/commands/geo_args.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

struct SearchArgs {
  storage::HistoryQuery query;
  std::unique_ptr<index::Region> area;
};

// FROMLONLAT lon lat BYRADIUS r unit at argv[i]; false once it replied.
bool ParseCircleOrReply(CommandContext& ctx, size_t i, SearchArgs* args) {
  const std::vector<std::string>& argv = ctx.argv;
  index::LatLng centre;
  double radius = 0, to_meters = 1;
  if (!ParseLonLatOrReply(ctx, argv[i + 1], argv[i + 2], &centre) ||
      !ParseDistanceOrReply(ctx, argv[i + 4], argv[i + 5], &radius,
                            &to_meters)) {
    return false;
  }
  absl::StatusOr<index::CircleRegion> circle =
      index::CircleRegion::Create(centre, radius * to_meters);
  if (!circle.ok()) {
    ctx.reply.Error(std::string(circle.status().message()));
    return false;
  }
  args->area = std::make_unique<index::CircleRegion>(*circle);
  return true;
}

// BYBOUNDS west south east north at argv[i].
bool ParseBoundsOrReply(CommandContext& ctx, size_t i, SearchArgs* args) {
  const std::vector<std::string>& argv = ctx.argv;
  index::LatLng south_west, north_east;
  if (!ParseLonLatOrReply(ctx, argv[i + 1], argv[i + 2], &south_west) ||
      !ParseLonLatOrReply(ctx, argv[i + 3], argv[i + 4], &north_east)) {
    return false;
  }
  absl::StatusOr<index::RectRegion> rect = index::RectRegion::Create(
      south_west.lat, south_west.lon, north_east.lat, north_east.lon);
  if (!rect.ok()) {
    ctx.reply.Error(std::string(rect.status().message()));
    return false;
  }
  args->area = std::make_unique<index::RectRegion>(*rect);
  return true;
}

// BYPOLYGON n lon lat ... at argv[i]; the words it took, or 0 once it
// replied.
size_t ParsePolygonOrReply(CommandContext& ctx, size_t i, SearchArgs* args) {
  const std::vector<std::string>& argv = ctx.argv;
  int64_t n = 0;
  if (!types::ParseInt64(argv[i + 1], &n) || n < 3 ||
      static_cast<int64_t>((argv.size() - i - 2) / 2) < n) {
    ctx.reply.Error("BYPOLYGON needs a count of at least 3 vertices and them");
    return 0;
  }
  if (!ValidPolygonSizeOrReply(ctx, n)) return 0;
  std::vector<index::LatLng> vertices(n);
  for (int64_t v = 0; v < n; ++v) {
    if (!ParseLonLatOrReply(ctx, argv[i + 2 + 2 * v], argv[i + 3 + 2 * v],
                            &vertices[v])) {
      return 0;
    }
  }
  absl::StatusOr<index::PolygonRegion> polygon =
      index::PolygonRegion::Create(std::move(vertices));
  if (!polygon.ok()) {
    ctx.reply.Error(
        absl::StrCat("invalid polygon: ", polygon.status().message()));
    return 0;
  }
  args->area = std::make_unique<index::PolygonRegion>(*std::move(polygon));
  return static_cast<size_t>(2 + 2 * n);
}

// The area at argv[i], if one starts there: the words it took; 0 when none
// does or it replied (`*replied` says which).
size_t ParseAreaOrReply(CommandContext& ctx, size_t i, SearchArgs* args,
                        bool* replied) {
  const std::vector<std::string>& argv = ctx.argv;
  const size_t left = argv.size() - i;
  auto is = [&](const char* word) { return EqualsIgnoreCase(argv[i], word); };
  size_t took = 0;
  if (is("fromlonlat") && left >= 6 &&
      EqualsIgnoreCase(argv[i + 3], "byradius")) {
    took = ParseCircleOrReply(ctx, i, args) ? 6 : 0;
  } else if (is("bybounds") && left >= 5) {
    took = ParseBoundsOrReply(ctx, i, args) ? 5 : 0;
  } else if (is("bypolygon") && left >= 2) {
    took = ParsePolygonOrReply(ctx, i, args);
  } else {
    return 0;
  }
  *replied = took == 0;
  return took;
}

// One option with a value at argv[i]; false once it replied.
bool ParseValueOptionOrReply(CommandContext& ctx, size_t i, SearchArgs* args) {
  const std::string& word = ctx.argv[i];
  const std::string& value = ctx.argv[i + 1];
  storage::HistoryQuery& q = args->query;
  int64_t n = 0;
  if (EqualsIgnoreCase(word, "cursor")) {
    q.page_token = value == "0" ? "" : value;
    return true;
  }
  if (!types::ParseInt64(value, &n)) {
    ctx.reply.Error(kNotIntegerError);
    return false;
  }
  if (EqualsIgnoreCase(word, "from")) {
    q.start_ms = n;
  } else if (EqualsIgnoreCase(word, "to")) {
    q.end_ms = n;
  } else if (EqualsIgnoreCase(word, "count")) {
    if (n < 1 || n > model::kMaxPageSize) {
      ctx.reply.Error(
          absl::StrCat("COUNT must be between 1 and ", model::kMaxPageSize));
      return false;
    }
    q.limit = static_cast<int>(n);
  } else {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  return true;
}

bool ParseSearchOrReply(CommandContext& ctx, SearchArgs* args) {
  const std::vector<std::string>& argv = ctx.argv;
  args->query.limit = static_cast<int>(model::kDefaultPageSize);
  for (size_t i = 2; i < argv.size();) {
    bool replied = false;
    if (!args->area) {
      if (size_t took = ParseAreaOrReply(ctx, i, args, &replied)) {
        i += took;
        continue;
      }
      if (replied) return false;
    }
    if (EqualsIgnoreCase(argv[i], "perentity")) {
      args->query.per_entity = true;
      ++i;
      continue;
    }
    if (i + 1 >= argv.size()) {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
    if (!ParseValueOptionOrReply(ctx, i, args)) return false;
    i += 2;
  }
  if (!args->area) {
    ctx.reply.Error(
        "exactly one of FROMLONLAT .. BYRADIUS, BYBOUNDS or BYPOLYGON is "
        "required");
    return false;
  }
  if (args->query.start_ms > args->query.end_ms) {
    ctx.reply.Error("FROM is after TO");
    return false;
  }
  return true;
}

void ReplyFix(Reply& r, const model::TrackPoint& p, bool with_time) {
  r.Array(with_time ? 3 : 2);
  if (with_time) r.Integer(p.loc_time_ms);
  r.Double(p.lon);
  r.Double(p.lat);
}

void ReplyPage(CommandContext& ctx, const storage::HistoryPage& page) {
  Reply& r = ctx.reply;
  r.Array(2);
  r.Bulk(page.next_page_token.empty() ? "0" : page.next_page_token);
  if (!page.visits.empty()) {
    r.Array(page.visits.size());
    for (const storage::HistoryVisit& v : page.visits) {
      r.Array(4);
      r.Bulk(v.first.entity);
      r.Integer(static_cast<int64_t>(v.fixes));
      ReplyFix(r, v.first, true);
      ReplyFix(r, v.last, true);
    }
    return;
  }
  r.Array(page.points.size());
  for (const model::TrackPoint& p : page.points) {
    r.Array(3);
    r.Bulk(p.entity);
    r.Integer(p.loc_time_ms);
    ReplyFix(r, p, false);
  }
}

void TrackSearch(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1])) return;
  SearchArgs args;
  if (!ParseSearchOrReply(ctx, &args)) return;
  args.query.collection = ctx.Name(ctx.argv[1]);
  args.query.region = args.area.get();
  const std::optional<bool> exists = GeoKeyExists(ctx, args.query.collection);
  if (!exists) return;  // WRONGTYPE replied
  absl::StatusOr<storage::HistoryPage> page =
      ctx.store().SearchHistory(args.query);
  if (!page.ok() &&
      page.status().code() == absl::StatusCode::kInvalidArgument) {
    return ctx.reply.Error("invalid cursor");
  }
  if (!ctx.Check(page.status())) return;
  ReplyPage(ctx, *page);
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(track_search, table) {
  // Reads the fixes of the candidates: on a worker, as other scans.
  table->Add("track.search", -5, TrackSearch, {"readonly"}, 1, 1, 1,
             RunsOn::kWorker);
}

}  // namespace trackdb::resp
