// SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT], as Redis 7.0 answers it:
// a primary first waits up to 10 s (Redis's shutdown-timeout) for its
// replicas to apply every write it holds (not with NOW; SHUTDOWN ABORT from
// another client ends that wait and the shutdown), then the process closes
// the doors and the store as SIGTERM does. The store is durable: every
// acknowledged write is in its log, so NOSAVE loses nothing and the store
// is flushed on closing either way; SAVE flushes it before the stop, and a
// failed flush keeps the server running (with FORCE, it stops anyway). The
// client that stopped the server gets no reply: its connection closes.

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/replication/replication.h"

namespace trackdb::resp {
namespace {

constexpr char kShutdownFailed[] = "Errors trying to SHUTDOWN. Check logs.";
constexpr absl::Duration kReplicaWait = absl::Seconds(10);

struct ShutdownFlags {
  bool nosave = false, save = false, now = false, force = false;
  bool abort = false;
};

bool ParseShutdown(const std::vector<std::string>& argv, ShutdownFlags* f) {
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    bool* flag = EqualsIgnoreCase(a, "NOSAVE")  ? &f->nosave
                 : EqualsIgnoreCase(a, "SAVE")  ? &f->save
                 : EqualsIgnoreCase(a, "NOW")   ? &f->now
                 : EqualsIgnoreCase(a, "FORCE") ? &f->force
                 : EqualsIgnoreCase(a, "ABORT") ? &f->abort
                                                : nullptr;
    if (flag == nullptr) return false;
    *flag = true;
  }
  if (f->save && f->nosave) return false;
  // ABORT takes no other flag.
  return !f->abort || argv.size() == 2;
}

void Fail(CommandContext& ctx, const std::string& why) {
  std::fprintf(stderr, "trackd: SHUTDOWN failed: %s\n", why.c_str());
  ctx.server.shutdown_gate().Cancel();
  ctx.reply.Error(kShutdownFailed);
}

// Waits for every connected replica to hold what the store holds now; false
// when SHUTDOWN ABORT ended the wait. Past the deadline the shutdown goes
// on, as Redis's does.
bool AwaitReplicas(CommandContext& ctx) {
  if (storage::IsReplica(ctx.store())) return true;
  replication::ReplicaRegistry& replicas = ctx.server.role().replicas();
  const int n = static_cast<int>(replicas.Replicas().size());
  if (n == 0) return true;
  const uint64_t sequence = storage::LatestSequence(ctx.store());
  const bool went_on = ctx.server.shutdown_gate().Wait(
      [&] { return replicas.Acked(sequence) >= n; },
      absl::Now() + kReplicaWait);
  if (went_on && replicas.Acked(sequence) < n) {
    std::fprintf(stderr,
                 "trackd: SHUTDOWN: %d of %d replicas did not catch up "
                 "within %d s; stopping anyway\n",
                 n - replicas.Acked(sequence), n,
                 static_cast<int>(absl::ToInt64Seconds(kReplicaWait)));
  }
  return went_on;
}

void Shutdown(CommandContext& ctx) {
  ShutdownFlags flags;
  if (!ParseShutdown(ctx.argv, &flags)) return ctx.reply.Error(kSyntaxError);
  ShutdownGate& gate = ctx.server.shutdown_gate();
  if (flags.abort) {
    if (!gate.Abort()) return ctx.reply.Error("No shutdown in progress.");
    std::fprintf(stderr, "trackd: SHUTDOWN ABORT: the server goes on\n");
    return ctx.reply.Ok();
  }
  if (!gate.Begin()) {
    std::fprintf(stderr,
                 "trackd: SHUTDOWN refused: one is in progress, or this "
                 "server cannot stop its process\n");
    return ctx.reply.Error(kShutdownFailed);
  }
  if (!flags.now && !AwaitReplicas(ctx)) {
    std::fprintf(stderr,
                 "trackd: SHUTDOWN aborted while waiting for the "
                 "replicas\n");
    return ctx.reply.Error(kShutdownFailed);  // the gate ended it
  }
  if (flags.save) {
    if (absl::Status s = ctx.store().Flush(); !s.ok()) {
      if (!flags.force) return Fail(ctx, s.ToString());
      std::fprintf(stderr, "trackd: SHUTDOWN FORCE after: %s\n",
                   s.ToString().c_str());
    }
  }
  std::fprintf(stderr, "trackd: SHUTDOWN from client %lld (%s)\n",
               static_cast<long long>(ctx.client.id), ctx.client.addr.c_str());
  ctx.client.close_after_reply = true;
  gate.Finish();
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(shutdown, table) {
  CommandSpec spec{
      "shutdown", -1, {"admin", "noscript", "loading", "stale", "no-multi"}};
  // Its wait for the replicas holds a worker; ABORT, which ends that wait,
  // runs on the loop so that no worker need be free for it.
  spec.runs_on = RunsOn::kWorker;
  spec.loop_when = [](const std::vector<std::string>& argv) {
    return argv.size() == 2 && EqualsIgnoreCase(argv[1], "ABORT");
  };
  spec.handler = Shutdown;
  table->Add(std::move(spec));
}

}  // namespace trackdb::resp
