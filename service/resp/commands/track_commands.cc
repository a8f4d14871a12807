// History on the Redis protocol, module-style as FENCE.*: a GEO key's
// members are entities with tracks (the gRPC collection of the same name
// in database 0).
//
//   TRACK.ANALYZE key member [FROM ms] [TO ms] [MAXSPEED kmh]
//       [MAXACCURACY m] [GAPMS ms] [NOGAPS] [STAYRADIUS m] [STAYMS ms]
//     gRPC AnalyzeTrack (analysis/track_analysis.h has the rules): a map of
//     fixes, jumps, inaccurate, start_ms, end_ms, distance_m, moving_ms,
//     max_speed_kmh, mean_speed_kmh, stays (each [start_ms, end_ms, lon,
//     lat, fixes]), trips ([start_ms, end_ms, distance_m]) and gaps
//     ([start_ms, end_ms, straight_m]). A missing key or member has no
//     fixes.
//   TRACK.POSAT key member ms [NEAREST] [MAXGAP ms]
//     gRPC GetPositionAt: [lon, lat] as GEOPOS gives a position, or nil
//     when there is none (no fix, outside the track, past MAXGAP).
//   TRACK.SETRETENTION key max-age-ms [MAXPOINTS n] [EXPIRELATEST]
//     gRPC SetRetention (storage/points/retention.h): the key's history is kept
//     for max-age-ms (0: forever), at most n fixes per member (its newest;
//     0: no limit); with EXPIRELATEST, members whose latest point is
//     max-age-ms old leave the key too. The key need not exist yet: the
//     policy belongs to its name. +OK.
//   TRACK.GETRETENTION key
//     A map: max_age_ms, expire_latest (0 or 1), max_points.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/track_analysis.h"
#include "model/limits.h"
#include "model/validate.h"
#include "service/resp/commands/geo_args.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/points/position_at.h"
#include "storage/points/track_range.h"
#include "types/codec/redis_number.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

// Whether the key exists as a GEO key (WRONGTYPE replied for a string:
// nullopt), after the domain's checks on key and member.
std::optional<bool> TrackKeyOrReply(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1]) ||
      !ValidGeoMemberOrReply(ctx, ctx.argv[2])) {
    return std::nullopt;
  }
  return GeoKeyExists(ctx, ctx.Name(ctx.argv[1]));
}

bool NonNegativeIntOrReply(CommandContext& ctx, size_t i, int64_t* out) {
  if (!types::ParseInt64(ctx.argv[i], out)) {
    ctx.reply.Error(kNotIntegerError);
    return false;
  }
  if (*out < 0) {
    ctx.reply.Error(ctx.argv[i - 1] + " must not be negative");
    return false;
  }
  return true;
}

bool NonNegativeDoubleOrReply(CommandContext& ctx, size_t i, double* out) {
  if (!types::ParseRedisDouble(ctx.argv[i], out) || !std::isfinite(*out)) {
    ctx.reply.Error(kNotFloatError);
    return false;
  }
  if (*out < 0) {
    ctx.reply.Error(ctx.argv[i - 1] + " must not be negative");
    return false;
  }
  return true;
}

struct AnalyzeArgs {
  storage::TrackQuery range;
  analysis::AnalysisOptions options;
};

// One TRACK.ANALYZE option with a value at argv[i] (the value at i + 1);
// false once it has replied.
bool ParseAnalyzeOptionOrReply(CommandContext& ctx, size_t i,
                               AnalyzeArgs* args) {
  const std::string& word = ctx.argv[i];
  analysis::AnalysisOptions& o = args->options;
  auto is = [&](const char* name) { return EqualsIgnoreCase(word, name); };
  if (is("from"))
    return NonNegativeIntOrReply(ctx, i + 1, &args->range.start_ms);
  if (is("to")) return NonNegativeIntOrReply(ctx, i + 1, &args->range.end_ms);
  if (is("gapms")) return NonNegativeIntOrReply(ctx, i + 1, &o.gap_ms);
  if (is("stayms")) return NonNegativeIntOrReply(ctx, i + 1, &o.stay_min_ms);
  if (is("maxspeed")) {
    return NonNegativeDoubleOrReply(ctx, i + 1, &o.max_speed_kmh);
  }
  if (is("maxaccuracy")) {
    return NonNegativeDoubleOrReply(ctx, i + 1, &o.max_accuracy_m);
  }
  if (is("stayradius")) {
    return NonNegativeDoubleOrReply(ctx, i + 1, &o.stay_radius_m);
  }
  ctx.reply.Error(kSyntaxError);
  return false;
}

