// Connection commands: PING, ECHO, HELLO, AUTH, QUIT, SELECT, CLIENT, ACL.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "model/clock.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

constexpr char kRedisVersion[] = "7.0.15";

void Ping(CommandContext& ctx) {
  if (ctx.argv.size() > 2) return ReplyArityError(ctx, "ping");
  if (ctx.client.subscriptions > 0 && ctx.client.protocol == 2) {
    // Redis's subscriber gets a pong it can tell from a message.
    static const std::string kPong = "pong", kEmpty;
    return ctx.reply.Encoded(
        PushFrame(2, {&kPong, ctx.argv.size() == 2 ? &ctx.argv[1] : &kEmpty}));
  }
  if (ctx.argv.size() == 2) return ctx.reply.Bulk(ctx.argv[1]);
  ctx.reply.Status("PONG");
}

void Echo(CommandContext& ctx) { ctx.reply.Bulk(ctx.argv[1]); }

constexpr char kWrongPass[] =
    "-WRONGPASS invalid username-password pair or user is disabled.";

// Logs the client in as `user` if `password` is its password (users.h);
// false if not. Without any authentication configured, "default" needs no
// password, as Redis's nopass default user.
bool LogIn(CommandContext& ctx, const std::string& user,
           absl::string_view password) {
  std::optional<v1::UserRole> role;
  if (user == "default" && !ctx.server.users().auth_required()) {
    role = v1::USER_ROLE_ADMIN;
  } else {
    role = ctx.server.users().Authenticate(user, password);
  }
  if (!role) return false;
  ctx.client.authenticated = true;
  ctx.client.user = user;
  ctx.client.role = *role;
  return true;
}

void Auth(CommandContext& ctx) {
  const auto& argv = ctx.argv;
  if (argv.size() > 3) return ctx.reply.Error(kSyntaxError);
  const bool with_user = argv.size() == 3;
  if (!with_user && !ctx.server.users().auth_required()) {
    return ctx.reply.Error(
        "AUTH <password> called without any password configured for the "
        "default user. Are you sure your configuration is correct?");
  }
  if (!LogIn(ctx, with_user ? argv[1] : "default", argv.back())) {
    return ctx.reply.Error(kWrongPass);
  }
  ctx.reply.Ok();
}

