#include "service/resp/reply_errors.h"

#include "absl/strings/str_cat.h"

namespace trackdb::resp {

void ReplyInvalidExpire(CommandContext& ctx, absl::string_view command) {
  ctx.reply.Error(
      absl::StrCat("invalid expire time in '", command, "' command"));
}

}  // namespace trackdb::resp
