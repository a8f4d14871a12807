#include "service/resp/dispatch/command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cluster/key_slot.h"
#include "model/clock.h"
#include "service/resp/dispatch/command_keys.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/format/disk_error.h"
#include "storage/format/wrong_type.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

constexpr size_t kMaxCursors = 100000;

// Redis refuses a protected command (DEBUG is the one trackdb has) unless
// enable-debug-command allows the client, after the arity check and before
// authentication. Returns the refusal, or "" if the call may go on.
std::string ProtectedRefusal(const ServerState& server,
                             const ClientState& client,
                             const CommandSpec& spec) {
  if (spec.name != "debug") return "";
  const std::string& enabled = server.config().server().enable_debug_command();
  const bool local = absl::StartsWith(client.addr, "127.") ||
                     absl::StartsWith(client.addr, "::1:") ||
                     absl::StartsWith(client.addr, "[::1]");
  if (enabled == "yes" || (enabled == "local" && local)) return "";
  return "DEBUG command not allowed. If the enable-debug-command option is "
         "set to \"local\", you can run it from a local connection, "
         "otherwise you need to set this option in the configuration file, "
         "and then restart the server.";
}

}  // namespace

ServerState::ServerState(storage::TrackStore* store,
                         const v1::TrackdbConfig& config,
                         replication::NodeRole* role,
                         std::shared_ptr<auth::UserTable> users,
                         const service::FenceWebhooks* webhooks,
                         std::shared_ptr<service::BackupJob> backups)
    : store_(store),
      config_(config),
      commands_(NewCommandTable()),
      users_(users != nullptr
                 ? std::move(users)
                 : std::make_shared<auth::UserTable>(config.server())),
      webhooks_(webhooks),
      start_ms_(NowMs()),
      role_(role),
      backups_(backups != nullptr
                   ? std::move(backups)
                   : std::make_shared<service::BackupJob>(store, config)) {
  if (config.server().has_resp_max_clients()) {
    settings_.maxclients = config.server().resp_max_clients();
  }
  settings_.timeout_s = config.server().resp_idle_timeout_s();
  settings_.max_output_bytes =
      static_cast<int64_t>(config.server().resp_max_output_bytes());
  if (config.server().has_resp_max_bulk_len()) {
    settings_.proto_max_bulk_len =
        static_cast<int64_t>(config.server().resp_max_bulk_len());
  }
}

bool ServerState::AuthRequired(const ClientState& client) const {
  return !client.authenticated && users_->auth_required();
}

void ServerState::PublishClient(const ClientState& c) {
  absl::MutexLock l(&mu_);
  clients_[c.id] = c;
}

void ServerState::RemoveClient(int64_t id) {
  pubsub_.RemoveClient(id);
  role_->replicas().Gone(id);
  absl::MutexLock l(&mu_);
  clients_.erase(id);
}

void ServerState::ResetCallStats() {
  absl::MutexLock l(&call_stats_mu_);
  call_stats_base_.clear();
  for (metrics::CallSnapshot& c : call_metrics_.Snapshot()) {
    std::string name = c.name;
    call_stats_base_.emplace(std::move(name), std::move(c));
  }
}

std::vector<metrics::CallSnapshot> ServerState::CallStatsSinceReset() const {
  std::vector<metrics::CallSnapshot> now = call_metrics_.Snapshot();
  absl::MutexLock l(&call_stats_mu_);
  for (metrics::CallSnapshot& c : now) {
    auto base = call_stats_base_.find(c.name);
    if (base == call_stats_base_.end()) continue;
    const metrics::CallSnapshot& b = base->second;
    c.calls -= std::min(c.calls, b.calls);
    c.errors -= std::min(c.errors, b.errors);
    c.rejected -= std::min(c.rejected, b.rejected);
    c.seconds = std::max(0.0, c.seconds - b.seconds);
    for (size_t i = 0; i < c.buckets.size(); ++i) {
      c.buckets[i] -= std::min(c.buckets[i], b.buckets[i]);
    }
  }
  return now;
}

