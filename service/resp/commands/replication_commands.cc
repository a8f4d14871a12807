// Replication on the RESP door: Redis's REPLICAOF (SLAVEOF), WAIT and ROLE,
// and the primary's side of trackdb's own replication link (REPL.PULL,
// REPL.SNAPSHOT; service/replication/replica_link.h has the protocol).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "model/clock.h"
#include "service/resp/dispatch/command.h"
#include "storage/replication/replication.h"

namespace trackdb::resp {

absl::Status FollowTopology(ServerState& server) {
  if (server.cluster() == nullptr) return absl::OkStatus();
  const std::shared_ptr<const cluster::ClusterView> view =
      server.cluster()->view();
  if (!view->topology || view->myself < 0) return absl::OkStatus();
  const std::vector<cluster::Node>& nodes = view->topology->nodes();
  const cluster::Node& me = nodes[view->myself];
  const auto link = server.role().LinkState();
  if (me.master) {
    return link || storage::IsReplica(server.store())
               ? server.role().ReplicaOf(std::nullopt)
               : absl::OkStatus();
  }
  const int master = view->topology->Find(me.master_id);
  if (master < 0) return absl::OkStatus();
  const cluster::Node& primary = nodes[master];
  if (link && link->first.host == primary.host &&
      link->first.port == primary.port) {
    return absl::OkStatus();
  }
  const v1::ReplicationConfig& config = server.config().replication();
  replication::LinkOptions options;
  options.host = primary.host;
  options.port = primary.port;
  options.user = config.primary_user();
  options.password = config.primary_password();
  options.listening_port = server.port;
  return server.role().ReplicaOf(options);
}

namespace {

constexpr char kNotInteger[] = "value is out of range, must be positive";

// The peer's ip of an "ip:port" address.
std::string PeerIp(const std::string& addr) {
  const size_t colon = addr.rfind(':');
  return colon == std::string::npos ? addr : addr.substr(0, colon);
}

// REPLICAOF host port | REPLICAOF NO ONE (Redis's words and replies).
void ReplicaOf(CommandContext& ctx) {
  if (ctx.server.cluster() != nullptr) {
    ctx.reply.Error("REPLICAOF not allowed in cluster mode.");
    return;
  }
  const std::string& host = ctx.argv[1];
  if (absl::EqualsIgnoreCase(host, "no") &&
      absl::EqualsIgnoreCase(ctx.argv[2], "one")) {
    if (!ctx.Check(ctx.server.role().ReplicaOf(std::nullopt))) return;
    ctx.reply.Ok();
    return;
  }
  int port = 0;
  if (!absl::SimpleAtoi(ctx.argv[2], &port) || port < 0 || port > 65535) {
    ctx.reply.Error("Invalid master port");
    return;
  }
  if (auto state = ctx.server.role().LinkState();
      state && state->first.host == host && state->first.port == port) {
    ctx.reply.Status("OK Already connected to specified master");
    return;
  }
  const v1::ReplicationConfig& config = ctx.server.config().replication();
  replication::LinkOptions options;
  options.host = host;
  options.port = port;
  options.user = config.primary_user();
  options.password = config.primary_password();
  options.listening_port = ctx.server.port;
  if (!ctx.Check(ctx.server.role().ReplicaOf(options))) return;
  ctx.reply.Ok();
}

// WAIT numreplicas timeout: how many replicas have this client's last
// write, waiting up to `timeout` ms (0: for ever) for numreplicas of them.
void Wait(CommandContext& ctx) {
  if (storage::IsReplica(ctx.store())) {
    ctx.reply.Error(
        "WAIT cannot be used with replica instances. Please also note that "
        "since Redis 4.0 if a replica is configured to be writable (which is "
        "not the default) writes to replicas are just local and are not "
        "propagated.");
    return;
  }
  int64_t n = 0, timeout_ms = 0;
  if (!absl::SimpleAtoi(ctx.argv[1], &n)) {
    ctx.reply.Error("value is not an integer or out of range");
    return;
  }
  if (!absl::SimpleAtoi(ctx.argv[2], &timeout_ms)) {
    ctx.reply.Error("timeout is not an integer or out of range");
    return;
  }
  if (timeout_ms < 0) {
    ctx.reply.Error("timeout is negative");
    return;
  }
  const int wanted = static_cast<int>(std::min<int64_t>(n, 1 << 20));
  const int acked = ctx.server.role().replicas().Acked(ctx.client.last_write_seq);
  // Inside EXEC, WAIT answers at once, as in Redis.
  if (acked >= wanted || ctx.client.in_exec) {
    ctx.reply.Integer(acked);
    return;
  }
  // The connection replies when they have it or at the timeout
  // (resp_server.cc AwaitWait).
  ctx.client.pending_wait =
      ClientState::PendingWait{wanted, ctx.client.last_write_seq, timeout_ms};
}

// ROLE, in Redis's shapes.
void Role(CommandContext& ctx) {
  if (auto state = ctx.server.role().LinkState()) {
    const replication::LinkStatus& link = state->second;
    ctx.reply.Array(5);
    ctx.reply.Bulk("slave");
    ctx.reply.Bulk(state->first.host);
    ctx.reply.Integer(state->first.port);
    ctx.reply.Bulk(link.sync_in_progress ? "sync"
                   : link.up             ? "connected"
                                         : "connect");
    ctx.reply.Integer(static_cast<int64_t>(link.applied));
    return;
  }
  const std::vector<replication::ReplicaInfo> replicas =
      ctx.server.role().replicas().Replicas();
  ctx.reply.Array(3);
  ctx.reply.Bulk("master");
  ctx.reply.Integer(static_cast<int64_t>(storage::LatestSequence(ctx.store())));
  ctx.reply.Array(replicas.size());
  for (const replication::ReplicaInfo& r : replicas) {
    ctx.reply.Array(3);
    ctx.reply.Bulk(r.ip);
    ctx.reply.Bulk(absl::StrCat(r.port));
    ctx.reply.Bulk(absl::StrCat(r.applied));
  }
}

// Whether this node may serve a replica; replies the refusal if not.
bool ServesReplicas(CommandContext& ctx) {
  if (storage::IsReplica(ctx.store())) {
    ctx.reply.Error("this node is a replica: replicas follow a primary");
    return false;
  }
  if (ctx.server.config().storage().durability() == v1::DURABILITY_WAL_OFF) {
    ctx.reply.Error(
        "replication needs the WAL: storage.durability is DURABILITY_WAL_OFF");
    return false;
  }
  return true;
}

// REPL.PULL's numbers.
struct PullArgs {
  uint64_t next = 0;  // the first sequence wanted
  int port = 0;
  int64_t wait_ms = 0;
  int64_t max_bytes = 0;
};

// Reads argv[2..5]; false if any is unreadable or out of range.
bool ParsePullArgs(const std::vector<std::string>& argv, PullArgs* args) {
  return absl::SimpleAtoi(argv[2], &args->next) && args->next != 0 &&
         absl::SimpleAtoi(argv[3], &args->port) &&
         absl::SimpleAtoi(argv[4], &args->wait_ms) && args->wait_ms >= 0 &&
         args->wait_ms <= 10'000 &&
         absl::SimpleAtoi(argv[5], &args->max_bytes) && args->max_bytes > 0;
}

// Each batch as its sequence, its count of updates and its bytes.
void ReplyShippedBatches(CommandContext& ctx,
                         const std::vector<storage::ShippedBatch>& batches) {
  ctx.reply.Array(batches.size() * 3);
  for (const storage::ShippedBatch& b : batches) {
    ctx.reply.Integer(static_cast<int64_t>(b.sequence));
    ctx.reply.Integer(static_cast<int64_t>(b.count));
    ctx.reply.Bulk(b.data);
  }
}

// REPL.PULL <replid> <next> <port> <wait-ms> <max-bytes>
void ReplPull(CommandContext& ctx) {
  PullArgs args;
  if (!ParsePullArgs(ctx.argv, &args)) {
    ctx.reply.Error(kNotInteger);
    return;
  }
  const uint64_t next = args.next;
  const size_t max_bytes = static_cast<size_t>(args.max_bytes);
  if (!ServesReplicas(ctx)) return;
  storage::TrackStore& store = ctx.store();
  absl::StatusOr<std::string> replid = storage::PrimaryReplid(store);
  if (!ctx.Check(replid.status())) return;
  if (ctx.argv[1] != *replid) {
    ctx.reply.Error("-FULLSYNC this primary's history is another");
    return;
  }
  absl::StatusOr<std::vector<storage::ShippedBatch>> batches =
      storage::ReadUpdatesSince(store, next, max_bytes);
  if (absl::IsOutOfRange(batches.status())) {
    ctx.reply.Error(absl::StrCat("-FULLSYNC ", batches.status().message()));
    return;
  }
  if (!ctx.Check(batches.status())) return;
  // What it applied, now that its history is known to be this one's.
  ctx.server.role().replicas().Pulled(ctx.client.id, PeerIp(ctx.client.addr),
                               args.port, next - 1);
  if (batches->empty() && args.wait_ms > 0 &&
      storage::WaitForSequence(
          store, next, absl::Now() + absl::Milliseconds(args.wait_ms))) {
    batches = storage::ReadUpdatesSince(store, next, max_bytes);
    if (!ctx.Check(batches.status())) return;
  }
  ReplyShippedBatches(ctx, *batches);
}

// REPL.SNAPSHOT BEGIN: a snapshot held by this connection.
void ReplSnapshotBegin(CommandContext& ctx) {
  if (!ServesReplicas(ctx)) return;
  absl::StatusOr<std::string> replid = storage::PrimaryReplid(ctx.store());
  if (!ctx.Check(replid.status())) return;
  auto reader = storage::SnapshotReader::Open(ctx.store());
  if (!ctx.Check(reader.status())) return;
  ctx.client.snapshot = *std::move(reader);
  ctx.reply.Array(2);
  ctx.reply.Bulk(*replid);
  ctx.reply.Integer(static_cast<int64_t>(ctx.client.snapshot->sequence()));
}

// REPL.SNAPSHOT NEXT <max-bytes>
void ReplSnapshotNext(CommandContext& ctx) {
  int64_t max_bytes = 0;
  if (!absl::SimpleAtoi(ctx.argv[2], &max_bytes) || max_bytes <= 0) {
    ctx.reply.Error(kNotInteger);
    return;
  }
  if (!ctx.client.snapshot) {
    ctx.reply.Error("no snapshot on this connection: REPL.SNAPSHOT BEGIN");
    return;
  }
  auto records = ctx.client.snapshot->Next(static_cast<size_t>(max_bytes));
  if (!ctx.Check(records.status())) return;
  if (records->empty()) ctx.client.snapshot.reset();
  ctx.reply.Array(records->size() * 3);
  for (const storage::SnapshotRecord& r : *records) {
    ctx.reply.Integer(static_cast<int64_t>(r.cf));
    ctx.reply.Bulk(r.key);
    ctx.reply.Bulk(r.value);
  }
}

void AppendReplicaFields(CommandContext& ctx,
                         const std::pair<replication::LinkOptions,
                                         replication::LinkStatus>& link_state,
                         std::string* text) {
  const auto* state = &link_state;
  auto mark = storage::ReadReplicationMark(ctx.store());
  // No mark: nothing synced, or a full sync under way (the keys part-way
  // to the primary's), which must not look promotable.
  const uint64_t offset = mark.ok() && *mark ? (*mark)->next - 1 : 0;
  const replication::LinkStatus& link = state->second;
  absl::StrAppend(
      text, "role:slave\r\nmaster_host:", state->first.host,
      "\r\nmaster_port:", state->first.port,
      "\r\nmaster_link_status:", link.up ? "up" : "down",
      "\r\nmaster_last_io_seconds_ago:",
      link.last_io_ms == 0 ? -1 : (NowMs() - link.last_io_ms) / 1000,
      "\r\nmaster_sync_in_progress:", link.sync_in_progress ? 1 : 0,
      "\r\nslave_read_repl_offset:", offset, "\r\nslave_repl_offset:", offset,
      "\r\nslave_priority:100\r\nslave_read_only:1\r\nreplica_announced:1",
      "\r\nconnected_slaves:0\r\n");
  absl::StrAppend(text, "master_replid:",
                  mark.ok() && *mark ? (*mark)->replid : std::string(40, '0'),
                  "\r\nmaster_repl_offset:", offset, "\r\nsequence:", offset,
                  "\r\ntrackdb_full_syncs:", link.full_syncs,
                  "\r\ntrackdb_link_error:", link.last_error, "\r\n");
}

void AppendPrimaryFields(CommandContext& ctx, std::string* text) {
  const std::vector<replication::ReplicaInfo> replicas =
      ctx.server.role().replicas().Replicas();
  absl::StrAppend(text, "role:master\r\nconnected_slaves:", replicas.size(),
                  "\r\n");
  const int64_t now = NowMs();
  for (size_t i = 0; i < replicas.size(); ++i) {
    const replication::ReplicaInfo& r = replicas[i];
    absl::StrAppend(text, "slave", i, ":ip=", r.ip, ",port=", r.port,
                    ",state=online,offset=", r.applied,
                    ",lag=", (now - r.last_pull_ms) / 1000, "\r\n");
  }
  absl::StatusOr<std::string> replid = storage::PrimaryReplid(ctx.store());
  const uint64_t offset = storage::LatestSequence(ctx.store());
  absl::StrAppend(text, "master_replid:", replid.ok() ? *replid : "",
                  "\r\nmaster_repl_offset:", offset, "\r\nsequence:", offset,
                  "\r\n");
}

// REPL.IMPORT <portable batch>...: a migrating slot's keys, from its source
// (service/replication/slot_migrator.h).
void ReplImport(CommandContext& ctx) {
  if (!ServesReplicas(ctx)) return;
  const std::vector<std::string> batches(ctx.argv.begin() + 1, ctx.argv.end());
  if (!ctx.Check(storage::ApplyMigrated(ctx.store(), batches))) return;
  ctx.reply.Ok();
}

// REPL.DIGEST: the store's digest (storage::StoreDigest), to check that a
// replica holds what its primary holds.
void ReplDigest(CommandContext& ctx) {
  absl::StatusOr<std::string> digest = storage::StoreDigest(ctx.store());
  if (!ctx.Check(digest.status())) return;
  ctx.reply.Bulk(*digest);
}

}  // namespace

// Both roles report `sequence` as Kvrocks does, the offset in RocksDB
// sequence numbers: kvrocks-controller promotes the replica with the
// highest.
std::string ReplicationInfoSection(CommandContext& ctx) {
  std::string text = "# Replication\r\n";
  if (auto link = ctx.server.role().LinkState()) {
    AppendReplicaFields(ctx, *link, &text);
  } else {
    AppendPrimaryFields(ctx, &text);
  }
  absl::StrAppend(&text,
                  "master_failover_state:no-failover\r\n"
                  "master_replid2:0000000000000000000000000000000000000000\r\n"
                  "second_repl_offset:-1\r\n\r\n");
  return text;
}

TRACKDB_RESP_COMMAND_FAMILY(replication, table) {
  for (const char* name : {"replicaof", "slaveof"}) {
    table->Add(name, 3, ReplicaOf, {"admin", "noscript", "stale"}, 0, 0, 0);
  }
  table->Add("wait", 3, Wait, {"noscript"}, 0, 0, 0);
  table->Add("role", 1, Role, {"noscript", "loading", "stale", "fast"}, 0, 0,
             0);
  table->Add("repl.pull", 6, ReplPull, {"admin", "noscript"}, 0, 0, 0,
             RunsOn::kWorker);
  table->Add("repl.digest", 1, ReplDigest, {"admin", "noscript"}, 0, 0, 0,
             RunsOn::kWorker);
  table->Add("repl.import", -2, ReplImport, {"admin", "noscript"}, 0, 0, 0,
             RunsOn::kWorker);
  CommandSpec snapshot{"repl.snapshot", -2, {"admin", "noscript"}};
  snapshot.runs_on = RunsOn::kWorker;
  snapshot.subcommands["begin"] =
      CommandSpec{"begin", 2, {"admin", "noscript"}, 0, 0, 0};
  snapshot.subcommands["begin"].handler = ReplSnapshotBegin;
  snapshot.subcommands["next"] =
      CommandSpec{"next", 3, {"admin", "noscript"}, 0, 0, 0};
  snapshot.subcommands["next"].handler = ReplSnapshotNext;
  table->Add(std::move(snapshot));
}

}  // namespace trackdb::resp
