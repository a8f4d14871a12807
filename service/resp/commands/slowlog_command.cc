// SLOWLOG GET, LEN, RESET and HELP over the server's SlowLog (slow_log.h),
// with Redis's replies; CONFIG slowlog-log-slower-than and slowlog-max-len
// (config_command.cc) set what it keeps.

#include <string>
#include <utility>

#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"

namespace trackdb::resp {
namespace {

// SLOWLOG GET [count]: the newest `count` entries (10 by default, -1 all),
// each [id, unix time, microseconds, [arguments], address, name].
void SlowlogGet(CommandContext& ctx) {
  if (ctx.argv.size() > 3) return ReplySubcommandSyntaxError(ctx);
  int64_t count = 10;
  if (ctx.argv.size() == 3 &&
      (!types::ParseInt64(ctx.argv[2], &count) || count < -1)) {
    return ctx.reply.Error("count should be greater than or equal to -1");
  }
  const std::vector<SlowLog::Entry> entries =
      ctx.server.slow_log().Newest(count);
  ctx.reply.Array(entries.size());
  for (const SlowLog::Entry& e : entries) {
    ctx.reply.Array(6);
    ctx.reply.Integer(e.id);
    ctx.reply.Integer(e.unix_s);
    ctx.reply.Integer(e.duration_us);
    ctx.reply.Array(e.argv.size());
    for (const std::string& arg : e.argv) ctx.reply.Bulk(arg);
    ctx.reply.Bulk(e.addr);
    ctx.reply.Bulk(e.name);
  }
}

void SlowlogHelp(CommandContext& ctx) {
  const char* lines[] = {
      "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET [<count>]",
      "    Return top <count> entries from the slowlog (default: 10, -1 mean "
      "all).",
      "    Entries are made of:",
      "    id, timestamp, time in microseconds, arguments array, client IP "
      "and port,",
      "    client name",
      "LEN",
      "    Return the length of the slowlog.",
      "RESET",
      "    Reset the slowlog.",
      "HELP",
      "    Prints this help."};
  ctx.reply.StatusLines(lines);
}

CommandSpec SlowlogCommand() {
  CommandSpec slowlog = CommandWithSubcommands("slowlog");
  const std::vector<std::string> admin = {"admin", "loading", "stale"};
  AddSubcommand(slowlog, {"get", -2, admin}, SlowlogGet);
  AddSubcommand(slowlog, {"len", 2, admin}, [](CommandContext& ctx) {
    ctx.reply.Integer(static_cast<int64_t>(ctx.server.slow_log().size()));
  });
  AddSubcommand(slowlog, {"reset", 2, admin}, [](CommandContext& ctx) {
    ctx.server.slow_log().Reset();
    ctx.reply.Ok();
  });
  AddSubcommand(slowlog, {"help", 2, {"loading", "stale"}}, SlowlogHelp);
  return slowlog;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(slowlog, table) { table->Add(SlowlogCommand()); }

}  // namespace trackdb::resp
