// Redis Cluster's commands on a trackdb node, the Kvrocks way: the
// topology comes from an outside controller (CLUSTERX SETNODEID, SETNODES,
// VERSION: cluster/cluster_state.h) and CLUSTER KEYSLOT, MYID, INFO, SLOTS,
// NODES and SHARDS answer in Redis 7.0's shapes from it, so that cluster
// clients (redis-py's RedisCluster, go-redis, redis-cli -c) find their way.
// READONLY, READWRITE and ASKING are accepted: a replica serves its
// master's reads whatever the connection says, and no slot is migrating.
//
// Without server.cluster_enabled every command here answers Redis's "This
// instance has cluster support disabled". Before the first SETNODES,
// INFO, SLOTS, NODES and SHARDS answer Kvrocks's "CLUSTERDOWN The cluster
// is not initialized".
//
// Nodes don't talk to each other: every link reads "connected", every
// node "online", ping and pong times are 0 and now, the config epoch of
// every node is the topology's version, and replication offsets are 0.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cluster/key_slot.h"
#include "model/clock.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"

namespace trackdb::resp {
namespace {

using cluster::ClusterView;
using cluster::Node;
using cluster::SlotRun;
using cluster::Topology;

constexpr char kDisabled[] = "This instance has cluster support disabled";
constexpr char kNotInitialized[] =
    "-CLUSTERDOWN The cluster is not initialized";
constexpr int kClusterPortOffset = 10000;  // Redis's bus port: port + 10000

// The cluster state, or nullptr once it has replied that there is none.
const cluster::ClusterState* ClusterOrReply(CommandContext& ctx) {
  if (ctx.server.cluster() == nullptr) ctx.reply.Error(kDisabled);
  return ctx.server.cluster();
}

// The view with a topology, or nullptr once it has replied.
std::shared_ptr<const ClusterView> TopologyOrReply(CommandContext& ctx) {
  const cluster::ClusterState* state = ClusterOrReply(ctx);
  if (state == nullptr) return nullptr;
  std::shared_ptr<const ClusterView> view = state->view();
  if (!view->topology) {
    ctx.reply.Error(kNotInitialized);
    return nullptr;
  }
  return view;
}

void ClusterKeySlot(CommandContext& ctx) {
  if (ClusterOrReply(ctx) == nullptr) return;
  ctx.reply.Integer(cluster::KeySlot(ctx.argv[2]));
}

void ClusterMyId(CommandContext& ctx) {
  const cluster::ClusterState* state = ClusterOrReply(ctx);
  if (state == nullptr) return;
  std::shared_ptr<const ClusterView> view = state->view();
  if (view->my_id.empty()) return ctx.reply.Error(kNotInitialized);
  ctx.reply.Bulk(view->my_id);
}

// Kvrocks's lines for the last migration from this node; none before one
// (kvrocks-controller reads them, and reads a missing one as none).
std::string MigrationLines(const cluster::ClusterState::Migration& m) {
  if (m.first < 0) return "";
  const std::string slots = m.first == m.last
                                ? absl::StrCat(m.first)
                                : absl::StrCat(m.first, "-", m.last);
  return absl::StrCat("migrating_slot:", slots, "\r\nmigrating_state:", m.state,
                      "\r\n");
}

void ClusterInfo(CommandContext& ctx) {
  std::shared_ptr<const ClusterView> view = TopologyOrReply(ctx);
  if (view == nullptr) return;
  const Topology& t = *view->topology;
  const int assigned = t.AssignedSlots();
  ctx.reply.Verbatim(absl::StrCat(
      "cluster_state:", assigned == cluster::kSlots ? "ok" : "fail",
      "\r\ncluster_slots_assigned:", assigned, "\r\ncluster_slots_ok:",
      assigned, "\r\ncluster_slots_pfail:0\r\ncluster_slots_fail:0\r\n",
      "cluster_known_nodes:", t.nodes().size(), "\r\ncluster_size:", t.Size(),
      "\r\ncluster_current_epoch:", view->version, "\r\ncluster_my_epoch:",
      view->version, "\r\ncluster_stats_messages_sent:0\r\n",
      "cluster_stats_messages_received:0\r\n",
      "total_cluster_links_buffer_limit_exceeded:0\r\n",
      MigrationLines(ctx.server.cluster()->migration())));
}

// One node as CLUSTER SLOTS lists it: ip, port, id, and a map of its other
// endpoints (none).
void ReplySlotsNode(Reply& reply, const Node& node) {
  reply.Array(4);
  reply.Bulk(node.host);
  reply.Integer(node.port);
  reply.Bulk(node.id);
  reply.Map(0);
}

void ClusterSlots(CommandContext& ctx) {
  std::shared_ptr<const ClusterView> view = TopologyOrReply(ctx);
  if (view == nullptr) return;
  const Topology& t = *view->topology;
  const std::vector<SlotRun> runs = t.Runs();
  ctx.reply.Array(runs.size());
  for (const SlotRun& run : runs) {
    const std::vector<int> replicas = t.ReplicasOf(run.owner);
    ctx.reply.Array(3 + replicas.size());
    ctx.reply.Integer(run.first);
    ctx.reply.Integer(run.last);
    ReplySlotsNode(ctx.reply, t.nodes()[run.owner]);
    for (int r : replicas) ReplySlotsNode(ctx.reply, t.nodes()[r]);
  }
}

// A master's slots as CLUSTER NODES writes them: " 0-5460 5462".
std::string SlotsText(const std::vector<SlotRun>& runs, int owner) {
  std::string text;
  for (const SlotRun& run : runs) {
    if (run.owner != owner) continue;
    absl::StrAppend(&text, " ", run.first);
    if (run.last > run.first) absl::StrAppend(&text, "-", run.last);
  }
  return text;
}

void ClusterNodes(CommandContext& ctx) {
  std::shared_ptr<const ClusterView> view = TopologyOrReply(ctx);
  if (view == nullptr) return;
  const Topology& t = *view->topology;
  const std::vector<SlotRun> runs = t.Runs();
  const int64_t now = NowMs();
  std::string text;
  for (size_t i = 0; i < t.nodes().size(); ++i) {
    const Node& n = t.nodes()[i];
    const bool myself = static_cast<int>(i) == view->myself;
    absl::StrAppend(&text, n.id, " ", n.host, ":", n.port, "@",
                    n.port + kClusterPortOffset, " ", myself ? "myself," : "",
                    n.master ? "master - " : "slave ",
                    n.master ? "" : n.master_id + " ", "0 ", now, " ",
                    view->version, " connected",
                    n.master ? SlotsText(runs, static_cast<int>(i)) : "", "\n");
  }
  ctx.reply.Verbatim(text);
}

// One node as CLUSTER SHARDS lists it.
void ReplyShardNode(Reply& reply, const Node& node) {
  reply.Map(7);
  reply.Bulk("id");
  reply.Bulk(node.id);
  reply.Bulk("port");
  reply.Integer(node.port);
  reply.Bulk("ip");
  reply.Bulk(node.host);
  reply.Bulk("endpoint");
  reply.Bulk(node.host);
  reply.Bulk("role");
  reply.Bulk(node.master ? "master" : "replica");
  reply.Bulk("replication-offset");
  reply.Integer(0);
  reply.Bulk("health");
  reply.Bulk("online");
}

void ClusterShards(CommandContext& ctx) {
  std::shared_ptr<const ClusterView> view = TopologyOrReply(ctx);
  if (view == nullptr) return;
  const Topology& t = *view->topology;
  const std::vector<SlotRun> runs = t.Runs();
  std::vector<int> masters;
  for (size_t i = 0; i < t.nodes().size(); ++i) {
    if (t.nodes()[i].master) masters.push_back(static_cast<int>(i));
  }
  ctx.reply.Array(masters.size());
  for (int m : masters) {
    ctx.reply.Map(2);
    ctx.reply.Bulk("slots");
    std::vector<int> bounds;
    for (const SlotRun& run : runs) {
      if (run.owner != m) continue;
      bounds.push_back(run.first);
      bounds.push_back(run.last);
    }
    ctx.reply.Array(bounds.size());
    for (int b : bounds) ctx.reply.Integer(b);
    ctx.reply.Bulk("nodes");
    const std::vector<int> replicas = t.ReplicasOf(m);
    ctx.reply.Array(1 + replicas.size());
    ReplyShardNode(ctx.reply, t.nodes()[m]);
    for (int r : replicas) ReplyShardNode(ctx.reply, t.nodes()[r]);
  }
}

// Replies OK or the change's error, in Kvrocks's words.
void ReplyChange(CommandContext& ctx, absl::Status s) {
  // The topology says whom this node follows, as in Kvrocks.
  if (s.ok()) s = FollowTopology(ctx.server);
  if (s.ok()) return ctx.reply.Status("OK");
  if (absl::IsInvalidArgument(s)) return ctx.reply.Error(s.message());
  ctx.Check(s);
}

void ClusterxSetNodeId(CommandContext& ctx) {
  cluster::ClusterState* state = ctx.server.cluster();
  if (state == nullptr) return ctx.reply.Error(kDisabled);
  ReplyChange(ctx, state->SetNodeId(ctx.argv[2]));
}

// CLUSTERX SETNODES <nodes> <version> [FORCE]
void ClusterxSetNodes(CommandContext& ctx) {
  cluster::ClusterState* state = ctx.server.cluster();
  if (state == nullptr) return ctx.reply.Error(kDisabled);
  if (ctx.argv.size() > 5 ||
      (ctx.argv.size() == 5 && !EqualsIgnoreCase(ctx.argv[4], "force"))) {
    return ctx.reply.Error("syntax error");
  }
  int64_t version = 0;
  if (!absl::SimpleAtoi(ctx.argv[3], &version)) {
    return ctx.reply.Error("Invalid cluster version");
  }
  ReplyChange(ctx, state->SetNodes(ctx.argv[2], version, ctx.argv.size() == 5));
}

// "N" or "first-last", each a slot.
bool ParseSlots(absl::string_view text, int* first, int* last) {
  const size_t dash = text.find('-');
  const absl::string_view a = text.substr(0, dash);
  const absl::string_view b =
      dash == absl::string_view::npos ? a : text.substr(dash + 1);
  return absl::SimpleAtoi(a, first) && absl::SimpleAtoi(b, last) &&
         *first >= 0 && *first <= *last && *last < cluster::kSlots;
}

// CLUSTERX MIGRATE <slot|first-last> <destination node id>: Kvrocks's,
// as kvrocks-controller sends it (service/replication/slot_migrator.h).
void ClusterxMigrate(CommandContext& ctx) {
  std::shared_ptr<const ClusterView> view = TopologyOrReply(ctx);
  if (view == nullptr) return;
  int first = 0, last = 0;
  if (!ParseSlots(ctx.argv[2], &first, &last)) {
    return ctx.reply.Error("Invalid slot range");
  }
  const Topology& t = *view->topology;
  for (int slot = first; slot <= last; ++slot) {
    if (view->myself < 0 || t.Owner(slot) != view->myself) {
      return ctx.reply.Error("Can't migrate slot which doesn't belong to me");
    }
  }
  const int destination = t.Find(ctx.argv[3]);
  if (destination < 0)
    return ctx.reply.Error("Can't find the destination node id");
  if (destination == view->myself) {
    return ctx.reply.Error("Can't migrate slot to myself");
  }
  const Node& node = t.nodes()[destination];
  if (!node.master) return ctx.reply.Error("Can't migrate slot to a slave");
  const v1::ReplicationConfig& config = ctx.server.config().replication();
  replication::LinkOptions options;
  options.host = node.host;
  options.port = node.port;
  options.user = config.primary_user();
  options.password = config.primary_password();
  const absl::Status s = ctx.server.role().MigrateSlots(ctx.server.cluster(), first,
                                                  last, options);
  if (absl::IsFailedPrecondition(s)) return ctx.reply.Error(s.message());
  if (ctx.Check(s)) ctx.reply.Status("OK");
}

void ClusterxVersion(CommandContext& ctx) {
  const cluster::ClusterState* state = ClusterOrReply(ctx);
  if (state == nullptr) return;
  ctx.reply.Integer(state->view()->version);
}

// A command that only says OK, in cluster mode.
void ClusterOk(CommandContext& ctx) {
  if (ClusterOrReply(ctx) != nullptr) ctx.reply.Status("OK");
}

CommandSpec WithSubcommands(
    const char* name, std::vector<std::string> flags,
    std::vector<std::tuple<const char*, int, CommandHandler>> subs) {
  CommandSpec command{name, -2, flags};
  for (auto& [sub, arity, handler] : subs) {
    CommandSpec s{sub, arity, flags};
    s.handler = std::move(handler);
    command.subcommands[sub] = std::move(s);
  }
  return command;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(cluster, table) {
  table->Add(WithSubcommands("cluster", {"stale"},
                             {{"keyslot", 3, ClusterKeySlot},
                              {"myid", 2, ClusterMyId},
                              {"info", 2, ClusterInfo},
                              {"slots", 2, ClusterSlots},
                              {"nodes", 2, ClusterNodes},
                              {"shards", 2, ClusterShards}}));
  table->Add(WithSubcommands("clusterx", {"admin"},
                             {{"setnodeid", 3, ClusterxSetNodeId},
                              {"setnodes", -4, ClusterxSetNodes},
                              {"migrate", 4, ClusterxMigrate},
                              {"version", 2, ClusterxVersion}}));
  table->Add("readonly", 1, ClusterOk, {"fast"}, 0, 0, 0);
  table->Add("readwrite", 1, ClusterOk, {"fast"}, 0, 0, 0);
  table->Add("asking", 1, ClusterOk, {"fast"}, 0, 0, 0);
}

}  // namespace trackdb::resp