int64_t ServerState::ClientCount() const {
  absl::MutexLock l(&mu_);
  return static_cast<int64_t>(clients_.size());
}

std::vector<ClientState> ServerState::Clients() const {
  absl::MutexLock l(&mu_);
  std::vector<ClientState> out;
  out.reserve(clients_.size());
  for (const auto& [id, c] : clients_) out.push_back(c);
  return out;
}

int64_t ServerState::SaveCursor(std::string resume_name) {
  absl::MutexLock l(&mu_);
  // Oldest cursors go first; a client resuming one gets a fresh scan from
  // the start, which SCAN's guarantees allow (elements may repeat).
  while (cursors_.size() >= kMaxCursors) cursors_.erase(cursors_.begin());
  const int64_t cursor = ++next_cursor_;
  cursors_[cursor] = std::move(resume_name);
  return cursor;
}

std::optional<std::string> ServerState::LoadCursor(int64_t cursor) {
  absl::MutexLock l(&mu_);
  auto it = cursors_.find(cursor);
  if (it == cursors_.end()) return std::nullopt;
  return it->second;
}

std::string ServerState::RandomKeyPosition(int db) const {
  absl::MutexLock l(&mu_);
  auto it = random_key_positions_.find(db);
  return it == random_key_positions_.end() ? std::string() : it->second;
}

void ServerState::SetRandomKeyPosition(int db, std::string position) {
  absl::MutexLock l(&mu_);
  random_key_positions_[db] = std::move(position);
}

std::string CommandContext::Name(absl::string_view key) const {
  return types::KeyName(client.db, key);
}

bool CommandContext::Check(const absl::Status& s) {
  if (s.ok()) return true;
  if (storage::IsDiskError(s)) {
    // As Redis answers writes while it cannot write its AOF or RDB file
    // ("-MISCONF Errors writing to the AOF file: ..."), with storage's
    // reason: a full disk or an I/O error.
    reply.Error(
        absl::StrCat("-MISCONF Errors writing to the data dir: ", s.message()));
    return false;
  }
  if (storage::IsWrongType(s)) {  // the store's one-type-per-name guarantee
    reply.Error(kWrongTypeError);
    return false;
  }
  if (storage::IsWriteStall(s)) {
    // Redis's -BUSY says the server cannot serve this now, try later.
    reply.Error(absl::StrCat("-BUSY ", s.message()));
    return false;
  }
  reply.Error(absl::StrCat("internal error: ", s.ToString()));
  return false;
}

void CommandTable::Add(CommandSpec spec) {
  std::string name = spec.name;
  CommandSpec& stored = commands_[name];
  stored = std::move(spec);
  by_name_[name] = &stored;
}

void CommandTable::Add(const char* name, int arity, CommandHandler handler,
                       std::vector<std::string> flags, int first_key,
                       int last_key, int key_step, RunsOn runs_on) {
  CommandSpec spec{name,      arity,    std::move(flags),
                   first_key, last_key, key_step};
  spec.runs_on = runs_on;
  spec.handler = std::move(handler);
  Add(std::move(spec));
}

namespace {

std::atomic<uint64_t> next_table_id{1};

// A thread's last answer of Find: a pipeline repeats its command, and a
// pipelined call is looked up three times (does it join the group, does it
// only read, dispatch). Constant-initialized and trivially destroyed, so
// that reaching it costs no per-thread initialization check.
struct LastFound {
  uint64_t table = 0;  // 0: none
  size_t size = 0;
  char name[32] = {};  // as asked, in its case
  const CommandSpec* spec = nullptr;
};
thread_local LastFound last_found;

}  // namespace

CommandTable::CommandTable() : id_(next_table_id.fetch_add(1)) {}

