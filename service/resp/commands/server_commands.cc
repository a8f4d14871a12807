// Server commands: COMMAND, INFO, DBSIZE, FLUSHDB, FLUSHALL, TIME,
// FUNCTION FLUSH, SCRIPT FLUSH, DEBUG SLEEP (CONFIG: config_command.cc).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "model/clock.h"
#include "model/glob.h"
#include "service/resp/commands/info_stats.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/command_keys.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/stats/info_section.h"
#include "storage/stats/store_stats.h"
#include "types/codec/redis_number.h"
#include "types/key_scan.h"
#include "types/key_type.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

// ---- COMMAND ----

void CommandInfoEntry(Reply& r, const CommandSpec& spec,
                      const std::string& full_name) {
  r.Array(10);
  r.Bulk(full_name);
  r.Integer(spec.arity);
  r.Set(spec.flags.size());
  for (const std::string& f : spec.flags) r.Status(f);
  r.Integer(spec.first_key);
  r.Integer(spec.last_key);
  r.Integer(spec.key_step);
  r.Set(0);    // ACL categories
  r.Set(0);    // tips
  r.Array(0);  // key specs
  r.Array(spec.subcommands.size());
  for (const auto& [name, sub] : spec.subcommands) {
    CommandInfoEntry(r, sub, absl::StrCat(full_name, "|", name));
  }
}

void CommandAll(CommandContext& ctx) {
  const auto& all = ctx.server.commands().all();
  ctx.reply.Array(all.size());
  for (const auto& [name, spec] : all) CommandInfoEntry(ctx.reply, spec, name);
}

void CommandInfo(CommandContext& ctx) {
  if (ctx.argv.size() == 2) return CommandAll(ctx);
  ctx.reply.Array(ctx.argv.size() - 2);
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    const CommandSpec* spec = ctx.server.commands().Find(ctx.argv[i]);
    if (spec == nullptr) {
      ctx.reply.NullArray();
    } else {
      CommandInfoEntry(ctx.reply, *spec, spec->name);
    }
  }
}

// COMMAND GETKEYS <command> [arg ...]: the keys Redis Cluster routes the
// call by (command_keys.h), with Redis's errors; cluster clients (redis-py's
// RedisCluster) ask it for the commands flagged movablekeys.
void CommandGetKeys(CommandContext& ctx) {
  const std::vector<std::string> call(ctx.argv.begin() + 2, ctx.argv.end());
  const CommandSpec* spec = ctx.server.commands().Find(call[0]);
  if (spec != nullptr) spec = ResolveSubcommand(*spec, call);
  if (spec == nullptr) return ctx.reply.Error("Invalid command specified");
  const bool movable = HasFlag(*spec, "movablekeys");
  if (spec->first_key <= 0 && !movable) {
    return ctx.reply.Error("The command has no key arguments");
  }
  const int argc = static_cast<int>(call.size());
  if ((spec->arity > 0 && spec->arity != argc) || argc < -spec->arity) {
    return ctx.reply.Error("Invalid number of arguments specified for command");
  }
  const std::optional<std::vector<absl::string_view>> keys =
      CommandKeys(*spec, call);
  if (!keys || keys->empty()) {
    return ctx.reply.Error("Invalid arguments specified for command");
  }
  ctx.reply.Array(keys->size());
  for (absl::string_view key : *keys) ctx.reply.Bulk(key);
}

// Enough for redis-cli's hints: a summary per command.
void CommandDocs(CommandContext& ctx) {
  std::vector<const CommandSpec*> specs;
  if (ctx.argv.size() == 2) {
    for (const auto& [name, spec] : ctx.server.commands().all()) {
      specs.push_back(&spec);
    }
  } else {
    for (size_t i = 2; i < ctx.argv.size(); ++i) {
      if (const CommandSpec* s = ctx.server.commands().Find(ctx.argv[i])) {
        specs.push_back(s);
      }
    }
  }
  ctx.reply.Map(specs.size());
  for (const CommandSpec* s : specs) {
    ctx.reply.Bulk(s->name);
    ctx.reply.Map(2);
    ctx.reply.Bulk("summary");
    ctx.reply.Bulk(absl::StrCat("trackdb's ", s->name));
    ctx.reply.Bulk("group");
    ctx.reply.Bulk("generic");
  }
}

