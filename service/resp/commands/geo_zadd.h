#ifndef TRACKDB_SERVICE_RESP_COMMANDS_GEO_ZADD_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_GEO_ZADD_H_

// ZADD and ZINCRBY on a GEO key. A GEO key is a sorted set to Redis, whose
// scores GEOPOS and the searches decode as 52-bit geohashes; ZADD stores a
// score there as it would in any sorted set. trackdb keeps positions, not
// scores (geo_key.h), so a member's new score is written as a fix at the
// centre of the geohash cell it names, which every GEO and sorted-set
// command then reads back as exactly that score.
//
// A score is a position only if it is an integer in [0, 2^52): a score
// that would be stored outside that (1.5, -1, 2^52, inf) is refused with
// an error saying so, and the call writes nothing (Redis would keep 1.5 as
// a score and decode it as 1). Scores the call does not store (NX on a
// member, a GT that loses) are not checked, as Redis stores nothing there.
//
// Atomic per member: each member's score is decided from its stored
// position under its entity's lock (AddPointsOptions::position), so
// concurrent ZINCRBYs add up. All members go in one AddPoints: one batch,
// with fence events as GEOADD's. A member whose score does not change is
// not written (no history point), as Redis changes nothing.

#include <string>

#include "service/resp/commands/zadd_args.h"
#include "service/resp/dispatch/command.h"

namespace trackdb::resp {

// Serves `req` (parsed from ctx.argv) on the GEO key `name` (a storage
// name) and replies as ZADD/ZINCRBY. True when a member was written.
bool ZAddToGeoKey(CommandContext& ctx, const std::string& name,
                  const ZAddRequest& req);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_GEO_ZADD_H_
