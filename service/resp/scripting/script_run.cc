#include "service/resp/scripting/script_run.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cluster/cluster_state.h"
#include "cluster/key_slot.h"
#include "model/clock.h"
#include "service/resp/dispatch/command_keys.h"
#include "service/resp/dispatch/exec_gate.h"
#include "service/resp/scripting/lua_values.h"
#include "service/resp/scripting/lua_vm.h"

namespace trackdb::resp::scripting {

void RegisterRedisTable(lua_State* L);

namespace {

constexpr char kKilled[] = "Script killed by user with SCRIPT KILL...";

// The script running now (under the VM's lock), for redis.call.
struct RunContext {
  ServerState* server = nullptr;
  ClientState* client = nullptr;  // the script's own
  bool read_only = false;
  // In a cluster: the slot its keys are in so far (-1: none yet).
  int slot = -1;
  bool cross_slot_ok = false;
};
RunContext* current_run = nullptr;

// A Lua argument of redis.call as Redis 7.0 turns it into a command
// argument: a string as it is, a number as "%.17g" prints it (60 is "60",
// 0.1 is "0.10000000000000001").
bool ArgumentAt(lua_State* L, int index, std::string* out) {
  const int type = lua_type(L, index);
  if (type == LUA_TNUMBER) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", lua_tonumber(L, index));
    *out = buf;
    return true;
  }
  if (type != LUA_TSTRING) return false;
  size_t len = 0;
  const char* s = lua_tolstring(L, index, &len);
  out->assign(s, len);
  return true;
}

// Commands Redis 7.0 refuses from scripts (its "noscript" flag) that the
// table may not flag so: the connection's and the server's own, by the
// command's name (a container's subcommands with it).
bool NotForScripts(const std::string& name) {
  static const auto* const kNames = new absl::flat_hash_set<std::string>{
      "hello", "auth",   "client", "quit",      "save",    "bgsave",
      "debug", "config", "acl",    "role",      "monitor", "shutdown",
      "wait",  "multi",  "exec",   "replicaof", "slaveof", "latency"};
  return kNames->contains(name);
}

// Redis's scriptVerifyClusterState: a call's keys must be this node's,
// and in one slot with the script's other keys.
std::string ClusterCallRefusal(RunContext& run, const CommandSpec& spec,
                               const std::vector<std::string>& argv) {
  const cluster::ClusterState* cluster = run.server->cluster();
  if (cluster == nullptr) return "";
  const std::string refusal = ClusterRefusal(*cluster, spec, argv);
  if (absl::StartsWith(refusal, "-CLUSTERDOWN")) {
    return "Script attempted to execute a command while the cluster is down";
  }
  if (!refusal.empty() && !absl::StartsWith(refusal, "-TRYAGAIN")) {
    return "Script attempted to access a non local key in a cluster node";
  }
  const std::optional<std::vector<absl::string_view>> keys =
      CommandKeys(spec, argv);
  if (!keys || keys->empty() || run.cross_slot_ok) return "";
  const int slot = cluster::KeySlot((*keys)[0]);
  if (run.slot == -1) run.slot = slot;
  if (run.slot != slot) {
    return "Script attempted to access keys that do not hash to the same "
           "slot";
  }
  return "";
}

// What Redis's scriptCall refuses before running a call; empty if none.
// `*writes` says whether the call's command writes.
std::string CallRefusal(RunContext& run, const std::vector<std::string>& argv,
                        bool* writes) {
  const CommandSpec* spec = run.server->commands().Find(argv[0]);
  if (spec == nullptr) return "Unknown Redis command called from script";
  const int argc = static_cast<int>(argv.size());
  if ((spec->arity > 0 && argc != spec->arity) ||
      (spec->arity < 0 && argc < -spec->arity)) {
    return "Wrong number of args calling Redis command from script";
  }
  const bool refused = NotForScripts(spec->name);
  const CommandSpec* sub = ResolveSubcommand(*spec, argv);
  if (sub != nullptr) spec = sub;
  if (refused || HasFlag(*spec, "noscript")) {
    return "This Redis command is not allowed from script";
  }
  *writes = HasFlag(*spec, "write");
  if (run.read_only &&
      (HasFlag(*spec, "write") || HasFlag(*spec, "may_replicate"))) {
    return "Write commands are not allowed from read-only scripts.";
  }
  return ClusterCallRefusal(run, *spec, argv);
}

// redis.call (raise) and redis.pcall: the number of results pushed, or -1
// when an error table is on top for the caller to raise. Raises nothing
// itself, so that every C++ object here is gone when Lua unwinds.
int GenericCall(lua_State* L, bool raise) {
  const int argc = lua_gettop(L);
  if (argc == 0) {
    PushErrorTable(L,
                   "Please specify at least one argument for this redis lib "
                   "call");
    return raise ? -1 : 1;
  }
  std::vector<std::string> argv(argc);
  for (int i = 0; i < argc; ++i) {
    if (!ArgumentAt(L, i + 1, &argv[i])) {
      PushErrorTable(L,
                     "Lua redis lib command arguments must be strings or "
                     "integers");
      return raise ? -1 : 1;
    }
  }
  RunContext& run = *current_run;
  bool writes = false;
  if (std::string refusal = CallRefusal(run, argv, &writes); !refusal.empty()) {
    PushErrorTable(L, refusal);
    return raise ? -1 : 1;
  }
  // SCRIPT KILL may no longer stop it; once a kill is asked for, no write
  // starts.
  if (writes && !run.server->scripts().NoteWrite()) {
    PushErrorTable(L, kKilled);
    return raise ? -1 : 1;
  }
  std::string out;
  Reply reply(&out, run.client->protocol);
  Dispatch(*run.server, *run.client, argv, reply);
  const bool error = PushReply(L, out);
  return error && raise ? -1 : 1;
}

int LuaCall(lua_State* L) {
  const int n = GenericCall(L, true);
  return n < 0 ? lua_error(L) : n;
}

int LuaPCall(lua_State* L) { return GenericCall(L, false); }

int LuaSha1Hex(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushErrorTable(L, "wrong number of arguments");
    return lua_error(L);
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  const std::string hex =
      Sha1Hex(s != nullptr ? absl::string_view(s, len) : "");
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}

// redis.error_reply and redis.status_reply.
int ReplyTableOf(lua_State* L, bool error) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushErrorTable(L, "wrong number or type of arguments");
    return 1;
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  if (!error) {
    lua_newtable(L);
    lua_pushlstring(L, s, len);
    lua_setfield(L, -2, "ok");
    return 1;
  }
  const absl::string_view msg(s, len);
  PushErrorTable(L, msg.empty() || msg[0] != '-' ? absl::StrCat("-", msg)
                                                 : std::string(msg));
  return 1;
}
int LuaErrorReply(lua_State* L) { return ReplyTableOf(L, true); }
int LuaStatusReply(lua_State* L) { return ReplyTableOf(L, false); }