// COMMAND LIST [FILTERBY PATTERN p | FILTERBY MODULE m]: each command,
// then its subcommands as "command|subcommand", as Redis 7.0 lists them
// (COMMAND COUNT counts the commands only). trackdb has no modules, and no
// ACL categories to filter by.
void CommandList(CommandContext& ctx) {
  const auto& argv = ctx.argv;
  const bool all = argv.size() == 2;
  const bool by = argv.size() == 5 && EqualsIgnoreCase(argv[2], "FILTERBY");
  const bool pattern = by && EqualsIgnoreCase(argv[3], "PATTERN");
  if (!all && !pattern && !(by && EqualsIgnoreCase(argv[3], "MODULE"))) {
    return ctx.reply.Error(kSyntaxError);
  }
  std::vector<std::string> names;
  auto consider = [&](std::string name) {
    if (all || (pattern && model::GlobMatch(argv[4], name, /*nocase=*/true))) {
      names.push_back(std::move(name));
    }
  };
  for (const auto& [name, spec] : ctx.server.commands().all()) {
    consider(name);
    for (const auto& [sub, unused] : spec.subcommands) {
      consider(absl::StrCat(name, "|", sub));
    }
  }
  ctx.reply.Array(names.size());
  for (const std::string& n : names) ctx.reply.Bulk(n);
}

// COMMAND and its subcommands, dispatched as Redis 7 does (so an unknown
// subcommand or a wrong arity gets its words).
CommandSpec CommandCommand() {
  CommandSpec command{"command", -1, {"loading", "stale"}};
  command.handler = CommandAll;
  auto sub = [&](const char* name, int arity, CommandHandler h) {
    CommandSpec s{name, arity, {"loading", "stale"}};
    s.handler = std::move(h);
    command.subcommands[name] = std::move(s);
  };
  sub("count", 2, [](CommandContext& ctx) {
    ctx.reply.Integer(static_cast<int64_t>(ctx.server.commands().all().size()));
  });
  sub("info", -2, CommandInfo);
  sub("getkeys", -4, CommandGetKeys);
  sub("docs", -2, CommandDocs);
  sub("list", -2, CommandList);
  sub("help", 2, [](CommandContext& ctx) {
    const char* lines[] = {
        "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "(no subcommand)",
        "    Return details about every command trackdb serves.",
        "COUNT",
        "    Return the number of commands.",
        "INFO [<command-name> ...]",
        "    Return details about the given commands, or all of them.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "DOCS [<command-name> ...]",
        "    Return a summary of the given commands, or all of them.",
        "LIST [FILTERBY (PATTERN <pattern>|MODULE <module-name>)]",
        "    Return the names of the commands.",
        "HELP",
        "    Print this help."};
    ctx.reply.StatusLines(lines);
  });
  return command;
}

// ---- INFO ----

struct DbCounts {
  int64_t keys = 0;
  int64_t expires = 0;
  int64_t ttl_sum_ms = 0;  // remaining time to live, over `expires` keys

  void AddExpiry(int64_t expire_at_ms, int64_t now) {
    if (expire_at_ms == 0) return;
    ++expires;
    ttl_sum_ms += std::max<int64_t>(0, expire_at_ms - now);
  }
  // Redis's avg_ttl is a sampled estimate of this mean; trackdb has the
  // exact figure from the walk INFO makes anyway.
  int64_t AverageTtlMs() const {
    return expires == 0 ? 0 : ttl_sum_ms / expires;
  }
};

