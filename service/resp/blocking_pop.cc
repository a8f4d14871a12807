#include "service/resp/blocking_pop.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "service/resp/redis_number.h"

namespace trackdb::resp {

std::optional<absl::Time> ParseDeadlineOrReply(CommandContext& ctx,
                                               const std::string& arg) {
  long double seconds = 0;
  if (!ParseRedisLongDouble(arg, &seconds)) {
    ctx.reply.Error("timeout is not a float or out of range");
    return std::nullopt;
  }
  const long double ms = std::ceil(seconds * 1000.0L);
  constexpr long double kLimit = 9223372036854775808.0L;  // 2^63
  // The x86 conversion Redis relies on turns what a long long cannot hold
  // into LLONG_MIN: negative.
  if (!(ms >= -kLimit && ms < kLimit) || ms < 0) {
    ctx.reply.Error("timeout is negative");
    return std::nullopt;
  }
  const int64_t tval = static_cast<int64_t>(ms);
  if (tval == 0) return absl::InfiniteFuture();
  return absl::Now() + absl::Milliseconds(tval);  // saturates: forever
}

void BlockUntilServed(CommandContext& ctx, PopWaiters::Kind kind,
                      std::vector<std::string> popped, absl::Time deadline,
                      const BlockingTry& attempt) {
  PopWaiters& waiters = ctx.server.pop_waiters();
  const PopWaiters::Ticket ticket(&waiters, kind, std::move(popped));
  for (bool first = true;; first = false) {
    const uint64_t seen = waiters.generation();
    if (attempt(ctx.reply, first, ticket)) return;
    // Inside EXEC a pop does not wait, as in Redis.
    if (ctx.client.in_exec) break;
    const absl::Time now = absl::Now();
    if (now >= deadline) break;
    // Other clients' commands (the push it waits for) and EXEC run
    // meanwhile (exec_gate.h).
    ExecGate::Released released(ctx.server.exec_gate());
    if (!waiters.WaitForPush(seen, std::min(deadline, now + kRecheck))) break;
  }
  ctx.reply.NullArray();
}

}  // namespace trackdb::resp