// redis.log(level, message...): to trackd's log, as Redis's server log.
int LuaLog(lua_State* L) {
  const int argc = lua_gettop(L);
  const char* problem = nullptr;
  if (argc < 2) {
    problem = "redis.log() requires two arguments or more.";
  } else if (!lua_isnumber(L, 1)) {
    problem = "First argument must be a number (log level).";
  } else if (lua_tonumber(L, 1) < 0 || lua_tonumber(L, 1) > 3) {
    problem = "Invalid debug level.";
  }
  if (problem != nullptr) {
    PushErrorTable(L, problem);
    return lua_error(L);
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 2; i <= argc; ++i) {
    if (i > 2) luaL_addchar(&b, ' ');
    size_t len = 0;
    const char* s = lua_tolstring(L, i, &len);
    if (s != nullptr) luaL_addlstring(&b, s, len);
  }
  luaL_pushresult(&b);
  std::fprintf(stderr, "trackd: script: %s\n", lua_tostring(L, -1));
  return 0;
}

int LuaSetResp(lua_State* L) {
  const char* problem = nullptr;
  if (lua_gettop(L) != 1) {
    problem = "redis.setresp() requires one argument.";
  } else if (lua_tonumber(L, 1) != 2 && lua_tonumber(L, 1) != 3) {
    problem = "RESP version must be 2 or 3.";
  }
  if (problem != nullptr) {
    PushErrorTable(L, problem);
    return lua_error(L);
  }
  current_run->client->protocol = static_cast<int>(lua_tonumber(L, 1));
  return 0;
}