absl::StatusOr<DbCounts> CountKeys(storage::TrackStore& store, int db,
                                   int64_t now) {
  DbCounts counts;
  bool done = false;
  absl::Status s = types::ScanKeys(
      store, db, now, {},
      [&](const std::string& key, types::KeyType type) {
        ++counts.keys;
        if (type == types::KeyType::kGeo) {
          counts.AddExpiry(store.CollectionExpiry(types::KeyName(db, key)),
                           now);
        }
        return true;
      },
      nullptr, &done);
  if (!s.ok()) return s;
  // Expiring strings: a second walk would double the cost; count them here.
  s = store.ScanStrings(
      types::KeyName(db, ""), now,
      [&](absl::string_view name, const storage::StringValue& v) {
        std::optional<types::DbKey> k = types::ParseKeyName(name);
        if (!k || k->db != db) return false;
        counts.AddExpiry(v.expire_at_ms, now);
        return true;
      });
  if (!s.ok()) return s;
  s = store.ScanTyped(std::nullopt, now,
                      [&](absl::string_view name, const storage::TypedMeta& m) {
                        std::optional<types::DbKey> k =
                            types::ParseKeyName(name);
                        if (k && k->db == db)
                          counts.AddExpiry(m.expire_at_ms, now);
                        return true;
                      });
  if (!s.ok()) return s;
  return counts;
}

// Outbound fence webhooks (fence_webhook.h), as Redis lists replicas: one
// line each, its fields comma-separated.
std::string WebhooksSection(CommandContext& ctx) {
  std::string text = "# Webhooks\r\n";
  if (ctx.server.webhooks() != nullptr) {
    int i = 0;
    for (const service::WebhookStats& w : ctx.server.webhooks()->Stats()) {
      absl::StrAppend(
          &text, "webhook", i++, ":name=", w.name, ",collection=", w.collection,
          ",delivered=", w.counters.delivered, ",retried=", w.counters.retried,
          ",failed=", w.counters.failed, ",pending=", w.pending, "\r\n");
    }
  }
  return text + "\r\n";
}

// What history retention removed since start (storage/points/retention.h).
std::string RetentionSection(CommandContext& ctx) {
  const storage::RetentionCounters r = ctx.store().retention().counters();
  return absl::StrCat(
      "# Retention\r\nretention_points_expired:", r.points_expired,
      "\r\nretention_entities_expired:", r.entities_expired,
      "\r\nretention_points_trimmed:", r.points_trimmed, "\r\n\r\n");
}

std::string ServerSection(CommandContext& ctx, int64_t now) {
  return absl::StrCat(
      "# Server\r\nredis_version:7.0.15\r\n",
      "redis_mode:", ctx.server.cluster() ? "cluster" : "standalone", "\r\n",
      "trackdb_server:trackd\r\n", "os:Linux\r\n", "arch_bits:64\r\n",
      "process_id:", getpid(), "\r\n", "tcp_port:", ctx.server.port, "\r\n",
      "grpc_port:", ctx.server.config().server().grpc_port(), "\r\n",
      "uptime_in_seconds:", (now - ctx.server.start_ms()) / 1000, "\r\n",
      "uptime_in_days:", (now - ctx.server.start_ms()) / 86400000, "\r\n",
      "executable:trackd\r\n", "\r\n");
}

std::string ClientsSection(CommandContext& ctx) {
  const std::vector<ClientState> clients = ctx.server.Clients();
  const auto blocked =
      std::count_if(clients.begin(), clients.end(),
                    [](const ClientState& c) { return c.blocked.has_value(); });
  return absl::StrCat("# Clients\r\nconnected_clients:", clients.size(), "\r\n",
                      "maxclients:", ctx.server.settings().maxclients, "\r\n",
                      "blocked_clients:", blocked, "\r\n", "\r\n");
}

std::string MemorySection(CommandContext& ctx) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  const storage::StoreStats stats = storage::ReadStoreStats(ctx.store());
  return absl::StrCat("# Memory\r\nused_memory_peak_rss:",
                      static_cast<int64_t>(usage.ru_maxrss) * 1024, "\r\n",
                      "rocksdb_memtables_bytes:", stats.memtable_bytes, "\r\n",
                      "rocksdb_block_cache_bytes:",
                      stats.block_cache_usage_bytes, "\r\n", "\r\n");
}

std::string StatsSection(CommandContext& ctx) {
  return absl::StrCat(
      "# Stats\r\ntotal_connections_received:",
      ctx.server.connections_received.load(), "\r\n",
      "total_commands_processed:", ctx.server.commands_processed.load(), "\r\n",
      "rejected_connections:", ctx.server.rejected_connections.load(), "\r\n",
      "\r\n");
}

