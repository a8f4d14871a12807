#ifndef TRACKDB_SERVICE_RESP_COMMANDS_GEO_ARGS_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_GEO_ARGS_H_

// The GEO commands' argument parsers: positions, distances and boxes, each
// named for the Redis function (src/geo.c) it mirrors, and the key checks
// they start with. Each replies Redis's error and returns false (or
// nullopt) when the command must stop.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "index/latlng.h"
#include "service/resp/dispatch/command.h"

namespace trackdb::resp {

// extractLongLatOrReply: a lon/lat pair, each a float (ParseRedisDouble),
// then within Redis's GEO ranges.
bool ParseLonLatOrReply(CommandContext& ctx, const std::string& lon,
                        const std::string& lat, index::LatLng* out);

// The domain's verdict (model/validate.h) on a GEO key as the client wrote
// it, and on a member: replies "-ERR GEO key is ... bytes; at most ..." (or
// "GEO member ...") and returns false when it refuses.
bool ValidGeoKeyOrReply(CommandContext& ctx, absl::string_view key);
bool ValidGeoMemberOrReply(CommandContext& ctx, absl::string_view member);
// And on a polygon's number of vertices (model::ValidatePolygonSize).
bool ValidPolygonSizeOrReply(CommandContext& ctx, int64_t vertices);

// extractDistanceOrReply: <radius> <unit>; `to_meters` is the unit's size.
// Then the domain's radius limit (model::ValidateRadius), as every door
// applies it.
bool ParseDistanceOrReply(CommandContext& ctx, const std::string& number,
                          const std::string& unit, double* radius,
                          double* to_meters);

// extractBoxOrReply: <width> <height> <unit>.
bool ParseBoxOrReply(CommandContext& ctx, const std::string& width_arg,
                     const std::string& height_arg, const std::string& unit,
                     double* width, double* height, double* to_meters);

// Looks up a key that must be a GEO key or absent, as Redis's lookupKeyRead
// + checkType: replies WRONGTYPE (or an internal error) and returns nullopt
// when the command must stop; otherwise returns whether the key exists.
// (A sorted set that is not a GEO key is WRONGTYPE here.)
std::optional<bool> GeoKeyExists(CommandContext& ctx, const std::string& name);

// GEOPOS's and GEOHASH's lookup: the scores of argv[2..] in argv[1] (all
// nullopt when the key does not exist). nullopt when it has already
// replied with an error (WRONGTYPE, storage).
std::optional<std::vector<std::optional<uint64_t>>> ScoresOfArgMembers(
    CommandContext& ctx);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_GEO_ARGS_H_
