#ifndef TRACKDB_SERVICE_RESP_DISPATCH_COMMAND_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_COMMAND_H_

// The Redis command table and what a command runs with: the server's shared
// state, the calling client's state, its arguments and its reply. Commands
// are plain functions grouped by family (connection_commands.cc,
// server_commands.cc, key_commands.cc, string_commands.cc, geo_commands.cc,
// geo_search_command.cc, hash_commands.cc, set_commands.cc,
// list_commands.cc, zset_commands.cc, zset_write_commands.cc,
// zset_algebra_commands.cc, fence_commands.cc, pubsub_commands.cc, ...).
// Each family's
// file registers its commands, with everything the server needs to know about
// each (arity, flags, key positions, and whether it runs on the worker pool),
// in one TRACKDB_RESP_COMMAND_FAMILY block; the table is the only list of them.
//
// Dispatch checks what Redis checks before running a command, in Redis's
// order and with its words: unknown command, arity, authentication, the
// user's permission (-NOPERM).

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "cluster/cluster_state.h"
#include "service/auth/users.h"
#include "service/events/fence_webhook.h"
#include "service/jobs/backup_job.h"
#include "service/metrics/call_metrics.h"
#include "service/replication/node_role.h"
#include "service/resp/dispatch/error_stats.h"
#include "service/resp/dispatch/exec_gate.h"
#include "service/resp/dispatch/pop_waiters.h"
#include "service/resp/dispatch/pubsub.h"
#include "service/resp/dispatch/script_state.h"
#include "service/resp/dispatch/shutdown_gate.h"
#include "service/resp/dispatch/slow_log.h"
#include "service/resp/protocol/reply.h"
#include "storage/replication/replication.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::resp {

// One connection's state. Only its connection's thread touches it, except
// through ServerState's client registry (CLIENT LIST), which reads a copy.
// A MULTI transaction's queued calls. A copy (the snapshot of a client
// that CLIENT LIST reads, ServerState::PublishClient) carries only how many
// there are: a long transaction is not copied at every publish.
class QueuedCalls {
 public:
  QueuedCalls() = default;
  QueuedCalls(const QueuedCalls& other) : size_(other.size_) {}
  QueuedCalls& operator=(const QueuedCalls& other) {
    calls_.clear();
    size_ = other.size_;
    return *this;
  }
  QueuedCalls(QueuedCalls&&) = default;
  QueuedCalls& operator=(QueuedCalls&&) = default;

  void Add(std::vector<std::string> argv) {
    calls_.push_back(std::move(argv));
    ++size_;
  }
  size_t size() const { return size_; }
  // The calls queued so far, in order (none in a copy).
  const std::vector<std::vector<std::string>>& calls() const { return calls_; }
  // The calls, in order (none in a copy); the queue is left empty.
  std::vector<std::vector<std::string>> Take() {
    size_ = 0;
    return std::move(calls_);
  }

 private:
  std::vector<std::vector<std::string>> calls_;
  size_t size_ = 0;
};

// What another client's command may do to a connection (CLIENT KILL,
// CLIENT UNBLOCK), from any thread: the connection acts on its own loop.
class ConnectionControl {
 public:
  virtual ~ConnectionControl() = default;
  // Closes the connection; a command it is running finishes unreplied.
  virtual void Kill() = 0;
  // Ends a blocking pop's wait (blocking_pop.h) as its timeout would, or
  // with Redis's UNBLOCKED error; nothing if it is not waiting.
  virtual void Unblock(bool error) = 0;
};

