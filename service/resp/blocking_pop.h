#ifndef TRACKDB_SERVICE_RESP_BLOCKING_POP_H_
#define TRACKDB_SERVICE_RESP_BLOCKING_POP_H_

// What the blocking pops share (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP,
// BZPOPMIN, BZPOPMAX, BZMPOP): Redis's timeout argument, and the wait
// between tries (pop_waiters.h). Each runs on a worker (resp_server.h).
//
// A command that finds nothing to pop waits, holding no storage lock, on
// the server's PopWaiters, which every push wakes once its transaction has
// committed; it then tries its keys again, in argument order, until one
// has something or its timeout passes (0: never), when it replies a null
// array as Redis does. A key of another type makes the first try reply
// WRONGTYPE; on later tries it is skipped, as Redis 7.0 skips it when it
// serves a woken client. Waiters also try again every kRecheck (1 s), so
// that a key that arrives without a push (RENAME, COPY or MOVE onto a
// waited name, a GEOADD) is found too, if late.
//
// What differs from Redis, by design:
//  - A waiting client holds one worker thread (server.resp_worker_threads,
//    4 by default), for as long as it waits: forever with timeout 0. While
//    every worker waits, the other worker commands (KEYS, LRANGE of a long
//    range, more blocking pops, ...) queue until one is served; commands
//    that run on the loops (LPUSH and ZADD among them) go on, so a push
//    can always wake a waiter. The timeout counts from when the worker
//    starts the command, not from its arrival.
//  - Clients waiting on one key are served the longest waiting first, as
//    Redis serves them (PopWaiters::Ticket), but between a push and the
//    waiter's next try a plain pop (LPOP, ZPOPMIN, ...) of another client
//    may take the element first; Redis serves the waiters before any
//    other command.
//  - A waiting connection is not watched: a client that disconnects while
//    it waits keeps its worker until its timeout or a push, and a pop that
//    serves it then is lost with the connection.
//  - There is no MULTI, so the "blocking inside MULTI times out at once"
//    rule has nothing to apply to.
//  - Server shutdown ends every wait with a null array.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "service/resp/command.h"
#include "service/resp/pop_waiters.h"

namespace trackdb::resp {

// How often a waiting blocking command tries its keys without a push.
inline constexpr absl::Duration kRecheck = absl::Seconds(1);

// Redis's getTimeoutFromObjectOrReply in seconds: the milliseconds are
// rounded up (0.0001 waits 1 ms; -0.0001 is 0, forever), and a value
// outside what a long long holds reads as negative. nullopt once it has
// replied an error; InfiniteFuture for 0.
std::optional<absl::Time> ParseDeadlineOrReply(CommandContext& ctx,
                                               const std::string& arg);

// One try of a blocking command; `first` tells the first from the retries
// after a wake. It replies into `reply` when it is done (served, or an
// error), and replies nothing when it found nothing to pop. `ticket` says
// which keys it may pop from (PopWaiters::Ticket::First).
using BlockingTry = std::function<bool(Reply& reply, bool first,
                                       const PopWaiters::Ticket& ticket)>;

// Tries until a try replies, waiting for pushes in between, or replies a
// null array once `deadline` has passed. `popped` are the keys the tries
// pop from (storage names), in line there among the waiters of `kind`
// (PopWaiters::Ticket).
void BlockUntilServed(CommandContext& ctx, PopWaiters::Kind kind,
                      std::vector<std::string> popped, absl::Time deadline,
                      const BlockingTry& attempt);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_BLOCKING_POP_H_