int LuaSetRepl(lua_State* L) {
  const char* problem = nullptr;
  if (lua_gettop(L) != 1) {
    problem = "redis.set_repl() requires one argument.";
  } else if (lua_tonumber(L, 1) < 0 || lua_tonumber(L, 1) > 3) {
    problem =
        "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or "
        "REPL_NONE.";
  }
  if (problem != nullptr) {
    PushErrorTable(L, problem);
    return lua_error(L);
  }
  return 0;  // replicated by effects, always: every write, whatever flags
}

int LuaTrue(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}
int LuaFalse(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}
int LuaNothing(lua_State*) { return 0; }

// Stops a script SCRIPT KILL asked to stop, and then at every line, so
// that a pcall around its loop does not keep it going.
void KillHook(lua_State* L, lua_Debug*) {
  if (current_run == nullptr || !current_run->server->scripts().killing()) {
    return;
  }
  lua_sethook(L, KillHook, LUA_MASKLINE, 0);
  PushErrorTable(L, kKilled);
  lua_error(L);
}

// The reply to a script that raised an error: the error's message, and
// where it was raised, as Redis's luaCallFunction writes it.
void ReplyRunError(lua_State* L, const std::string& sha, Reply& reply) {
  if (!lua_istable(L, -1)) {
    const char* msg =
        lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    return reply.Error(absl::StrCat("Error running script ", sha, ", ",
                                    absl::string_view(msg).substr(0, 100)));
  }
  const ErrorInfo info = ReadErrorTable(L, -1);
  std::string text = absl::StrCat("-", info.message);
  if (info.line != 0 && !info.source.empty()) {
    absl::StrAppend(&text, " script: ", sha, ", on ", info.source, ":",
                    info.line, ".");
  }
  reply.Error(text);
}

ClientState ScriptClient(const ClientState& caller) {
  ClientState c;
  c.id = caller.id;
  c.addr = caller.addr;
  c.laddr = caller.laddr;
  c.db = caller.db;
  c.authenticated = true;
  c.user = caller.user;
  c.role = caller.role;
  c.name = caller.name;
  c.in_exec = true;  // blocking commands answer at once
  c.in_script = true;
  return c;
}

}  // namespace

void RegisterRedisTable(lua_State* L) {
  lua_newtable(L);
  const luaL_Reg functions[] = {
      {"call", LuaCall},
      {"pcall", LuaPCall},
      {"sha1hex", LuaSha1Hex},
      {"error_reply", LuaErrorReply},
      {"status_reply", LuaStatusReply},
      {"log", LuaLog},
      {"setresp", LuaSetResp},
      {"set_repl", LuaSetRepl},
      {"replicate_commands", LuaTrue},
      {"breakpoint", LuaFalse},
      {"debug", LuaNothing},
  };
  for (const luaL_Reg& f : functions) {
    lua_pushcfunction(L, f.func);
    lua_setfield(L, -2, f.name);
  }
  const std::pair<const char*, int> numbers[] = {
      {"LOG_DEBUG", 0},  {"LOG_VERBOSE", 1},
      {"LOG_NOTICE", 2}, {"LOG_WARNING", 3},
      {"REPL_NONE", 0},  {"REPL_AOF", 1},
      {"REPL_SLAVE", 2}, {"REPL_REPLICA", 2},
      {"REPL_ALL", 3},   {"REDIS_VERSION_NUM", 0x07000f},
  };
  for (const auto& [name, value] : numbers) {
    lua_pushnumber(L, value);
    lua_setfield(L, -2, name);
  }
  lua_pushstring(L, "7.0.15");
  lua_setfield(L, -2, "REDIS_VERSION");
  lua_setglobal(L, "redis");
}

std::string Sha1Hex(absl::string_view body) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(body.data()), body.size(),
       digest);
  std::string hex;
  for (unsigned char byte : digest) {
    absl::StrAppend(&hex, absl::Hex(byte, absl::kZeroPad2));
  }
  return hex;
}