// A blocking pop waiting for a push (blocking_pop.h): its place in line,
// its deadline, and the push generation read before its last try. A copy
// (the snapshot CLIENT LIST reads) says only that the client is blocked:
// the place in line stays with the connection.
struct BlockedPop {
  BlockedPop(std::shared_ptr<PopWaiters::Ticket> ticket, absl::Time deadline,
             uint64_t seen)
      : ticket(std::move(ticket)), deadline(deadline), seen(seen) {}
  BlockedPop(const BlockedPop& other)
      : deadline(other.deadline), seen(other.seen) {}
  BlockedPop& operator=(const BlockedPop& other) {
    ticket.reset();
    deadline = other.deadline;
    seen = other.seen;
    return *this;
  }
  BlockedPop(BlockedPop&&) = default;
  BlockedPop& operator=(BlockedPop&&) = default;

  std::shared_ptr<PopWaiters::Ticket> ticket;
  absl::Time deadline;
  uint64_t seen = 0;
};

struct ClientState {
  int64_t id = 0;
  std::string addr;   // peer ip:port
  std::string laddr;  // local ip:port
  int db = 0;
  int protocol = 2;
  bool authenticated = false;
  // Who the client is (ACL WHOAMI): "default", an admin, until AUTH.
  std::string user = "default";
  v1::UserRole role = v1::USER_ROLE_ADMIN;
  std::string name;
  int64_t created_ms = 0;
  int64_t last_command_ms = 0;
  std::string last_command = "NULL";
  bool close_after_reply = false;  // QUIT, protocol errors
  // CLIENT REPLY: OFF sends no reply; SKIP none to the next command (its
  // own flag turns into reply_skip once CLIENT REPLY SKIP is done), as
  // Redis's CLIENT_REPLY_OFF, _SKIP and _SKIP_NEXT.
  bool reply_off = false;
  bool reply_skip = false;
  bool reply_skip_next = false;
  // Pub/sub: where messages go (the connection; null: nowhere), and how
  // many channels and patterns it is subscribed to (pubsub.h).
  std::weak_ptr<PushTarget> push;
  int subscriptions = 0;
  int pattern_subscriptions = 0;  // of `subscriptions`, the patterns
  // The connection, for other clients' CLIENT KILL and CLIENT UNBLOCK.
  std::weak_ptr<ConnectionControl> control;
  // The store's sequence after this client's last write: what WAIT and
  // synchronous acknowledgement wait for replicas to have.
  uint64_t last_write_seq = 0;
  // A replica's full sync in progress on this connection (REPL.SNAPSHOT).
  std::shared_ptr<storage::SnapshotReader> snapshot;
  // WAIT that has to wait: the connection replies (with how many replicas
  // have `sequence`) once `replicas` have it or after `timeout_ms` (0: no
  // limit), without holding a thread meanwhile.
  struct PendingWait {
    int replicas = 0;
    uint64_t sequence = 0;
    int64_t timeout_ms = 0;
  };
  std::optional<PendingWait> pending_wait;
  // MULTI ... EXEC (transaction_commands.cc): the calls queued since MULTI
  // (nullopt: not in a transaction), whether one was refused (EXEC then
  // aborts), and whether EXEC is running them.
  std::optional<QueuedCalls> multi;
  bool multi_refused = false;
  bool in_exec = false;
  // The client a script's redis.call runs as (scripting/): never answered
  // BUSY by its own script.
  bool in_script = false;
  // WATCHed keys: each storage name and a hash of what it held at WATCH
  // (transaction_commands.cc); EXEC fails if one holds something else.
  std::vector<std::pair<std::string, size_t>> watched;
  // A blocking pop that found nothing and waits (blocking_pop.h): set by
  // the command, it makes the connection wait for a push holding no
  // thread; the connection then runs the call again with it moved to
  // `woken`, so that the retry keeps its place in line and its deadline.
  std::optional<BlockedPop> blocked;
  std::optional<BlockedPop> woken;
};

// Settings CONFIG GET reports and CONFIG SET may change, with their
// current values; guarded by ServerState::mu.
// (requirepass lives in the UserTable, which both doors share.)
struct LiveSettings {
  int64_t maxclients = 10000;
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  int64_t timeout_s = 0;         // Redis's timeout: idle seconds; 0 never
  int64_t max_output_bytes = 0;  // unsent reply bytes; 0 no limit
};