const CommandSpec* CommandTable::Find(absl::string_view name) const {
  char lower[sizeof(LastFound::name)];  // longer than the commands' names
  if (name.size() > sizeof(lower)) return nullptr;
  LastFound& last = last_found;
  if (last.table == id_ && last.size == name.size() &&
      std::memcmp(last.name, name.data(), name.size()) == 0) {
    return last.spec;
  }
  for (size_t i = 0; i < name.size(); ++i) {
    lower[i] = absl::ascii_tolower(static_cast<unsigned char>(name[i]));
  }
  auto it = by_name_.find(absl::string_view(lower, name.size()));
  if (it == by_name_.end()) return nullptr;
  // Add keeps a name's spec where it is: the pointer stays the answer.
  last.table = id_;
  last.size = name.size();
  std::memcpy(last.name, name.data(), name.size());
  last.spec = it->second;
  return it->second;
}

CommandSpec CommandWithSubcommands(const char* name,
                                   std::vector<std::string> flags) {
  CommandSpec command{name, -2, std::move(flags), 0, 0, 0};
  command.handler = [](CommandContext&) {};
  return command;
}

void AddSubcommand(CommandSpec& command, CommandSpec sub,
                   CommandHandler handler) {
  sub.handler = std::move(handler);
  std::string name = sub.name;
  command.subcommands[std::move(name)] = std::move(sub);
}

const CommandSpec* ResolveSubcommand(const CommandSpec& spec,
                                     const std::vector<std::string>& argv) {
  if (spec.subcommands.empty() || argv.size() < 2) return &spec;
  auto sub = spec.subcommands.find(absl::AsciiStrToLower(argv[1]));
  return sub == spec.subcommands.end() ? nullptr : &sub->second;
}

bool HasFlag(const CommandSpec& spec, absl::string_view flag) {
  return std::find(spec.flags.begin(), spec.flags.end(), flag) !=
         spec.flags.end();
}

bool CommandTable::RunsOnWorker(const std::vector<std::string>& argv) const {
  const CommandSpec* spec = Find(argv[0]);
  return spec != nullptr && RunsOnWorker(*spec, argv);
}

bool CommandTable::RunsOnWorker(const CommandSpec& spec,
                                const std::vector<std::string>& argv) {
  return spec.runs_on == RunsOn::kWorker &&
         !(spec.loop_when && spec.loop_when(argv));
}

void CommandTable::RunOnLoopWhen(
    const char* name,
    std::function<bool(const std::vector<std::string>&)> loop_when) {
  commands_.at(name).loop_when = std::move(loop_when);
}

const CommandSpec* CommandTable::GroupStartedBy(
    const std::vector<std::string>& argv) const {
  const CommandSpec* spec = Find(argv[0]);
  if (spec == nullptr || !spec->group || !spec->joins(argv, argv)) {
    return nullptr;
  }
  return spec;
}

void CommandTable::AddGroup(const char* name, JoinsGroup joins,
                            GroupHandler group, GroupsHandler groups) {
  CommandSpec& spec = commands_.at(name);
  spec.joins = std::move(joins);
  spec.group = std::move(group);
  spec.groups = groups;
}

namespace {

std::map<std::string, CommandFamilyRegistrar>& Families() {
  static auto* const families =
      new std::map<std::string, CommandFamilyRegistrar>();
  return *families;
}

}  // namespace

bool RegisterCommandFamily(const char* family, CommandFamilyRegistrar add) {
  Families()[family] = add;
  return true;
}

std::vector<std::string> CommandFamilyNames() {
  std::vector<std::string> names;
  for (const auto& [name, add] : Families()) names.push_back(name);
  return names;
}

std::unique_ptr<CommandTable> NewCommandTable() {
  auto table = std::make_unique<CommandTable>();
  for (const auto& [name, add] : Families()) add(table.get());
  return table;
}

namespace {

std::string ArityError(absl::string_view full_name) {
  return absl::StrCat("wrong number of arguments for '", full_name,
                      "' command");
}

}  // namespace

void ReplyArityError(CommandContext& ctx, absl::string_view full_name) {
  ctx.reply.Error(ArityError(full_name));
}

auth::Access AccessOf(const CommandSpec& spec) {
  auth::Access need = auth::Access::kRead;
  for (const std::string& flag : spec.flags) {
    if (flag == "admin") return auth::Access::kAdmin;
    if (flag == "write") need = auth::Access::kWrite;
  }
  return need;
}

