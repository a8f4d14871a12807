// MULTI, EXEC, DISCARD, WATCH and UNWATCH: Redis transactions.
//
// After MULTI, Dispatch (command.cc) checks each call as it would run it
// and queues it ("+QUEUED"); a call it refuses (unknown, wrong arity, no
// permission, another node's slot) makes EXEC abort (EXECABORT), as in
// Redis. In cluster mode EXEC is routed as one call over the keys of every
// queued call (command_keys.h): keys of two slots answer CROSSSLOT, and the
// transaction is discarded, as Redis Cluster does. EXEC runs the queue in
// order on a worker, each call replied in EXEC's array as if it ran alone
// (an error is one element; the others still run), holding the exec gate
// exclusively (exec_gate.h): no other Redis client's command runs between
// them. Blocking pops in the queue do
// not wait (nil when there is nothing to pop) and WAIT answers at once, as
// Redis runs them inside EXEC.
//
// Not as in Redis: a transaction is isolated from other RESP clients but
// not from gRPC calls, and it is not one storage write: each call commits
// as it runs, so a crash in the middle of an EXEC keeps the calls that ran
// (Redis's AOF would drop the whole transaction on load).
//
// WATCH remembers what each watched key holds (its value and expiry, the
// whole value read as DUMP reads it); EXEC, holding the gate, reads them
// again and answers nil without running anything if one differs. Redis
// fails EXEC on any write to a watched key, even one that leaves it as it
// was (SET of the same value, INCR then DECR); trackdb only on a key that
// holds something else, which is what a check-and-set needs. EXEC and
// DISCARD forget the watched keys, as UNWATCH does.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/clock.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/exec_gate.h"
#include "types/key_dump.h"

namespace trackdb::resp {
namespace {

// What the storage name `name` holds now, hashed: its value as DUMP
// serializes it and its expiry; the hash of "" for nothing.
absl::StatusOr<size_t> KeyState(storage::TrackStore& store,
                                const std::string& name) {
  absl::StatusOr<std::optional<types::DumpedKey>> dumped =
      types::DumpKey(store, name, NowMs());
  if (!dumped.ok()) return dumped.status();
  if (!*dumped) return absl::HashOf(std::string());
  return absl::HashOf((*dumped)->payload, (*dumped)->expire_at_ms);
}

// Whether every watched key still holds what it held at WATCH.
absl::StatusOr<bool> WatchedUnchanged(
    storage::TrackStore& store,
    const std::vector<std::pair<std::string, size_t>>& watched) {
  for (const auto& [name, then] : watched) {
    absl::StatusOr<size_t> now = KeyState(store, name);
    if (!now.ok()) return now.status();
    if (*now != then) return false;
  }
  return true;
}

void Multi(CommandContext& ctx) {
  if (ctx.client.multi) return ctx.reply.Error("MULTI calls can not be nested");
  ctx.client.multi.emplace();
  ctx.client.multi_refused = false;
  ctx.reply.Ok();
}

void Discard(CommandContext& ctx) {
  if (!ctx.client.multi) return ctx.reply.Error("DISCARD without MULTI");
  ctx.client.multi.reset();
  ctx.client.watched.clear();
  ctx.reply.Ok();
}

void Exec(CommandContext& ctx) {
  if (!ctx.client.multi) return ctx.reply.Error("EXEC without MULTI");
  const std::vector<std::vector<std::string>> queued = ctx.client.multi->Take();
  ctx.client.multi.reset();
  const std::vector<std::pair<std::string, size_t>> watched =
      std::move(ctx.client.watched);
  ctx.client.watched.clear();
  if (ctx.client.multi_refused) {
    return ctx.reply.Error(
        "-EXECABORT Transaction discarded because of previous errors.");
  }
  ExecGate::Exclusive exclusive(ctx.server.exec_gate());
  absl::StatusOr<bool> unchanged = WatchedUnchanged(ctx.store(), watched);
  if (!ctx.Check(unchanged.status())) return;
  if (!*unchanged) return ctx.reply.NullArray();
  ctx.client.in_exec = true;
  ctx.reply.Array(queued.size());
  for (const std::vector<std::string>& argv : queued) {
    Dispatch(ctx.server, ctx.client, argv, ctx.reply);
    ctx.reply.set_protocol(ctx.client.protocol);  // HELLO may change it
  }
  ctx.client.in_exec = false;
}

void Watch(CommandContext& ctx) {
  if (ctx.client.multi) {
    return ctx.reply.Error("WATCH inside MULTI is not allowed");
  }
  // Not in the middle of another client's EXEC.
  ExecGate::Shared shared(ctx.server.exec_gate(), /*take=*/true);
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    const std::string name = ctx.Name(ctx.argv[i]);
    absl::StatusOr<size_t> state = KeyState(ctx.store(), name);
    if (!ctx.Check(state.status())) return;
    ctx.client.watched.emplace_back(name, *state);
  }
  ctx.reply.Ok();
}

void Unwatch(CommandContext& ctx) {
  ctx.client.watched.clear();
  ctx.reply.Ok();
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(transaction, table) {
  const std::vector<std::string> flags = {"noscript", "loading", "stale",
                                          "fast"};
  table->Add("multi", 1, Multi, flags, 0, 0, 0);
  table->Add("discard", 1, Discard, flags, 0, 0, 0);
  table->Add("exec", 1, Exec, {"noscript", "loading", "stale", "skip_slowlog"},
             0, 0, 0, RunsOn::kWorker);
  // WATCH reads each key's whole value: on a worker.
  table->Add("watch", -2, Watch, flags, 1, -1, 1, RunsOn::kWorker);
  table->Add("unwatch", 1, Unwatch, flags, 0, 0, 0);
}

}  // namespace trackdb::resp