class CommandTable;

// Shared by every connection.
class ServerState {
 public:
  // `role` (this node's replicas, link and migration) outlives the state.
  // `users` may be shared with the gRPC door; null makes this state's own
  // from config.server. `webhooks` (null: none run) outlives the state.
  // `backups` may be shared with the gRPC door; null makes this state's own
  // from config.
  ServerState(storage::TrackStore* store, const v1::TrackdbConfig& config,
              replication::NodeRole* role,
              std::shared_ptr<auth::UserTable> users = nullptr,
              const service::FenceWebhooks* webhooks = nullptr,
              std::shared_ptr<service::BackupJob> backups = nullptr);

  storage::TrackStore& store() { return *store_; }
  const v1::TrackdbConfig& config() const { return config_; }
  const CommandTable& commands() const { return *commands_; }
  PubSub& pubsub() { return pubsub_; }
  // Wakes the blocking pops (BLPOP, BZPOPMIN, ...) when a push commits.
  PopWaiters& pop_waiters() { return pop_waiters_; }
  ExecGate& exec_gate() { return exec_gate_; }
  // EVAL's script cache and the script running now (script_state.h).
  ScriptState& scripts() { return scripts_; }
  const ScriptState& scripts() const { return scripts_; }
  ShutdownGate& shutdown_gate() { return shutdown_gate_; }
  // BGSAVE's and SAVE's backups into storage.backup_dir.
  service::BackupJob& backups() { return *backups_; }
  SlowLog& slow_log() { return slow_log_; }
  const SlowLog& slow_log() const { return slow_log_; }
  // Error replies by kind (INFO errorstats).
  ErrorStats& error_stats() { return error_stats_; }
  // INFO commandstats and latencystats count from the last CONFIG
  // RESETSTAT, as Redis's; the metrics port's counters never go back.
  void ResetCallStats();
  std::vector<metrics::CallSnapshot> CallStatsSinceReset() const;
  // Every command's calls, errors and latency (the metrics port).
  metrics::CallMetrics& call_metrics() { return call_metrics_; }
  const metrics::CallMetrics& call_metrics() const { return call_metrics_; }
  const service::FenceWebhooks* webhooks() const { return webhooks_; }
  const auth::UserTable& users() const { return *users_; }
  auth::UserTable& users() { return *users_; }
  // Whether `client` must AUTH before running commands: requirepass is set
  // or server.users names anyone.
  bool AuthRequired(const ClientState& client) const;

  LiveSettings settings() const {
    absl::MutexLock l(&mu_);
    return settings_;
  }
  void UpdateSettings(const std::function<void(LiveSettings*)>& change) {
    absl::MutexLock l(&mu_);
    change(&settings_);
  }

  // Connected clients: a snapshot per client, refreshed by its connection.
  void PublishClient(const ClientState& c);
  void RemoveClient(int64_t id);
  std::vector<ClientState> Clients() const;
  int64_t ClientCount() const;
  int64_t NextClientId() { return next_client_id_.fetch_add(1) + 1; }

  // SCAN cursors: Redis's cursor is an opaque integer; trackdb's position
  // is a key, so each live cursor maps to the name SCAN resumes at.
  int64_t SaveCursor(std::string resume_name);
  std::optional<std::string> LoadCursor(int64_t cursor);
  // Where RANDOMKEY's walk of database `db` goes on, as SCAN's positions
  // are kept (key_commands.cc); empty for the start.
  std::string RandomKeyPosition(int db) const;
  void SetRandomKeyPosition(int db, std::string position);

  // Replication (replication_commands.cc): the replicas that follow this
  // node, its link to a primary, slot migration.
  replication::NodeRole& role() const { return *role_; }