bool ValidClientName(absl::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

void Hello(CommandContext& ctx) {
  const auto& argv = ctx.argv;
  int64_t version = ctx.client.protocol;
  size_t next = 1;
  if (argv.size() >= 2) {
    if (!types::ParseInt64(argv[1], &version)) {
      return ctx.reply.Error(
          "Protocol version is not an integer or out of range");
    }
    next = 2;
    if (version < 2 || version > 3) {
      return ctx.reply.Error("-NOPROTO unsupported protocol version");
    }
  }
  std::optional<std::pair<std::string, std::string>> auth;
  std::optional<std::string> name;
  for (size_t i = next; i < argv.size(); ++i) {
    const size_t more = argv.size() - i - 1;
    if (EqualsIgnoreCase(argv[i], "AUTH") && more >= 2) {
      auth = {argv[i + 1], argv[i + 2]};
      i += 2;
    } else if (EqualsIgnoreCase(argv[i], "SETNAME") && more >= 1) {
      // Checked here, before authentication, as Redis does.
      if (!ValidClientName(argv[i + 1])) {
        return ctx.reply.Error(
            "Client names cannot contain spaces, newlines or special "
            "characters.");
      }
      name = argv[i + 1];
      ++i;
    } else {
      return ctx.reply.Error(
          absl::StrCat("Syntax error in HELLO option '", argv[i], "'"));
    }
  }
  if (auth && !LogIn(ctx, auth->first, auth->second)) {
    return ctx.reply.Error(kWrongPass);
  }
  if (ctx.server.AuthRequired(ctx.client)) {
    return ctx.reply.Error(
        "-NOAUTH HELLO must be called with the client already authenticated, "
        "otherwise the HELLO AUTH <user> <pass> option can be used to "
        "authenticate the client and select the RESP protocol version at the "
        "same time");
  }
  if (name) ctx.client.name = *name;
  ctx.client.protocol = static_cast<int>(version);
  ctx.reply.set_protocol(ctx.client.protocol);
  Reply& r = ctx.reply;
  r.Map(7);
  r.Bulk("server");
  r.Bulk("redis");
  r.Bulk("version");
  r.Bulk(kRedisVersion);
  r.Bulk("proto");
  r.Integer(version);
  r.Bulk("id");
  r.Integer(ctx.client.id);
  r.Bulk("mode");
  r.Bulk("standalone");
  r.Bulk("role");
  r.Bulk("master");
  r.Bulk("modules");
  r.Array(0);
}

void Quit(CommandContext& ctx) {
  ctx.client.close_after_reply = true;
  ctx.reply.Ok();
}

void Select(CommandContext& ctx) {
  int64_t db = 0;
  if (!types::ParseInt64(ctx.argv[1], &db))
    return ctx.reply.Error(kNotIntegerError);
  if (ctx.server.cluster() != nullptr && db != 0) {
    return ctx.reply.Error("SELECT is not allowed in cluster mode");
  }
  if (db < 0 || db >= types::kDatabases) {
    return ctx.reply.Error("DB index is out of range");
  }
  ctx.client.db = static_cast<int>(db);
  ctx.reply.Ok();
}

// CLIENT LIST's flags, in Redis's order: P a subscriber, x in MULTI, b
// waiting in a blocking pop; N none.
std::string ClientFlags(const ClientState& c) {
  std::string flags;
  if (c.subscriptions > 0) flags += 'P';
  if (c.multi) flags += 'x';
  if (c.blocked) flags += 'b';
  return flags.empty() ? "N" : flags;
}

std::string ClientLine(const ClientState& c, int64_t now_ms) {
  return absl::StrCat(
      "id=", c.id, " addr=", c.addr, " laddr=", c.laddr, " fd=-1 name=", c.name,
      " age=", (now_ms - c.created_ms) / 1000,
      " idle=", (now_ms - c.last_command_ms) / 1000, " flags=", ClientFlags(c),
      " db=", c.db, " sub=", c.subscriptions - c.pattern_subscriptions,
      " psub=", c.pattern_subscriptions, " ssub=0 multi=",
      c.multi ? static_cast<int64_t>(c.multi->size()) : int64_t{-1},
      " qbuf=0 qbuf-free=0 argv-mem=0 "
      "multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=",
      c.last_command, " user=", c.user, " redir=-1 resp=", c.protocol, "\n");
}

// Redis's client types: a subscriber is "pubsub", every other trackdb
// client a normal one (trackdb's replicas pull over ordinary connections).
bool IsClientType(const std::string& lower) {
  return lower == "normal" || lower == "master" || lower == "replica" ||
         lower == "slave" || lower == "pubsub";
}
std::string ClientType(const ClientState& c) {
  return c.subscriptions > 0 ? "pubsub" : "normal";
}

// Every client's snapshot, the caller's own fresh.
std::vector<ClientState> AllClients(CommandContext& ctx) {
  std::vector<ClientState> all = ctx.server.Clients();
  for (ClientState& c : all) {
    if (c.id == ctx.client.id) c = ctx.client;  // fresher than its copy
  }
  return all;
}

// The clients CLIENT LIST [TYPE type | ID id [id ...]] asks for, in
// Redis's order of checks; false after replying with an error.
bool ListedClients(CommandContext& ctx, std::vector<ClientState>* out) {
  const auto& argv = ctx.argv;
  std::vector<ClientState> all = AllClients(ctx);
  if (argv.size() == 2) {
    *out = std::move(all);
  } else if (argv.size() == 4 && EqualsIgnoreCase(argv[2], "TYPE")) {
    const std::string type = absl::AsciiStrToLower(argv[3]);
    if (!IsClientType(type)) {
      ctx.reply.Error(absl::StrCat("Unknown client type '", argv[3], "'"));
      return false;
    }
    for (ClientState& c : all) {
      if (ClientType(c) == type) out->push_back(std::move(c));
    }
  } else if (argv.size() > 3 && EqualsIgnoreCase(argv[2], "ID")) {
    for (size_t i = 3; i < argv.size(); ++i) {
      int64_t id = 0;
      if (!types::ParseInt64(argv[i], &id)) {
        ctx.reply.Error("Invalid client ID");
        return false;
      }
      for (const ClientState& c : all) {
        if (c.id == id) out->push_back(c);
      }
    }
  } else {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  return true;
}

void ClientList(CommandContext& ctx) {
  std::vector<ClientState> clients;
  if (!ListedClients(ctx, &clients)) return;
  const int64_t now = NowMs();
  std::string text;
  for (const ClientState& c : clients)
    absl::StrAppend(&text, ClientLine(c, now));
  ctx.reply.Verbatim(text);
}

// CLIENT KILL's filters: the old form's address, or the new form's
// options.
struct KillFilter {
  std::optional<std::string> addr, laddr, type, user;
  int64_t id = 0;
  bool skipme = true;
};

// CLIENT KILL's TYPE value; false after replying an error.
bool ParseKillType(CommandContext& ctx, const std::string& value,
                   KillFilter* f) {
  f->type = absl::AsciiStrToLower(value);
  if (!IsClientType(*f->type)) {
    ctx.reply.Error(absl::StrCat("Unknown client type '", value, "'"));
    return false;
  }
  if (*f->type == "slave") f->type = "replica";
  return true;
}

// One of CLIENT KILL's new-form filters, `option` `value`; false after
// replying an error.
bool ParseKillOption(CommandContext& ctx, const std::string& option,
                     const std::string& value, KillFilter* f) {
  if (EqualsIgnoreCase(option, "id")) {
    if (!types::ParseInt64(value, &f->id) || f->id < 1) {
      ctx.reply.Error("client-id should be greater than 0");
      return false;
    }
  } else if (EqualsIgnoreCase(option, "type")) {
    return ParseKillType(ctx, value, f);
  } else if (EqualsIgnoreCase(option, "addr")) {
    f->addr = value;
  } else if (EqualsIgnoreCase(option, "laddr")) {
    f->laddr = value;
  } else if (EqualsIgnoreCase(option, "user")) {
    if (!ctx.server.users().Has(value)) {
      ctx.reply.Error(absl::StrCat("No such user '", value, "'"));
      return false;
    }
    f->user = value;
  } else if (EqualsIgnoreCase(option, "skipme") &&
             (EqualsIgnoreCase(value, "yes") ||
              EqualsIgnoreCase(value, "no"))) {
    f->skipme = EqualsIgnoreCase(value, "yes");
  } else {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  return true;
}

// Reads CLIENT KILL's arguments as Redis does; false after replying an
// error.
bool ParseKillFilter(CommandContext& ctx, KillFilter* f) {
  const std::vector<std::string>& argv = ctx.argv;
  if (argv.size() == 3) {
    f->addr = argv[2];
    f->skipme = false;  // the old form may kill the caller
    return true;
  }
  for (size_t i = 2; i < argv.size(); i += 2) {
    if (i + 1 >= argv.size()) {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
    if (!ParseKillOption(ctx, argv[i], argv[i + 1], f)) return false;
  }
  return true;
}

bool Matches(const KillFilter& f, const ClientState& c) {
  return (!f.addr || c.addr == *f.addr) && (!f.laddr || c.laddr == *f.laddr) &&
         (!f.type || ClientType(c) == *f.type) && (f.id == 0 || c.id == f.id) &&
         (!f.user || c.user == *f.user);
}

// CLIENT KILL addr, or CLIENT KILL <option> <value> ...: closes the
// matching connections (the caller's own after this reply).
void ClientKill(CommandContext& ctx) {
  KillFilter filter;
  if (!ParseKillFilter(ctx, &filter)) return;
  int64_t killed = 0;
  bool kill_self = false;
  for (const ClientState& c : AllClients(ctx)) {
    if (!Matches(filter, c)) continue;
    if (c.id == ctx.client.id) {
      if (filter.skipme) continue;
      kill_self = true;
    } else if (std::shared_ptr<ConnectionControl> control = c.control.lock()) {
      control->Kill();
    } else {
      continue;  // gone meanwhile
    }
    ++killed;
  }
  if (ctx.argv.size() == 3) {
    killed == 0 ? ctx.reply.Error("No such client") : ctx.reply.Ok();
  } else {
    ctx.reply.Integer(killed);
  }
  if (kill_self) ctx.client.close_after_reply = true;
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: ends the wait of a blocking pop.
void ClientUnblock(CommandContext& ctx) {
  if (ctx.argv.size() > 4) return ReplySubcommandSyntaxError(ctx);
  bool error = false;
  if (ctx.argv.size() == 4) {
    if (EqualsIgnoreCase(ctx.argv[3], "error")) {
      error = true;
    } else if (!EqualsIgnoreCase(ctx.argv[3], "timeout")) {
      return ctx.reply.Error(
          "CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
    }
  }
  int64_t id = 0;
  if (!types::ParseInt64(ctx.argv[2], &id))
    return ctx.reply.Error(kNotIntegerError);
  for (const ClientState& c : ctx.server.Clients()) {
    if (c.id != id || !c.blocked) continue;
    if (std::shared_ptr<ConnectionControl> control = c.control.lock()) {
      control->Unblock(error);
      return ctx.reply.Integer(1);
    }
  }
  ctx.reply.Integer(0);
}

CommandSpec ClientCommand() {
  CommandSpec client = CommandWithSubcommands("client", {"sentinel"});
  auto sub = [&](const char* name, int arity, CommandHandler h) {
    AddSubcommand(client, {name, arity}, std::move(h));
  };
  sub("setname", 3, [](CommandContext& ctx) {
    if (!ValidClientName(ctx.argv[2])) {
      return ctx.reply.Error(
          "Client names cannot contain spaces, newlines or special "
          "characters.");
    }
    ctx.client.name = ctx.argv[2];
    ctx.reply.Ok();
  });
  sub("getname", 2, [](CommandContext& ctx) {
    if (ctx.client.name.empty()) return ctx.reply.Null();
    ctx.reply.Bulk(ctx.client.name);
  });
  sub("id", 2, [](CommandContext& ctx) { ctx.reply.Integer(ctx.client.id); });
  sub("info", 2, [](CommandContext& ctx) {
    ctx.reply.Verbatim(ClientLine(ctx.client, NowMs()));
  });
  sub("list", -2, ClientList);
  // ON replies OK; OFF and SKIP reply nothing (Dispatch drops replies
  // while they hold, command.h's ClientState).
  sub("reply", 3, [](CommandContext& ctx) {
    const std::string& mode = ctx.argv[2];
    if (EqualsIgnoreCase(mode, "on")) {
      ctx.client.reply_off = ctx.client.reply_skip = false;
      ctx.reply.Ok();
    } else if (EqualsIgnoreCase(mode, "off")) {
      ctx.client.reply_off = true;
    } else if (EqualsIgnoreCase(mode, "skip")) {
      if (!ctx.client.reply_off) ctx.client.reply_skip_next = true;
    } else {
      ctx.reply.Error(kSyntaxError);
    }
  });
  const std::vector<std::string> admin = {"admin", "noscript", "loading",
                                          "stale"};
  AddSubcommand(client, {"kill", -3, admin}, ClientKill);
  AddSubcommand(client, {"unblock", -3, admin}, ClientUnblock);
  sub("help", 2, [](CommandContext& ctx) {
    const char* lines[] = {
        "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "LIST",
        "    Return information about client connections.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "HELP",
        "    Print this help."};
    ctx.reply.StatusLines(lines);
  });
  return client;
}

// ACL: only WHOAMI; users come from the config (server.users), not from
// ACL SETUSER.
CommandSpec AclCommand() {
  CommandSpec acl = CommandWithSubcommands("acl", {"sentinel"});
  AddSubcommand(acl,
                {"whoami", 2, {"noscript", "loading", "stale", "sentinel"}},
                [](CommandContext& ctx) { ctx.reply.Bulk(ctx.client.user); });
  return acl;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(connection, table) {
  auto add = [&](const char* name, int arity, CommandHandler h,
                 std::vector<std::string> flags, bool before_auth = false) {
    CommandSpec s{name, arity, std::move(flags)};
    s.handler = std::move(h);
    s.allowed_before_auth = before_auth;
    table->Add(std::move(s));
  };
  add("ping", -1, Ping, {"fast", "sentinel"});
  add("echo", 2, Echo, {"fast"});
  add("auth", -2, Auth, {"noscript", "loading", "stale", "fast", "no_auth"},
      true);
  add("hello", -1, Hello, {"noscript", "loading", "stale", "fast", "no_auth"},
      true);
  add("quit", -1, Quit, {"noscript", "loading", "stale", "fast", "no_auth"},
      true);
  add("select", 2, Select, {"loading", "stale", "fast"});
  table->Add(ClientCommand());
  table->Add(AclCommand());
}

}  // namespace trackdb::resp