std::optional<std::string> ParseShebang(absl::string_view body, Shebang* out) {
  *out = Shebang();
  if (!absl::StartsWith(body, "#!")) return std::nullopt;
  const size_t end = body.find('\n');
  if (end == absl::string_view::npos) return "Invalid script shebang";
  out->present = true;
  out->code_at = end;
  std::vector<absl::string_view> parts =
      absl::StrSplit(body.substr(0, end), ' ', absl::SkipEmpty());
  if (parts.empty()) return "Invalid engine in script shebang";
  if (parts[0] != "#!lua") {
    return absl::StrCat("Unexpected engine in script shebang: ", parts[0]);
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    if (!absl::StartsWith(parts[i], "flags=")) {
      return absl::StrCat("Unknown lua shebang option: ", parts[i]);
    }
    for (absl::string_view flag :
         absl::StrSplit(parts[i].substr(6), ',', absl::SkipEmpty())) {
      if (flag == "no-writes") {
        out->no_writes = true;
      } else if (flag == "allow-cross-slot-keys") {
        out->allow_cross_slot_keys = true;
      } else if (flag != "allow-oom" && flag != "allow-stale" &&
                 flag != "no-cluster" && flag != "allow-cross-slot-keys") {
        return absl::StrCat("Unexpected flag in script shebang: ", flag);
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> CompileScript(const std::string& sha,
                                         absl::string_view body) {
  Shebang shebang;
  if (std::optional<std::string> bad = ParseShebang(body, &shebang)) {
    return bad;
  }
  LuaVm& vm = LuaVm::Get();
  absl::MutexLock l(&vm.mu());
  std::optional<std::string> error =
      vm.Compile(sha, body.substr(shebang.code_at));
  if (!error) return std::nullopt;
  return absl::StrCat("Error compiling script (new function): ", *error);
}

void ForgetCompiled() {
  LuaVm& vm = LuaVm::Get();
  absl::MutexLock l(&vm.mu());
  vm.ForgetAll();
}

bool RunScript(CommandContext& ctx, const std::string& sha,
               absl::string_view body, absl::Span<const std::string> keys,
               absl::Span<const std::string> args, bool read_only) {
  Shebang shebang;
  if (std::optional<std::string> bad = ParseShebang(body, &shebang)) {
    ctx.reply.Error(*bad);
    return false;
  }
  if (read_only && shebang.present && !shebang.no_writes) {
    ctx.reply.Error(
        "Can not execute a script with write flag using *_ro command.");
    return true;  // it compiles: EVAL may run it
  }
  ExecGate::Exclusive gate(ctx.server.exec_gate());
  LuaVm& vm = LuaVm::Get();
  absl::MutexLock l(&vm.mu());
  if (std::optional<std::string> error =
          vm.Compile(sha, body.substr(shebang.code_at))) {
    ctx.reply.Error(
        absl::StrCat("Error compiling script (new function): ", *error));
    return false;
  }
  lua_State* L = vm.state();
  const int base = lua_gettop(L);
  vm.SetGlobalArray("KEYS", keys.data(), keys.size());
  vm.SetGlobalArray("ARGV", args.data(), args.size());
  ClientState client = ScriptClient(ctx.client);
  RunContext run{&ctx.server, &client, read_only || shebang.no_writes};
  run.cross_slot_ok = shebang.allow_cross_slot_keys;
  if (ctx.server.cluster() != nullptr && !keys.empty()) {
    run.slot = cluster::KeySlot(keys.front());
  }
  current_run = &run;
  ScriptState& state = ctx.server.scripts();
  state.Started(NowMs());
  lua_sethook(L, KillHook, LUA_MASKCOUNT, 100000);
  const int handler = vm.PushCall(sha);
  const int status = lua_pcall(L, 0, 1, handler);
  lua_sethook(L, nullptr, 0, 0);
  state.Ended();
  current_run = nullptr;
  // WAIT after EVAL waits for the script's writes.
  ctx.client.last_write_seq =
      std::max(ctx.client.last_write_seq, client.last_write_seq);
  if (status != 0) {
    ReplyRunError(L, sha, ctx.reply);
  } else {
    WriteReply(L, ctx.reply, client.protocol);
  }
  lua_settop(L, base);
  return true;
}

}  // namespace trackdb::resp::scripting