bool MayRun(const ClientState& client, const CommandSpec& spec) {
  // Admins (every client when no users are configured) skip the flag scan.
  return client.role == v1::USER_ROLE_ADMIN ||
         auth::RoleAllows(client.role, AccessOf(spec));
}

namespace {

bool IsSubscriberCommand(absl::string_view name) {
  return name == "subscribe" || name == "unsubscribe" || name == "psubscribe" ||
         name == "punsubscribe" || name == "ssubscribe" ||
         name == "sunsubscribe" || name == "ping" || name == "quit" ||
         name == "reset";
}

// Redis's refusals of a write: on a replica (READONLY), and on a primary
// whose writes wait for replicas when too few are following
// (replication.sync_replicas, Redis's min-replicas-to-write, whose lag
// limit of 10 s it keeps).
bool Writes(const CommandSpec& spec) { return HasFlag(spec, "write"); }

std::string WriteRefusal(ServerState& server, const CommandSpec& spec) {
  if (!Writes(spec)) return "";
  if (storage::IsReplica(server.store())) {
    return "-READONLY You can't write against a read only replica.";
  }
  if (!server.role().sync_acks().CheckReplicas().ok()) {
    return "-NOREPLICAS Not enough good replicas to write.";
  }
  return "";
}

// In cluster mode a write runs holding the migration gate shared
// (cluster/cluster_state.h), and is held off (TRYAGAIN) when a migration's
// final catch-up covers one of its calls' slots.
class MigrationGate {
 public:
  MigrationGate(ServerState& server, const CommandSpec& spec,
                absl::Span<const std::vector<std::string>> calls) {
    if (server.cluster() == nullptr || !Writes(spec)) return;
    gate_ = &server.cluster()->migration_gate();
    gate_->ReaderLock();
    for (const std::vector<std::string>& argv : calls) {
      const auto keys = CommandKeys(spec, argv);
      if (keys && !keys->empty() &&
          server.cluster()->WritesHeldOff(cluster::KeySlot((*keys)[0]))) {
        held_off_ = true;
      }
    }
  }
  ~MigrationGate() {
    if (gate_ != nullptr) gate_->ReaderUnlock();
  }
  bool held_off() const { return held_off_; }