// The numbers trackdb's stats and doctor read (storage/stats/store_stats.h):
// disk writes, flushes, L0, pending compaction, stalls, memory vs budget,
// block cache hit rate, write amplification, per column family.
std::string RocksdbSection(CommandContext& ctx) {
  return absl::StrCat(
      storage::FormatInfoSection(storage::ReadStoreStats(ctx.store())), "\r\n");
}

std::string ClusterSection(CommandContext& ctx) {
  return absl::StrCat("# Cluster\r\ncluster_enabled:",
                      ctx.server.cluster() ? 1 : 0, "\r\n\r\n");
}

// One line for each database that has keys.
std::string KeyspaceSection(CommandContext& ctx, int64_t now) {
  std::string text = "# Keyspace\r\n";
  for (int db = 0; db < types::kDatabases; ++db) {
    absl::StatusOr<DbCounts> c = CountKeys(ctx.store(), db, now);
    if (!c.ok() || c->keys == 0) continue;
    absl::StrAppend(&text, "db", db, ":keys=", c->keys, ",expires=", c->expires,
                    ",avg_ttl=", c->AverageTtlMs(), "\r\n");
  }
  return text;
}

std::string InfoText(CommandContext& ctx, const std::set<std::string>& asked) {
  const int64_t now = NowMs();
  // INFO's order; each section is read only when asked.
  const std::pair<const char*, std::function<std::string()>> sections[] = {
      {"server", [&] { return ServerSection(ctx, now); }},
      {"clients", [&] { return ClientsSection(ctx); }},
      {"memory", [&] { return MemorySection(ctx); }},
      {"persistence", [&] { return PersistenceInfoSection(ctx); }},
      {"stats", [&] { return StatsSection(ctx); }},
      {"replication", [&] { return ReplicationInfoSection(ctx); }},
      {"cpu", [] { return CpuInfoSection(); }},
      {"modules", [] { return ModulesInfoSection(); }},
      {"commandstats", [&] { return CommandstatsInfoSection(ctx.server); }},
      {"errorstats", [&] { return ErrorstatsInfoSection(ctx.server); }},
      {"latencystats", [&] { return LatencystatsInfoSection(ctx.server); }},
      {"rocksdb", [&] { return RocksdbSection(ctx); }},
      {"webhooks", [&] { return WebhooksSection(ctx); }},
      {"retention", [&] { return RetentionSection(ctx); }},
      {"cluster", [&] { return ClusterSection(ctx); }},
      {"keyspace", [&] { return KeyspaceSection(ctx, now); }},
  };
  std::string text;
  for (const auto& [name, section] : sections) {
    if (asked.count(name)) absl::StrAppend(&text, section());
  }
  if (text.size() >= 2 && absl::EndsWith(text, "\r\n\r\n")) {
    text.resize(text.size() - 2);
  }
  return text;
}

void Info(CommandContext& ctx) {
  ctx.reply.Verbatim(InfoText(ctx, InfoSectionsAsked(ctx.argv)));
}

// ---- DBSIZE, FLUSHDB, FLUSHALL ----

void Dbsize(CommandContext& ctx) {
  absl::StatusOr<DbCounts> c = CountKeys(ctx.store(), ctx.client.db, NowMs());
  if (!ctx.Check(c.status())) return;
  ctx.reply.Integer(c->keys);
}

