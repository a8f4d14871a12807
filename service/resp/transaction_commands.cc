// MULTI, EXEC, DISCARD, WATCH and UNWATCH: Redis transactions.
//
// After MULTI, Dispatch (command.cc) checks each call as it would run it
// and queues it ("+QUEUED"); a call it refuses (unknown, wrong arity, no
// permission, another node's slot) makes EXEC abort (EXECABORT), as in
// Redis. EXEC runs the queue in order on a worker, each call replied in
// EXEC's array as if it ran alone (an error is one element; the others
// still run), holding the exec gate exclusively (exec_gate.h): no other
// Redis client's command runs between them. Blocking pops in the queue do
// not wait (nil when there is nothing to pop) and WAIT answers at once, as
// Redis runs them inside EXEC.
//
// Not as in Redis: a transaction is isolated from other RESP clients but
// not from gRPC calls, and it is not one storage write: each call commits
// as it runs, so a crash in the middle of an EXEC keeps the calls that ran
// (Redis's AOF would drop the whole transaction on load).
//
// WATCH is refused: optimistic locking needs EXEC to fail when a watched
// key changed, which trackdb does not track; a client that relies on it
// gets an error rather than a transaction that would not fail.

#include <string>
#include <utility>
#include <vector>

#include "service/resp/command.h"
#include "service/resp/exec_gate.h"

namespace trackdb::resp {
namespace {

constexpr char kWatchNotServed[] =
    "trackdb does not serve WATCH: EXEC cannot yet fail on a changed key";

void Multi(CommandContext& ctx) {
  if (ctx.client.multi) return ctx.reply.Error("MULTI calls can not be nested");
  ctx.client.multi.emplace();
  ctx.client.multi_refused = false;
  ctx.reply.Ok();
}

void Discard(CommandContext& ctx) {
  if (!ctx.client.multi) return ctx.reply.Error("DISCARD without MULTI");
  ctx.client.multi.reset();
  ctx.reply.Ok();
}

void Exec(CommandContext& ctx) {
  if (!ctx.client.multi) return ctx.reply.Error("EXEC without MULTI");
  const std::vector<std::vector<std::string>> queued = ctx.client.multi->Take();
  ctx.client.multi.reset();
  if (ctx.client.multi_refused) {
    return ctx.reply.Error(
        "-EXECABORT Transaction discarded because of previous errors.");
  }
  ExecGate::Exclusive exclusive(ctx.server.exec_gate());
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
  ctx.reply.Error(kWatchNotServed);
}

// Nothing is ever watched, so there is nothing to forget.
void Unwatch(CommandContext& ctx) { ctx.reply.Ok(); }

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(transaction, table) {
  const std::vector<std::string> flags = {"noscript", "loading", "stale",
                                          "fast"};
  table->Add("multi", 1, Multi, flags, 0, 0, 0);
  table->Add("discard", 1, Discard, flags, 0, 0, 0);
  table->Add("exec", 1, Exec, {"noscript", "loading", "stale", "skip_slowlog"},
             0, 0, 0, RunsOn::kWorker);
  table->Add("watch", -2, Watch, flags, 1, -1, 1);
  table->Add("unwatch", 1, Unwatch, flags, 0, 0, 0);
}

}  // namespace trackdb::resp
