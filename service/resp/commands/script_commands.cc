// Scripting, as Redis 7.0: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT
// LOAD, EXISTS, FLUSH and KILL. Each parses and checks in Redis's order
// and runs the script through service/resp/scripting (which says how a
// script runs); the script cache is the server's (ScriptState).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "service/resp/scripting/script_run.h"
#include "types/codec/redis_number.h"

namespace trackdb::resp {
namespace {

constexpr char kNoScript[] = "-NOSCRIPT No matching script. Please use EVAL.";

// EVAL script numkeys [key ...] [arg ...], and its forms.
void EvalGeneric(CommandContext& ctx, bool by_sha, bool read_only) {
  // A SHA1 of another length matches nothing: said before the arguments.
  if (by_sha && ctx.argv[1].size() != 40) return ctx.reply.Error(kNoScript);
  int64_t numkeys = 0;
  if (!types::ParseInt64(ctx.argv[2], &numkeys)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  const int64_t rest = static_cast<int64_t>(ctx.argv.size()) - 3;
  if (numkeys > rest) {
    return ctx.reply.Error(
        "Number of keys can't be greater than number of args");
  }
  if (numkeys < 0) return ctx.reply.Error("Number of keys can't be negative");
  std::string sha, body;
  if (by_sha) {
    sha = absl::AsciiStrToLower(ctx.argv[1]);
    std::optional<std::string> known = ctx.server.scripts().Get(sha);
    if (!known) return ctx.reply.Error(kNoScript);
    body = *std::move(known);
  } else {
    body = ctx.argv[1];
    sha = scripting::Sha1Hex(body);
  }
  const size_t first_arg = 3 + static_cast<size_t>(numkeys);
  const absl::Span<const std::string> keys(ctx.argv.data() + 3,
                                           static_cast<size_t>(numkeys));
  const absl::Span<const std::string> args(ctx.argv.data() + first_arg,
                                           ctx.argv.size() - first_arg);
  // A script that compiled is cached, as Redis caches it.
  if (scripting::RunScript(ctx, sha, body, keys, args, read_only) && !by_sha) {
    ctx.server.scripts().Put(sha, body);
  }
}

void ScriptLoad(CommandContext& ctx) {
  const std::string sha = scripting::Sha1Hex(ctx.argv[2]);
  if (std::optional<std::string> error =
          scripting::CompileScript(sha, ctx.argv[2])) {
    return ctx.reply.Error(*error);
  }
  ctx.server.scripts().Put(sha, ctx.argv[2]);
  ctx.reply.Bulk(sha);
}

void ScriptExists(CommandContext& ctx) {
  ctx.reply.Array(ctx.argv.size() - 2);
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    const std::string sha = absl::AsciiStrToLower(ctx.argv[i]);
    ctx.reply.Integer(ctx.server.scripts().Get(sha) ? 1 : 0);
  }
}

void ScriptFlush(CommandContext& ctx) {
  const bool mode_ok = ctx.argv.size() == 2 ||
                       (ctx.argv.size() == 3 && (IsWord(ctx.argv[2], "async") ||
                                                 IsWord(ctx.argv[2], "sync")));
  if (!mode_ok) {
    return ctx.reply.Error("SCRIPT FLUSH only support SYNC|ASYNC option");
  }
  ctx.server.scripts().Flush();
  scripting::ForgetCompiled();
  ctx.reply.Ok();
}

void ScriptKill(CommandContext& ctx) {
  switch (ctx.server.scripts().RequestKill()) {
    case ScriptState::Kill::kNotBusy:
      return ctx.reply.Error("-NOTBUSY No scripts in execution right now.");
    case ScriptState::Kill::kUnkillable:
      return ctx.reply.Error(
          "-UNKILLABLE Sorry the script already executed write commands "
          "against the dataset. You can either wait the script termination "
          "or kill the server in a hard way using the SHUTDOWN NOSAVE "
          "command.");
    case ScriptState::Kill::kAsked:
      return ctx.reply.Ok();
  }
}

CommandSpec ScriptCommand() {
  CommandSpec c = CommandWithSubcommands("script", {"noscript"});
  AddSubcommand(c, {"load", 3, {"noscript", "stale"}}, ScriptLoad);
  AddSubcommand(c, {"exists", -3, {"noscript"}}, ScriptExists);
  AddSubcommand(c, {"flush", -2, {"noscript", "may_replicate"}}, ScriptFlush);
  AddSubcommand(c, {"kill", 2, {"noscript", "allow_busy"}}, ScriptKill);
  return c;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(script, table) {
  const std::vector<std::string> flags = {
      "noscript", "skip_monitor", "no_mandatory_keys", "stale", "movablekeys"};
  auto eval = [](bool by_sha, bool read_only) {
    return [by_sha, read_only](CommandContext& ctx) {
      EvalGeneric(ctx, by_sha, read_only);
    };
  };
  for (const char* name : {"eval", "evalsha", "eval_ro", "evalsha_ro"}) {
    const absl::string_view n(name);
    table->Add(name, -3,
               eval(absl::StartsWith(n, "evalsha"), absl::EndsWith(n, "_ro")),
               flags, 0, 0, 0, RunsOn::kWorker);
  }
  table->Add(ScriptCommand());
}

}  // namespace trackdb::resp
