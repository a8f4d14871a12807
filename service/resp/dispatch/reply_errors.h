#ifndef TRACKDB_SERVICE_RESP_DISPATCH_REPLY_ERRORS_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_REPLY_ERRORS_H_

// The error replies that several command families send, in Redis's words.

#include "absl/strings/string_view.h"
#include "service/resp/dispatch/command.h"

namespace trackdb::resp {

inline constexpr char kWrongTypeError[] =
    "-WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr char kNotIntegerError[] =
    "value is not an integer or out of range";
inline constexpr char kNotFloatError[] = "value is not a valid float";
inline constexpr char kSyntaxError[] = "syntax error";
inline constexpr char kSameObjectError[] =
    "source and destination objects are the same";

// Redis's addReplyErrorExpireTime: "invalid expire time in '<cmd>' command".
void ReplyInvalidExpire(CommandContext& ctx, absl::string_view command);

// Redis's addReplySubcommandSyntaxError, for a subcommand called with
// arguments it does not take: "unknown subcommand or wrong number of
// arguments for '<sub>'. Try <COMMAND> HELP."
void ReplySubcommandSyntaxError(CommandContext& ctx);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_REPLY_ERRORS_H_
