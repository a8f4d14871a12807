#include "service/resp/commands/geo_args.h"

#include <cstdio>
#include <optional>

#include "index/geohash.h"
#include "index/redis_geo_format.h"
#include "model/limits.h"
#include "model/validate.h"
#include "model/clock.h"
#include "service/resp/commands/typed_zset.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/geo_source.h"
#include "types/key_type.h"

namespace trackdb::resp {

bool ParseLonLatOrReply(CommandContext& ctx, const std::string& lon,
                        const std::string& lat, index::LatLng* out) {
  double x = 0, y = 0;
  if (!types::ParseRedisDouble(lon, &x) || !types::ParseRedisDouble(lat, &y)) {
    ctx.reply.Error(kNotFloatError);
    return false;
  }
  if (x < index::kRedisLonMin || x > index::kRedisLonMax ||
      y < index::kRedisLatMin || y > index::kRedisLatMax) {
    // Redis formats this one with "%f" and its own "-ERR " prefix.
    char buf[1024];
    std::snprintf(buf, sizeof(buf),
                  "-ERR invalid longitude,latitude pair %f,%f", x, y);
    ctx.reply.Error(buf);
    return false;
  }
  *out = index::LatLng{y, x};
  return true;
}

namespace {

bool OkOrReply(CommandContext& ctx, const absl::Status& s) {
  if (s.ok()) return true;
  ctx.reply.Error(std::string(s.message()));
  return false;
}

}  // namespace

bool ValidPolygonSizeOrReply(CommandContext& ctx, int64_t vertices) {
  return OkOrReply(ctx, model::ValidatePolygonSize(
                            vertices, "BYPOLYGON",
                            model::LimitsFrom(ctx.server.config().limits())));
}

bool ValidGeoKeyOrReply(CommandContext& ctx, absl::string_view key) {
  return OkOrReply(ctx, model::ValidateCollection(key, "GEO key"));
}

bool ValidGeoMemberOrReply(CommandContext& ctx, absl::string_view member) {
  return OkOrReply(ctx, model::ValidateEntityId(member, "GEO member"));
}

bool ParseDistanceOrReply(CommandContext& ctx, const std::string& number,
                          const std::string& unit, double* radius,
                          double* to_meters) {
  double d = 0;
  if (!types::ParseRedisDouble(number, &d)) {
    ctx.reply.Error("need numeric radius");
    return false;
  }
  if (d < 0) {
    ctx.reply.Error("radius cannot be negative");
    return false;
  }
  std::optional<double> u = index::RedisUnitToMeters(unit);
  if (!u) {
    ctx.reply.Error(index::kRedisUnsupportedUnitError);
    return false;
  }
  if (!OkOrReply(ctx, model::ValidateRadius(
                          d * *u, "radius",
                          model::LimitsFrom(ctx.server.config().limits())))) {
    return false;
  }
  *radius = d;
  *to_meters = *u;
  return true;
}

bool ParseBoxOrReply(CommandContext& ctx, const std::string& width_arg,
                     const std::string& height_arg, const std::string& unit,
                     double* width, double* height, double* to_meters) {
  double w = 0, h = 0;
  if (!types::ParseRedisDouble(width_arg, &w)) {
    ctx.reply.Error("need numeric width");
    return false;
  }
  if (!types::ParseRedisDouble(height_arg, &h)) {
    ctx.reply.Error("need numeric height");
    return false;
  }
  if (h < 0 || w < 0) {
    ctx.reply.Error("height or width cannot be negative");
    return false;
  }
  std::optional<double> u = index::RedisUnitToMeters(unit);
  if (!u) {
    ctx.reply.Error(index::kRedisUnsupportedUnitError);
    return false;
  }
  *width = w;
  *height = h;
  *to_meters = *u;
  return true;
}

std::optional<bool> GeoKeyExists(CommandContext& ctx, const std::string& name) {
  absl::StatusOr<types::KeyType> type =
      types::TypeOf(ctx.store(), name, NowMs());
  if (!ctx.Check(type.status())) return std::nullopt;
  if (*type != types::KeyType::kGeo && *type != types::KeyType::kNone) {
    ctx.reply.Error(kWrongTypeError);
    return std::nullopt;
  }
  return *type == types::KeyType::kGeo;
}

std::optional<std::vector<std::optional<uint64_t>>> ScoresOfArgMembers(
    CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return std::nullopt;
  const std::vector<std::string> members(ctx.argv.begin() + 2, ctx.argv.end());
  auto scores =
      types::GeoSourceScores(ctx.store(), name, *kind, members, NowMs());
  if (!ctx.Check(scores.status())) return std::nullopt;
  return *std::move(scores);
}

}  // namespace trackdb::resp