  int64_t start_ms() const { return start_ms_; }
  // This node's place in its cluster; null unless server.cluster_enabled.
  cluster::ClusterState* cluster() const { return cluster_.get(); }
  void set_cluster(std::unique_ptr<cluster::ClusterState> cluster) {
    cluster_ = std::move(cluster);
  }
  int port = 0;  // the bound port, for INFO
  std::atomic<int64_t> commands_processed{0};
  std::atomic<int64_t> connections_received{0};
  std::atomic<int64_t> rejected_connections{0};
  std::atomic<int64_t> expired_keys{0};

 private:
  storage::TrackStore* store_;
  const v1::TrackdbConfig config_;
  std::unique_ptr<CommandTable> commands_;
  const std::shared_ptr<auth::UserTable> users_;
  const service::FenceWebhooks* const webhooks_;
  const int64_t start_ms_;
  PubSub pubsub_;
  PopWaiters pop_waiters_;
  ExecGate exec_gate_;
  ScriptState scripts_;
  ShutdownGate shutdown_gate_;
  SlowLog slow_log_;
  ErrorStats error_stats_;
  mutable absl::Mutex call_stats_mu_;
  absl::flat_hash_map<std::string, metrics::CallSnapshot> call_stats_base_
      ABSL_GUARDED_BY(call_stats_mu_);
  metrics::CallMetrics call_metrics_;
  std::unique_ptr<cluster::ClusterState> cluster_;
  std::atomic<int64_t> next_client_id_{0};
  replication::NodeRole* const role_;
  // Destroyed before the members above (a backup in the background ends
  // first).
  std::shared_ptr<service::BackupJob> backups_;

  mutable absl::Mutex mu_;
  LiveSettings settings_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, ClientState> clients_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::string> cursors_ ABSL_GUARDED_BY(mu_);
  std::map<int, std::string> random_key_positions_ ABSL_GUARDED_BY(mu_);
  int64_t next_cursor_ ABSL_GUARDED_BY(mu_) = 0;
};

struct CommandSpec;

struct CommandContext {
  ServerState& server;
  ClientState& client;
  const std::vector<std::string>& argv;
  Reply& reply;
  // The spec Dispatch resolved for argv (a subcommand's, if any); null
  // where a handler builds a context of its own (GEOADD's group).
  const CommandSpec* spec = nullptr;

  storage::TrackStore& store() { return server.store(); }
  // The storage name of a key in the client's database.
  std::string Name(absl::string_view key) const;
  // Replies with an internal error for a failed storage call; true if it
  // was OK.
  bool Check(const absl::Status& s);
};

using CommandHandler = std::function<void(CommandContext&)>;

// Group commit: a run of pipelined calls of one command that the command
// can serve with one storage write. `joins(first, next)` says whether `next`
// may join the run that `first` starts (false for `first` itself: it does
// not start a run); `group` serves the run, replying to each call in order,
// exactly as if each had run alone, one after the other.
using JoinsGroup = std::function<bool(const std::vector<std::string>& first,
                                      const std::vector<std::string>& next)>;
using GroupHandler = std::function<void(
    ServerState& server, ClientState& client,
    absl::Span<const std::vector<std::string>> calls, Reply& reply)>;

// One client's pipelined run (or single call) of a grouping command,
// waiting with other clients' on one key (key_lanes.h).
struct PendingGroup {
  const CommandSpec* spec = nullptr;  // the run's first call's
  ClientState* client = nullptr;
  absl::Span<const std::vector<std::string>> calls;
  Reply* reply = nullptr;
};
// Serves several clients' runs as the group handler serves one client's:
// one storage write for all, each call replied to in its own client's
// reply exactly as if the runs had been served one after the other, in
// order. Runs served by one handler may be served together.
using GroupsHandler = void (*)(ServerState& server,
                               absl::Span<const PendingGroup> groups);

// Where the server runs a command. Point commands run on their connection's
// event loop, as in Redis; commands whose work grows with the data (scans,
// GEO searches, range reads, copies, flushes) or that wait (DEBUG SLEEP) run
// on the worker pool, so that the loop's other connections go on being
// served (resp_server.h).
enum class RunsOn { kLoop, kWorker };

