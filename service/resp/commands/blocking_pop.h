#ifndef TRACKDB_SERVICE_RESP_COMMANDS_BLOCKING_POP_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_BLOCKING_POP_H_

// What the blocking pops share (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP,
// BZPOPMIN, BZPOPMAX, BZMPOP): Redis's timeout argument, and the wait
// between tries (pop_waiters.h). A try of the pops of one element runs on
// the event loop, as LPOP does; of BLMPOP and BZMPOP, which may pop many,
// on a worker (resp_server.h).
//
// A command that finds nothing to pop does not wait on its thread: it
// leaves BlockedPop (its place in line, its deadline) in the client's
// state and returns without a reply. Its connection then waits, holding
// no thread and no storage lock, for its turn after a push on one of its
// keys (once the push's transaction has committed), its deadline, or
// kRecheck (1 s), and runs the call again, which tries its keys again, in
// argument order, with the same place in line and deadline; past the
// deadline (0: never) it replies a null array as Redis does. Any number
// of clients may wait so (job queues' consumers), and the other commands
// go on. A key of another type makes the first try reply WRONGTYPE; on
// later tries it is skipped, as Redis 7.0 skips it when it serves a woken
// client. The recheck finds a key that arrives without a push (RENAME,
// COPY or MOVE onto a waited name, a GEOADD), if late.
//
// While it waits, the connection sends the replies of the calls before the
// pop, serves nothing else (a pipeline's later calls wait, as in Redis),
// and watches for the client hanging up: a client that goes away leaves
// the line at once, so that a later push goes to the next waiter.
//
// What differs from Redis, by design:
//  - Clients waiting on one key are served the longest waiting first, as
//    Redis serves them (PopWaiters::Ticket), but between a push and the
//    waiter's next try a plain pop (LPOP, ZPOPMIN, ...) of another client
//    may take the element first; Redis serves the waiters before any
//    other command.
//  - The timeout counts from the command's first try, not from its
//    arrival (a pipeline's earlier calls, or a busy worker pool for BLMPOP
//    and BZMPOP, may come between).
//  - Over TLS, a client that sends more bytes while it waits is no longer
//    watched for hanging up (its bytes stay unread until the pop is
//    served); if it then goes away, it leaves the line at its next try.
//  - Inside MULTI ... EXEC a pop does not wait, as in Redis: it replies a
//    null array when there is nothing to pop.
//  - Server shutdown ends every wait with a null array (or closes the
//    connection first).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/pop_waiters.h"

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

// One try of a blocking pop: replies what `attempt` replies, or a null
// array once `deadline` has passed, or else leaves ClientState::blocked
// for the connection to wait (see above). `popped` are the keys the tries
// pop from (storage names), in line there among the waiters of `kind`
// (PopWaiters::Ticket). A retry (ClientState::woken set) keeps the first
// try's place in line and deadline.
void BlockUntilServed(CommandContext& ctx, PopWaiters::Kind kind,
                      std::vector<std::string> popped, absl::Time deadline,
                      const BlockingTry& attempt);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_BLOCKING_POP_H_