 private:
  absl::Mutex* gate_ = nullptr;
  bool held_off_ = false;
};

// A write's place in the store's history, for WAIT.
void NoteWrite(ServerState& server, ClientState& client,
               const CommandSpec& spec) {
  if (!Writes(spec)) return;
  client.last_write_seq = storage::LatestSequence(server.store());
}

// The spec that serves `argv` (its subcommand's, if it has them) and its
// full name ("config|get"). `*error` is Redis's error when the command or
// subcommand is unknown (the spec is then null) or the arity is wrong;
// empty when the call checks out.
const CommandSpec* Resolve(ServerState& server,
                           const std::vector<std::string>& argv,
                           std::string* full_name, std::string* error) {
  const CommandSpec* spec = server.commands().Find(argv[0]);
  if (spec == nullptr) {
    std::string args;
    for (size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
      absl::StrAppend(&args, "'",
                      absl::string_view(argv[i]).substr(0, 128 - args.size()),
                      "' ");
    }
    *error = absl::StrCat("unknown command '",
                          absl::string_view(argv[0]).substr(0, 128),
                          "', with args beginning with: ", args);
    return nullptr;
  }
  *full_name = spec->name;
  if (const CommandSpec* sub = ResolveSubcommand(*spec, argv); sub == nullptr) {
    *error = absl::StrCat("unknown subcommand '",
                          absl::string_view(argv[1]).substr(0, 128), "'. Try ",
                          absl::AsciiStrToUpper(argv[0]), " HELP.");
    return nullptr;
  } else if (sub != spec) {
    spec = sub;
    *full_name = absl::StrCat(*full_name, "|", spec->name);
  }
  const int argc = static_cast<int>(argv.size());
  if ((spec->arity > 0 && argc != spec->arity) ||
      (spec->arity < 0 && argc < -spec->arity)) {
    *error = ArityError(*full_name);
  }
  return spec;
}

// Why a known call may not run, in Redis's order: a protected command, no
// AUTH, no permission, a RESP2 subscriber, another node's slot (then
// `*redirect` is set), a refused write; empty when it may.
std::string Refusal(ServerState& server, ClientState& client,
                    const CommandSpec& spec, const std::string& full_name,
                    const std::vector<std::string>& argv, bool* redirect) {
  if (std::string refusal = ProtectedRefusal(server, client, spec);
      !refusal.empty()) {
    return refusal;
  }
  if (!spec.allowed_before_auth && server.AuthRequired(client)) {
    return "-NOAUTH Authentication required.";
  }
  if (!MayRun(client, spec)) {
    return absl::StrCat("-NOPERM this user has no permissions to run the '",
                        full_name, "' command");
  }
  // Redis's RESP2 subscriber speaks only pub/sub (RESP3 has no limit).
  if (client.subscriptions > 0 && client.protocol == 2 &&
      !IsSubscriberCommand(spec.name)) {
    return absl::StrCat(
        "Can't execute '", full_name,
        "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
        "allowed in this context");
  }
  // Redis's no-multi commands are refused, not queued, and abort EXEC.
  if (client.multi && HasFlag(spec, "no-multi")) {
    return "Command not allowed inside a transaction";
  }
  if (server.cluster() != nullptr) {
    std::string refusal =
        spec.name == "exec" && client.multi
            ? TransactionClusterRefusal(*server.cluster(), server.commands(),
                                        client.multi->calls())
            : ClusterRefusal(*server.cluster(), spec, argv);
    if (!refusal.empty()) {
      *redirect = true;
      return refusal;
    }
  }
  return WriteRefusal(server, spec);
}

// The commands that run at once inside MULTI rather than being queued, as
// in Redis (QUIT is answered by the connection).
bool RunsInsideMulti(const CommandSpec& spec) {
  return spec.name == "exec" || spec.name == "discard" ||
         spec.name == "multi" || spec.name == "watch" || spec.name == "quit";
}

// What Redis runs while a script is busy (its allow-busy commands).
// The transaction commands among them, so that a pipelined MULTI is never
// refused while the calls queued after it run once the script is done.
bool AllowedWhileBusy(const std::string& full_name) {
  static const auto* const kAllowed = new absl::flat_hash_set<std::string>{
      "auth",        "hello",         "quit",           "reset",
      "multi",       "discard",       "watch",          "unwatch",
      "script|kill", "function|kill", "function|stats", "shutdown"};
  return kAllowed->contains(full_name);
}

// Whether a call runs holding the exec gate shared: those that read or
// write keys (exec_gate.h).
bool TakesExecGate(const CommandSpec& spec) {
  return HasFlag(spec, "write") || HasFlag(spec, "readonly");
}

// Replies the error that refuses a call of `spec` (null for an unknown
// command). Inside MULTI a refused call makes EXEC abort, as in Redis; a
// refused EXEC itself, inside MULTI or not, ends any transaction and
// forgets the watched keys, saying why as EXECABORT (Redis's
// execCommandAbort), or, sent to another node (`redirect`), as the
// redirection alone, as Redis Cluster answers.
void ReplyRefusal(ClientState& client, const CommandSpec* spec,
                  std::string error, bool redirect, Reply& reply) {
  if (spec != nullptr && spec->name == "exec") {
    client.multi.reset();
    client.watched.clear();
    if (redirect) return reply.Error(error);
    if (error[0] == '-') error.erase(0, 1);
    return reply.Error(
        absl::StrCat("-EXECABORT Transaction discarded because of: ", error));
  }
  if (client.multi) client.multi_refused = true;
  reply.Error(error);
}

// The arguments the slow log keeps of a call: passwords replaced by
// "(redacted)", as Redis redacts AUTH's, HELLO's AUTH, MIGRATE's AUTH and
// AUTH2 and CONFIG SET requirepass's.
std::vector<std::string> LoggedArguments(const std::string& full_name,
                                         std::vector<std::string> argv) {
  auto redact = [&](size_t from, size_t count) {
    for (size_t i = from; i < from + count && i < argv.size(); ++i) {
      argv[i] = "(redacted)";
    }
  };
  if (full_name == "auth") redact(1, argv.size());
  for (size_t i = 1; i < argv.size(); ++i) {
    if (full_name == "hello" && EqualsIgnoreCase(argv[i], "auth")) {
      redact(i + 1, 2);
    } else if (full_name == "migrate" && EqualsIgnoreCase(argv[i], "auth")) {
      redact(i + 1, 1);
    } else if (full_name == "migrate" && EqualsIgnoreCase(argv[i], "auth2")) {
      redact(i + 1, 2);
    } else if (full_name == "config|set" &&
               EqualsIgnoreCase(argv[i], "requirepass") && i % 2 == 0) {
      redact(i + 1, 1);
    }
  }
  return argv;
}

// Adds the call to the slow log if it ran for longer than the log's
// threshold since `start`, as Redis logs every command but those flagged
// skip_slowlog (EXEC: its calls are logged one by one).
void LogIfSlow(ServerState& server, const ClientState& client,
               const CommandSpec& spec, const std::string& full_name,
               const std::vector<std::string>& argv, int64_t nanos) {
  const int64_t us = nanos / 1000;
  if (!server.slow_log().Slow(us) || HasFlag(spec, "skip_slowlog")) return;
  server.slow_log().Add(NowMs() / 1000, us, LoggedArguments(full_name, argv),
                        client.addr, client.name);
}

// Set while a pipelined group runs (ServeTimedGroup): its calls are not
// timed one by one.
thread_local bool serving_group = false;
// Calls Dispatch recorded while a group ran: a group that serves its calls
// through Dispatch (typed commands) has them recorded one by one, each under
// its own name; one that does not (GEOADD's) is recorded as a whole.
thread_local size_t calls_recorded_in_group = 0;

int64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now() - start)
      .count();
}

