#ifndef TRACKDB_SERVICE_RESP_COMMANDS_MPOP_ARGS_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_MPOP_ARGS_H_

// The arguments LMPOP, BLMPOP, ZMPOP and BZMPOP share: numkeys key
// [key ...] <end> [COUNT count], read with Redis 7.0's checks in its order
// (lmpopGenericCommand, zmpopGenericCommand): numkeys and count must be
// integers in [1, LONG_MAX] ("numkeys should be greater than 0", "count
// should be greater than 0"), and a missing or unknown end word, a second
// COUNT or anything else after it is a syntax error.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "service/resp/dispatch/command.h"

namespace trackdb::resp {

struct MpopArgs {
  size_t first_key = 0;  // argv index of the first key
  size_t keys = 0;
  size_t end = 0;  // argv index of the end word (LEFT/RIGHT, MIN/MAX)
  int64_t count = 1;
};

// Reads argv from `numkeys_at`; `is_end` accepts the end words. False once
// it has replied an error.
bool ParseMpopArgsOrReply(CommandContext& ctx, size_t numkeys_at,
                          const std::function<bool(const std::string&)>& is_end,
                          MpopArgs* out);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_MPOP_ARGS_H_