// TRACK.ANALYZE's options from argv[3]; false once it has replied.
bool ParseAnalyzeOrReply(CommandContext& ctx, AnalyzeArgs* args) {
  const std::vector<std::string>& argv = ctx.argv;
  for (size_t i = 3; i < argv.size(); i += 2) {
    if (EqualsIgnoreCase(argv[i], "nogaps")) {
      args->options.count_gaps = false;
      --i;
      continue;
    }
    if (i + 1 >= argv.size()) {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
    if (!ParseAnalyzeOptionOrReply(ctx, i, args)) return false;
  }
  if (args->range.start_ms > args->range.end_ms) {
    ctx.reply.Error("FROM is after TO");
    return false;
  }
  const absl::Status s = model::ValidateStayBounds(args->options.stay_radius_m,
                                                   args->options.stay_min_ms,
                                                   "STAYRADIUS", "STAYMS");
  if (!s.ok()) ctx.reply.Error(std::string(s.message()));
  return s.ok();
}

void ReplyAnalysis(CommandContext& ctx, const analysis::TrackAnalysis& a) {
  Reply& r = ctx.reply;
  r.Map(12);
  r.Bulk("fixes");
  r.Integer(static_cast<int64_t>(a.fixes));
  r.Bulk("jumps");
  r.Integer(static_cast<int64_t>(a.jumps));
  r.Bulk("inaccurate");
  r.Integer(static_cast<int64_t>(a.inaccurate));
  r.Bulk("start_ms");
  r.Integer(a.start_ms);
  r.Bulk("end_ms");
  r.Integer(a.end_ms);
  r.Bulk("distance_m");
  r.Double(a.distance_m);
  r.Bulk("moving_ms");
  r.Integer(a.moving_ms);
  r.Bulk("max_speed_kmh");
  r.Double(a.max_speed_kmh);
  r.Bulk("mean_speed_kmh");
  r.Double(a.mean_speed_kmh);
  r.Bulk("stays");
  r.Array(a.stays.size());
  for (const analysis::Stay& s : a.stays) {
    r.Array(5);
    r.Integer(s.start_ms);
    r.Integer(s.end_ms);
    r.Double(s.centre.lon);
    r.Double(s.centre.lat);
    r.Integer(static_cast<int64_t>(s.fixes));
  }
  r.Bulk("trips");
  r.Array(a.trips.size());
  for (const analysis::Trip& t : a.trips) {
    r.Array(3);
    r.Integer(t.start_ms);
    r.Integer(t.end_ms);
    r.Double(t.distance_m);
  }
  r.Bulk("gaps");
  r.Array(a.gaps.size());
  for (const analysis::Gap& g : a.gaps) {
    r.Array(3);
    r.Integer(g.start_ms);
    r.Integer(g.end_ms);
    r.Double(g.straight_m);
  }
}

void TrackAnalyze(CommandContext& ctx) {
  const std::optional<bool> exists = TrackKeyOrReply(ctx);
  if (!exists) return;
  AnalyzeArgs args;
  args.range.collection = ctx.Name(ctx.argv[1]);
  args.range.entity = ctx.argv[2];
  if (!ParseAnalyzeOrReply(ctx, &args)) return;
  std::vector<model::TrackPoint> points;
  if (*exists) {
    absl::StatusOr<std::vector<model::TrackPoint>> read =
        storage::ReadTrackRange(ctx.store(), args.range,
                                model::kMaxAnalyzedFixes);
    if (!read.ok() &&
        read.status().code() == absl::StatusCode::kResourceExhausted) {
      return ctx.reply.Error(std::string(read.status().message()));
    }
    if (!ctx.Check(read.status())) return;
    points = *std::move(read);
  }
  ReplyAnalysis(ctx, analysis::AnalyzeTrack(points, args.options));
}

void TrackPosAt(CommandContext& ctx) {
  const std::optional<bool> exists = TrackKeyOrReply(ctx);
  if (!exists) return;
  storage::PositionAtQuery q;
  q.collection = ctx.Name(ctx.argv[1]);
  q.entity = ctx.argv[2];
  if (!types::ParseInt64(ctx.argv[3], &q.time_ms)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  for (size_t i = 4; i < ctx.argv.size(); ++i) {
    if (EqualsIgnoreCase(ctx.argv[i], "nearest")) {
      q.method = storage::PositionAtQuery::Method::kNearest;
    } else if (EqualsIgnoreCase(ctx.argv[i], "maxgap") &&
               i + 1 < ctx.argv.size()) {
      if (!NonNegativeIntOrReply(ctx, ++i, &q.max_gap_ms)) return;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  if (!*exists) return ctx.reply.NullArray();
  absl::StatusOr<storage::PositionAt> at =
      storage::GetPositionAt(ctx.store(), q);
  if (!at.ok() && (at.status().code() == absl::StatusCode::kNotFound ||
                   at.status().code() == absl::StatusCode::kOutOfRange)) {
    return ctx.reply.NullArray();
  }
  if (!ctx.Check(at.status())) return;
  ctx.reply.Array(2);
  ctx.reply.Double(at->position.lon);
  ctx.reply.Double(at->position.lat);
}

void TrackSetRetention(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1])) return;
  storage::RetentionPolicy policy;
  if (!types::ParseInt64(ctx.argv[2], &policy.max_age_ms)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  for (size_t i = 3; i < ctx.argv.size(); ++i) {
    if (EqualsIgnoreCase(ctx.argv[i], "expirelatest")) {
      policy.expire_latest = true;
    } else if (EqualsIgnoreCase(ctx.argv[i], "maxpoints") &&
               i + 1 < ctx.argv.size()) {
      if (!types::ParseInt64(ctx.argv[++i], &policy.max_points)) {
        return ctx.reply.Error(kNotIntegerError);
      }
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  absl::Status s = model::ValidateRetention(
      policy.max_age_ms, policy.expire_latest, "max-age-ms", "EXPIRELATEST");
  s.Update(model::ValidateRetentionPoints(policy.max_points, "MAXPOINTS"));
  if (!s.ok()) return ctx.reply.Error(std::string(s.message()));
  if (!ctx.Check(ctx.store().retention().Set(ctx.Name(ctx.argv[1]), policy))) {
    return;
  }
  ctx.reply.Ok();
}

void TrackGetRetention(CommandContext& ctx) {
  if (!ValidGeoKeyOrReply(ctx, ctx.argv[1])) return;
  const storage::RetentionPolicy policy =
      ctx.store().retention().Get(ctx.Name(ctx.argv[1]));
  ctx.reply.Map(3);
  ctx.reply.Bulk("max_age_ms");
  ctx.reply.Integer(policy.max_age_ms);
  ctx.reply.Bulk("expire_latest");
  ctx.reply.Integer(policy.expire_latest ? 1 : 0);
  ctx.reply.Bulk("max_points");
  ctx.reply.Integer(policy.max_points);
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(track, table) {
  // Reads every fix of the range: on a worker, as other scans.
  table->Add("track.analyze", -3, TrackAnalyze, {"readonly"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("track.posat", -4, TrackPosAt, {"readonly", "fast"});
  table->Add("track.setretention", -3, TrackSetRetention, {"write", "fast"});
  table->Add("track.getretention", 2, TrackGetRetention, {"readonly", "fast"});
}

}  // namespace trackdb::resp
