#include "service/resp/commands/blocking_pop.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "types/codec/redis_number.h"

namespace trackdb::resp {

std::optional<absl::Time> ParseDeadlineOrReply(CommandContext& ctx,
                                               const std::string& arg) {
  long double seconds = 0;
  if (!types::ParseRedisLongDouble(arg, &seconds)) {
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
  std::optional<BlockedPop> woken = std::exchange(ctx.client.woken, {});
  const bool first = !woken || woken->ticket == nullptr;
  std::shared_ptr<PopWaiters::Ticket> ticket =
      first ? std::make_shared<PopWaiters::Ticket>(&waiters, kind,
                                                   std::move(popped))
            : std::move(woken->ticket);
  if (!first) deadline = woken->deadline;
  const uint64_t seen = waiters.generation();
  if (attempt(ctx.reply, first, *ticket)) return;
  // Inside EXEC a pop does not wait, as in Redis; nor past its deadline or
  // once the server stops.
  if (ctx.client.in_exec || absl::Now() >= deadline || waiters.stopped()) {
    return ctx.reply.NullArray();
  }
  ctx.client.blocked.emplace(std::move(ticket), deadline, seen);
}

}  // namespace trackdb::resp