// Records `calls` calls of `name` (a group of one command: GEOADD's) that
// took `nanos` together, each its share, `failed` of them answering an
// error.
void RecordCalls(ServerState& server, absl::string_view name, size_t calls,
                 uint64_t failed, int64_t nanos) {
  const int64_t each = nanos / static_cast<int64_t>(calls);
  for (size_t i = 0; i < calls; ++i) {
    server.call_metrics().Record(name, each, i < failed);
  }
}

// Serves a pipelined group (its calls run as one transaction, one commit),
// timed as a whole: the slow log takes a slow group as its first call, the
// metrics each call at its share of the group's time.
void ServeTimedGroup(ServerState& server, ClientState& client,
                     const CommandSpec& spec,
                     absl::Span<const std::vector<std::string>> calls,
                     Reply& reply) {
  const auto start = std::chrono::steady_clock::now();
  const uint64_t errors = reply.errors();
  serving_group = true;
  calls_recorded_in_group = 0;
  spec.group(server, client, calls, reply);
  serving_group = false;
  server.error_stats().Note(reply.TakeErrorKinds());
  const int64_t nanos = NanosSince(start);
  if (calls_recorded_in_group == 0) {
    RecordCalls(server, spec.name, calls.size(), reply.errors() - errors,
                nanos);
  }
  LogIfSlow(server, client, spec, spec.name, calls.front(), nanos);
}

// After each command, as Redis's resetClient: a SKIP lasts one command.
// (Its errors were counted already: CLIENT REPLY hides them, not undoes.)
// Not inside EXEC, whose reply is one (its calls' replies are its
// elements), nor for a command that waits to reply (a blocking pop, WAIT):
// the mode holds for the reply it sends when it does.
void EndReplyMode(ClientState& client, Reply& reply, size_t reply_at) {
  if (client.in_exec || client.blocked || client.pending_wait) return;
  if (client.reply_off || client.reply_skip) reply.Truncate(reply_at);
  client.reply_skip = client.reply_skip_next;
  client.reply_skip_next = false;
}