absl::Status FlushDb(storage::TrackStore& store, int db) {
  const int64_t now = NowMs();
  std::vector<std::string> strings, typed, collections;
  bool done = false;
  absl::Status s = types::ScanKeys(
      store, db, now, {},
      [&](const std::string& key, types::KeyType type) {
        std::vector<std::string>& names =
            type == types::KeyType::kString ? strings
            : type == types::KeyType::kGeo  ? collections
                                            : typed;
        names.push_back(types::KeyName(db, key));
        return true;
      },
      nullptr, &done);
  if (!s.ok()) return s;
  for (const std::string& name : collections) {
    if (auto r = store.DeleteCollection(name); !r.ok()) return r.status();
  }
  constexpr size_t kBatch = 1000;
  // A typed value goes with its meta key (its members are collected by
  // compaction), so a batch of names is a batch of single deletes.
  for (size_t i = 0; i < typed.size(); i += kBatch) {
    std::vector<std::string> names(
        typed.begin() + i, typed.begin() + std::min(typed.size(), i + kBatch));
    if (auto r = store.DeleteNames(names, now); !r.ok()) return r.status();
  }
  for (size_t i = 0; i < strings.size(); i += kBatch) {
    std::vector<std::string> names(
        strings.begin() + i,
        strings.begin() + std::min(strings.size(), i + kBatch));
    s = store.UpdateStrings(names, now, [](auto* values) {
      for (auto& v : *values) v.reset();
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

bool FlushArgsOk(CommandContext& ctx) {
  if (ctx.argv.size() > 2) {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  if (ctx.argv.size() == 2 && !EqualsIgnoreCase(ctx.argv[1], "ASYNC") &&
      !EqualsIgnoreCase(ctx.argv[1], "SYNC")) {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  return true;
}

void Flushdb(CommandContext& ctx) {
  if (!FlushArgsOk(ctx)) return;
  if (!ctx.Check(FlushDb(ctx.store(), ctx.client.db))) return;
  ctx.reply.Ok();
}

void Flushall(CommandContext& ctx) {
  if (!FlushArgsOk(ctx)) return;
  for (int db = 0; db < types::kDatabases; ++db) {
    if (!ctx.Check(FlushDb(ctx.store(), db))) return;
  }
  ctx.reply.Ok();
}

// FUNCTION FLUSH: trackdb has no functions (FUNCTION LOAD is not served);
// clients call it in test setup, so it succeeds. A bad argument gets its
// own words in Redis.
CommandSpec FunctionFlush() {
  CommandSpec c = CommandWithSubcommands("function");
  AddSubcommand(
      c, {"flush", -2, {"noscript", "write"}}, [](CommandContext& ctx) {
        const bool mode_ok =
            ctx.argv.size() == 2 ||
            (ctx.argv.size() == 3 && (EqualsIgnoreCase(ctx.argv[2], "ASYNC") ||
                                      EqualsIgnoreCase(ctx.argv[2], "SYNC")));
        if (mode_ok) return ctx.reply.Ok();
        if (ctx.argv.size() == 3) {
          return ctx.reply.Error(
              "FUNCTION FLUSH only supports SYNC|ASYNC option");
        }
        ReplySubcommandSyntaxError(ctx);
      });
  return c;
}

void Time(CommandContext& ctx) {
  const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  ctx.reply.Array(2);
  ctx.reply.Bulk(absl::StrCat(us / 1000000));
  ctx.reply.Bulk(absl::StrCat(us % 1000000));
}

// DEBUG SLEEP <seconds>: takes as long as a slow command would. DEBUG runs
// on the worker pool, so the connection's loop goes on serving its other
// connections meanwhile (the slow-command test checks this).
// Dispatch refuses it unless server.enable_debug_command allows it.
void Debug(CommandContext& ctx) {
  double seconds = 0;
  if (EqualsIgnoreCase(ctx.argv[1], "SLEEP") && ctx.argv.size() == 3 &&
      types::ParseRedisDouble(ctx.argv[2], &seconds) && seconds >= 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(
        static_cast<int64_t>(std::min(seconds, 60.0) * 1e6)));
    return ctx.reply.Ok();
  }
  ctx.reply.Error("trackdb supports only DEBUG SLEEP <seconds>");
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(server, table) {
  table->Add(CommandCommand());
  table->Add("info", -1, Info, {"loading", "stale"}, 0, 0, 0, RunsOn::kWorker);
  table->Add("dbsize", 1, Dbsize, {"readonly", "fast"}, 0, 0, 0,
             RunsOn::kWorker);
  table->Add("flushdb", -1, Flushdb, {"write"}, 0, 0, 0, RunsOn::kWorker);
  table->Add("flushall", -1, Flushall, {"write"}, 0, 0, 0, RunsOn::kWorker);
  table->Add("time", 1, Time, {"loading", "stale", "fast"}, 0, 0, 0);
  table->Add("debug", -2, Debug, {"admin", "noscript", "loading", "stale"}, 0,
             0, 0, RunsOn::kWorker);
  table->Add(FunctionFlush());
}

}  // namespace trackdb::resp
