#ifndef TRACKDB_SERVICE_RESP_COMMANDS_ZADD_ARGS_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_ZADD_ARGS_H_

// ZADD's and ZINCRBY's arguments and zsetAdd's rule for one member (Redis
// 7.0's t_zset.c), shared by the typed zset (zset_write_commands.cc) and
// the GEO key (geo_zadd.h), so that both decide alike.

#include <cstddef>
#include <optional>
#include <vector>

#include "service/resp/dispatch/command.h"

namespace trackdb::resp {

struct ZAddRequest {
  bool nx = false, xx = false, gt = false, lt = false, ch = false;
  bool incr = false;
  size_t scoreidx = 2;  // argv index of the first score
  std::vector<double> scores;
};

// zaddGenericCommand's option and score checks, in its order; false once
// it has replied an error. `req->incr` set beforehand makes it ZINCRBY.
bool ParseZAddOrReply(CommandContext& ctx, ZAddRequest* req);

enum class ZAddOutcome { kAdded, kUpdated, kSame, kNop, kNan };

// zsetAdd's decision for a member whose score is `current` (nullopt: not a
// member) given `score`: what happens, and in `*newscore` its score after
// (unset for kNop and kNan).
ZAddOutcome ZAddDecide(const ZAddRequest& req, std::optional<double> current,
                       double score, double* newscore);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_ZADD_ARGS_H_
