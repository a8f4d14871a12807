#include "service/resp/dispatch/reply_errors.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace trackdb::resp {

void ReplyInvalidExpire(CommandContext& ctx, absl::string_view command) {
  ctx.reply.Error(
      absl::StrCat("invalid expire time in '", command, "' command"));
}

void ReplySubcommandSyntaxError(CommandContext& ctx) {
  ctx.reply.Error(
      absl::StrCat("unknown subcommand or wrong number of arguments for '",
                   absl::string_view(ctx.argv[1]).substr(0, 128), "'. Try ",
                   absl::AsciiStrToUpper(ctx.argv[0]), " HELP."));
}

}  // namespace trackdb::resp