void DispatchOne(ServerState& server, ClientState& client,
                 const std::vector<std::string>& argv, Reply& reply) {
  CommandContext ctx{server, client, argv, reply};
  std::string full_name, error;
  const CommandSpec* spec = Resolve(server, argv, &full_name, &error);
  bool redirect = false;
  if (error.empty()) {
    error = Refusal(server, client, *spec, full_name, argv, &redirect);
  }
  if (!error.empty()) {
    // A refused call of a known command counts, as an error (NOAUTH,
    // READONLY, MOVED, a wrong arity...).
    if (spec != nullptr) {
      server.call_metrics().Record(full_name, 0, true, /*rejected=*/true);
    }
    return ReplyRefusal(client, spec, std::move(error), redirect, reply);
  }
  // A script past its time: BUSY, as Redis answers, but to what may run
  // meanwhile (script_state.h); also to a call that waits for the script.
  const bool may_wait = client.in_script || AllowedWhileBusy(full_name);
  auto busy = [&server, may_wait] {
    return !may_wait && server.scripts().Busy(NowMs());
  };
  if (busy()) {
    server.call_metrics().Record(full_name, 0, true, /*rejected=*/true);
    return ReplyRefusal(client, spec, kBusyScriptError, false, reply);
  }
  if (client.multi && !RunsInsideMulti(*spec)) {
    client.multi->Add(argv);
    return reply.Status("QUEUED");
  }
  client.last_command = full_name;
  server.commands_processed.fetch_add(1, std::memory_order_relaxed);
  {
    ExecGate::Shared shared(server.exec_gate(), TakesExecGate(*spec), busy);
    if (shared.gave_up()) {
      server.call_metrics().Record(full_name, 0, true, /*rejected=*/true);
      return reply.Error(kBusyScriptError);
    }
    MigrationGate gate(server, *spec, {&argv, 1});
    if (gate.held_off()) {
      server.call_metrics().Record(full_name, 0, true);
      return reply.Error(kTryAgain);
    }
    ctx.spec = spec;
    // Failed: its own reply is an error (EXEC's holds its queued calls'
    // replies, which are counted as they run).
    const size_t reply_at = reply.size();
    const auto start = std::chrono::steady_clock::now();
    spec->handler(ctx);
    const int64_t nanos = NanosSince(start);
    // Inside a group, a call's own time (the group's commit follows).
    server.call_metrics().Record(full_name, nanos, reply.ErrorAt(reply_at));
    if (serving_group) {
      ++calls_recorded_in_group;
    } else {
      LogIfSlow(server, client, *spec, full_name, argv, nanos);
    }
  }
  NoteWrite(server, client, *spec);
}

}  // namespace

void Dispatch(ServerState& server, ClientState& client,
              const std::vector<std::string>& argv, Reply& reply) {
  const size_t reply_at = reply.size();
  DispatchOne(server, client, argv, reply);
  server.error_stats().Note(reply.TakeErrorKinds());
  EndReplyMode(client, reply, reply_at);
}

// Whether a run must go call by call: one call; inside MULTI (each call
// is queued on its own); while CLIENT REPLY holds replies back; when a
// call is not this node's (it gets its own refusal, in its place); or
// when writes are refused.
bool ServedCallByCall(const CommandSpec& spec, ServerState& server,
                      const ClientState& client,
                      absl::Span<const std::vector<std::string>> calls) {
  if (calls.size() == 1 || client.multi || client.reply_off ||
      client.reply_skip || client.reply_skip_next ||
      server.scripts().running()) {
    return true;
  }
  if (server.cluster() != nullptr) {
    for (const std::vector<std::string>& call : calls) {
      if (!ClusterRefusal(*server.cluster(), spec, call).empty()) return true;
    }
  }
  return !WriteRefusal(server, spec).empty();
}

