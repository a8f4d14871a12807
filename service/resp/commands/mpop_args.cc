#include "service/resp/commands/mpop_args.h"

#include <vector>

#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"

namespace trackdb::resp {
namespace {

// getRangeLongFromObjectOrReply(1, LONG_MAX) with its own message.
bool ParsePositive(const std::string& arg, int64_t* out) {
  return types::ParseInt64(arg, out) && *out >= 1;
}

}  // namespace

bool ParseMpopArgsOrReply(CommandContext& ctx, size_t numkeys_at,
                          const std::function<bool(const std::string&)>& is_end,
                          MpopArgs* out) {
  const std::vector<std::string>& argv = ctx.argv;
  int64_t numkeys = 0;
  if (!ParsePositive(argv[numkeys_at], &numkeys)) {
    ctx.reply.Error("numkeys should be greater than 0");
    return false;
  }
  // The end word follows the keys: there must be more arguments than keys.
  const size_t after = argv.size() - numkeys_at - 1;
  if (static_cast<uint64_t>(numkeys) >= after ||
      !is_end(argv[numkeys_at + numkeys + 1])) {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  out->first_key = numkeys_at + 1;
  out->keys = static_cast<size_t>(numkeys);
  out->end = numkeys_at + numkeys + 1;
  bool counted = false;
  for (size_t j = out->end + 1; j < argv.size(); ++j) {
    if (!counted && IsWord(argv[j], "count") && j + 1 < argv.size()) {
      counted = true;
      if (!ParsePositive(argv[++j], &out->count)) {
        ctx.reply.Error("count should be greater than 0");
        return false;
      }
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

}  // namespace trackdb::resp