struct CommandSpec {
  std::string name;  // lower case
  // Redis's arity: n > 0 exactly n arguments (the name included); n < 0 at
  // least -n.
  int arity = 0;
  std::vector<std::string> flags;  // COMMAND INFO's flags, e.g. "write"
  int first_key = 0, last_key = 0, key_step = 0;
  bool allowed_before_auth = false;
  RunsOn runs_on = RunsOn::kLoop;  // a subcommand runs where its command does
  // Optional, for a kWorker command: the calls cheap enough to run on the
  // loop after all (a search of a small area), sparing them two thread
  // hand-offs.
  std::function<bool(const std::vector<std::string>& argv)> loop_when;
  CommandHandler handler;
  // Optional: how pipelined calls run as one group (JoinsGroup above).
  JoinsGroup joins;
  GroupHandler group;
  // Optional, with `group`: how runs of several clients are served as one
  // (GroupsHandler above).
  GroupsHandler groups = nullptr;
  // Subcommands (CONFIG GET, CLIENT LIST, ...), by lower-case name.
  std::map<std::string, CommandSpec> subcommands;
};

// A command whose calls name a subcommand (CLIENT LIST, OBJECT ENCODING):
// Dispatch runs the subcommand's spec (ResolveSubcommand), never this
// one's handler. Its arity is Redis's -2; it has no keys of its own.
CommandSpec CommandWithSubcommands(const char* name,
                                   std::vector<std::string> flags = {});
// Adds `sub` (its arity counts the command's name, as Redis's does) to
// `command`, run by `handler`.
void AddSubcommand(CommandSpec& command, CommandSpec sub,
                   CommandHandler handler);

// The spec that serves the call `argv` of the command `spec`: the
// subcommand argv[1] names when `spec` has subcommands (nullptr when it
// names none of them), else `spec` itself.
const CommandSpec* ResolveSubcommand(const CommandSpec& spec,
                                     const std::vector<std::string>& argv);

// Whether `spec` carries COMMAND INFO's flag `flag` ("write", "readonly",
// "movablekeys", ...).
bool HasFlag(const CommandSpec& spec, absl::string_view flag);

class CommandTable {
 public:
  CommandTable();
  // Not copyable: the name index points into commands_.
  CommandTable(const CommandTable&) = delete;
  CommandTable& operator=(const CommandTable&) = delete;

  void Add(CommandSpec spec);
  // A command without subcommands. COMMAND INFO reports its keys as argv
  // positions first_key..last_key (-1: the last argument) every key_step;
  // 0, 0, 0 for a command without keys. The defaults: one key, argv[1],
  // run on the event loop.
  void Add(const char* name, int arity, CommandHandler handler,
           std::vector<std::string> flags, int first_key = 1, int last_key = 1,
           int key_step = 1, RunsOn runs_on = RunsOn::kLoop);
  const CommandSpec* Find(absl::string_view name) const;  // any case
  // Whether the call `argv` (its command in any case) runs on the worker
  // pool; false for an unknown command, which Dispatch answers on the loop.
  bool RunsOnWorker(const std::vector<std::string>& argv) const;
  // The same for the call `argv` of `spec`, its command.
  static bool RunsOnWorker(const CommandSpec& spec,
                           const std::vector<std::string>& argv);
  // Makes the registered kWorker command `name` run calls that
  // `loop_when` accepts on the loop.
  void RunOnLoopWhen(
      const char* name,
      std::function<bool(const std::vector<std::string>&)> loop_when);
  // The command of `argv` if it serves pipelined runs as a group and
  // `argv` may start one; else nullptr.
  const CommandSpec* GroupStartedBy(const std::vector<std::string>& argv) const;
  // Makes the registered command `name` serve runs as a group.
  void AddGroup(const char* name, JoinsGroup joins, GroupHandler group,
                GroupsHandler groups = nullptr);
  const std::map<std::string, CommandSpec, std::less<>>& all() const {
    return commands_;
  }