void DispatchGroup(const CommandSpec& spec, ServerState& server,
                   ClientState& client,
                   absl::Span<const std::vector<std::string>> calls,
                   Reply& reply) {
  if (ServedCallByCall(spec, server, client, calls)) {
    for (const std::vector<std::string>& each : calls) {
      Dispatch(server, client, each, reply);
    }
    return;
  }
  // joins() accepted each call's name, arity and options, which is all
  // Dispatch would check before running it.
  // The exec gate before the migration gate, as Dispatch takes them.
  {
    ExecGate::Shared shared(server.exec_gate(), TakesExecGate(spec), [&server] {
      return server.scripts().Busy(NowMs());
    });
    if (shared.gave_up()) {  // a script started meanwhile and ran long
      for (size_t i = 0; i < calls.size(); ++i) {
        reply.Error(kBusyScriptError);
      }
      return;
    }
    MigrationGate gate(server, spec, calls);
    if (!gate.held_off()) {
      client.last_command = spec.name;
      server.commands_processed.fetch_add(calls.size(),
                                          std::memory_order_relaxed);
      ServeTimedGroup(server, client, spec, calls, reply);
    }
    if (!gate.held_off()) return NoteWrite(server, client, spec);
  }
  for (const std::vector<std::string>& each : calls) {
    Dispatch(server, client, each, reply);
  }
}

namespace {

// Whether `g` may be served with other clients' runs by `handler`: where
// DispatchGroup would serve it whole (no MULTI, no refusal), outside
// cluster mode (whose slot checks and migration gate go run by run).
bool ServedTogetherBy(ServerState& server, const PendingGroup& g,
                      GroupsHandler handler) {
  const ClientState& c = *g.client;
  return handler != nullptr && g.spec->groups == handler && !c.multi &&
         !c.reply_off && !c.reply_skip && !c.reply_skip_next &&
         server.cluster() == nullptr && !server.scripts().running() &&
         WriteRefusal(server, *g.spec).empty();
}

// DispatchGroup's whole-run path for several clients' runs at once, timed
// as one: the slow log takes a slow batch as its first call.
void ServeTogether(ServerState& server, absl::Span<const PendingGroup> groups) {
  const CommandSpec& first = *groups.front().spec;
  ExecGate::Shared shared(server.exec_gate(), TakesExecGate(first),
                          [&server] { return server.scripts().Busy(NowMs()); });
  if (shared.gave_up()) {  // a script started meanwhile and ran long
    for (const PendingGroup& g : groups) {
      for (size_t i = 0; i < g.calls.size(); ++i) {
        g.reply->Error(kBusyScriptError);
      }
    }
    return;
  }
  size_t calls = 0;
  for (const PendingGroup& g : groups) {
    g.client->last_command = g.spec->name;
    calls += g.calls.size();
  }
  server.commands_processed.fetch_add(calls, std::memory_order_relaxed);
  std::vector<uint64_t> errors;
  errors.reserve(groups.size());
  for (const PendingGroup& g : groups) errors.push_back(g.reply->errors());
  const auto start = std::chrono::steady_clock::now();
  serving_group = true;
  calls_recorded_in_group = 0;
  first.groups(server, groups);
  serving_group = false;
  const int64_t nanos = NanosSince(start);
  uint64_t failed = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    failed += groups[i].reply->errors() - errors[i];
    server.error_stats().Note(groups[i].reply->TakeErrorKinds());
  }
  if (calls_recorded_in_group == 0) {
    RecordCalls(server, first.name, calls, failed, nanos);
  }
  LogIfSlow(server, *groups.front().client, first, first.name,
            groups.front().calls.front(), nanos);
  for (const PendingGroup& g : groups) NoteWrite(server, *g.client, *g.spec);
}

}  // namespace

void DispatchGroups(ServerState& server,
                    absl::Span<const PendingGroup> groups) {
  size_t i = 0;
  while (i < groups.size()) {
    const GroupsHandler handler = groups[i].spec->groups;
    size_t end = i;
    size_t calls = 0;
    while (end < groups.size() &&
           calls + groups[end].calls.size() <= kMaxCallsServedTogether &&
           ServedTogetherBy(server, groups[end], handler)) {
      calls += groups[end].calls.size();
      ++end;
    }
    if (end - i >= 2) {
      ServeTogether(server, groups.subspan(i, end - i));
      i = end;
      continue;
    }
    const PendingGroup& g = groups[i];
    DispatchGroup(*g.spec, server, *g.client, g.calls, *g.reply);
    ++i;
  }
}

}  // namespace trackdb::resp