 private:
  // By lower-case name, in order (COMMAND lists them so).
  std::map<std::string, CommandSpec, std::less<>> commands_;
  // The same specs by lower-case name for Find: a hash lookup, where the
  // ordered map took eight string compares, several times per pipelined
  // call. The map's nodes never move, so the pointers stay valid.
  absl::flat_hash_map<std::string, const CommandSpec*> by_name_;
  // Unique per table over the process's life, so that Find's per-thread
  // memory of its last answer never answers for another table.
  const uint64_t id_;
};

// A family's registration: adds its commands to a table.
using CommandFamilyRegistrar = void (*)(CommandTable* table);

// Records a family for every table NewCommandTable builds; called by
// TRACKDB_RESP_COMMAND_FAMILY before main. Returns true.
bool RegisterCommandFamily(const char* family, CommandFamilyRegistrar add);

// The names of the registered families, sorted.
std::vector<std::string> CommandFamilyNames();

// A table holding every registered family's commands.
std::unique_ptr<CommandTable> NewCommandTable();

// Registers a command family: in the family's .cc file, inside namespace
// trackdb::resp,
//
//   TRACKDB_RESP_COMMAND_FAMILY(zset, table) {
//     table->Add("zcard", 2, ZCard, {"readonly", "fast"});
//     table->Add("zrange", -4, ZRange, {"readonly"}, 1, 1, 1,
//                RunsOn::kWorker);
//   }
//
// The block runs once for each table built. The registration happens
// during static initialization, so the library holding the families must
// be linked whole (alwayslink in service/resp/BUILD).
#define TRACKDB_RESP_COMMAND_FAMILY(family, table)                       \
  static void AddCommandsOf_##family(CommandTable* table);               \
  [[maybe_unused]] static const bool kCommandFamilyRegistered_##family = \
      RegisterCommandFamily(#family, &AddCommandsOf_##family);           \
  static void AddCommandsOf_##family(CommandTable* table)

// What running `spec` needs, from its COMMAND INFO flags as Redis's ACL
// categories: "admin" -> kAdmin, "write" -> kWrite, else kRead.
auth::Access AccessOf(const CommandSpec& spec);
// Whether `client`'s role may run `spec`.
bool MayRun(const ClientState& client, const CommandSpec& spec);

// Runs one command, replying to it (errors included).
void Dispatch(ServerState& server, ClientState& client,
              const std::vector<std::string>& argv, Reply& reply);
// Runs a group of calls of `spec` (GroupStartedBy(calls[0]), each later
// call joins calls[0]) from an authenticated client, replying to each.
void DispatchGroup(const CommandSpec& spec, ServerState& server,
                   ClientState& client,
                   absl::Span<const std::vector<std::string>> calls,
                   Reply& reply);
// Serves several clients' runs, queued in this order on one key lane, as
// DispatchGroup serves each, one after the other; consecutive runs whose
// commands share a GroupsHandler are served by it as one, up to
// kMaxCallsServedTogether calls (what one transaction stages and one
// batch holds stays bounded however many clients wait).
inline constexpr size_t kMaxCallsServedTogether = 4096;
void DispatchGroups(ServerState& server, absl::Span<const PendingGroup> groups);

// In cluster mode, makes this node follow the master the topology names
// for it, or stop following when it names it a master (Kvrocks's way: the
// controller's CLUSTERX SETNODES decides replication).
absl::Status FollowTopology(ServerState& server);

// INFO's "# Replication" section (replication_commands.cc).
std::string ReplicationInfoSection(CommandContext& ctx);
// INFO's persistence section (save_commands.cc): the backups.
std::string PersistenceInfoSection(CommandContext& ctx);

// Replies Redis's "wrong number of arguments" for the running command.
void ReplyArityError(CommandContext& ctx, absl::string_view full_name);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_COMMAND_H_
