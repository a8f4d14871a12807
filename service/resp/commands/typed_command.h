#ifndef TRACKDB_SERVICE_RESP_COMMANDS_TYPED_COMMAND_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_TYPED_COMMAND_H_

// What the hash, set, sorted-set and list command families share: running
// a command as one storage transaction (storage/format/typed_values.h) and the
// type check Redis makes before it touches a key.
//
// A command's body reads, decides, stages its writes and writes its reply
// into a scratch Reply; the reply is sent only once the transaction has
// committed, so that a storage error is the only reply. A body that
// replies an error (WRONGTYPE, a bad argument found late) must do so
// before staging any write, or return a non-OK status.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/protocol/reply.h"
#include "storage/format/typed_values.h"

namespace trackdb::resp {

// The most picks HRANDFIELD, SRANDMEMBER and ZRANDMEMBER make with a
// negative count (repeats allowed) from a non-empty key: their reply is
// built whole in memory, so a count near 2^63 would exhaust the server.
// Past it they answer "value is out of range".
inline constexpr uint64_t kMaxRepeatedPicks = 10'000'000;

// HRANDFIELD's and ZRANDMEMBER's arguments: key [count [WITHVALUES or
// WITHSCORES]].
struct RandomPickArgs {
  bool with_count = false;
  int64_t count = 0;
  bool with_values = false;  // WITHVALUES or WITHSCORES
};
// Redis's checks of them, in its order, `word` being WITHVALUES or
// WITHSCORES; false once it has replied an error.
bool ParseRandomPickArgs(CommandContext& ctx, absl::string_view word,
                         RandomPickArgs* args);
// The random picks' generator, one per thread.
std::mt19937_64& PickRandom();

// HSCAN, SSCAN and ZSCAN answer a small value whole, as Redis does a
// listpack or intset, only up to this many members, whatever CONFIG SET
// made the encoding limits: a limit raised past a huge key's size would
// otherwise read and reply the whole key on every call (Redis's existing
// hashtable stays one). Redis's default limits are far below it.
inline constexpr uint64_t kMaxWholeScan = 8192;

// The encoding Redis 7.0 gives the typed value `name` (object_encoding.h):
// by its size when that decides, else by its members, read until one
// rules the small encoding out (at most SetMaxIntsetEntries() of them).
absl::StatusOr<const char*> TypedEncoding(storage::TypedTxn& txn,
                                          const std::string& name,
                                          const storage::TypedMeta& meta);

// HSCAN's, SSCAN's and ZSCAN's options from argv[3] on: [MATCH pattern]
// [COUNT count], in any order, the last of each winning (Redis's
// scanGenericCommand for a key, without TYPE). False once it has replied
// an error into `reply`.
struct KeyScanOptions {
  int64_t count = 10;
  const std::string* pattern = nullptr;  // null (or "*"): every member
};
bool ParseKeyScanOptions(const std::vector<std::string>& argv, Reply& reply,
                         KeyScanOptions* options);
// A key's scan keeps its position as SCAN does: under a cursor number the
// server hands out (ServerState::SaveCursor), here the member to resume at,
// tagged with the command (`tag`) and the key's storage name so that no
// other key's or command's cursor matches.
int64_t SaveKeyScanCursor(ServerState& server, char tag,
                          const std::string& name, absl::string_view resume);
// The member a cursor resumes at; "" (the first) for a cursor this server
// does not know for this command and key.
std::string KeyScanResumeAt(ServerState& server, char tag, uint64_t cursor,
                            const std::string& name);

// Reads and pops of at most this many members run on the event loop.
inline constexpr int64_t kLoopMembers = 100;
// Whether a `key [count]` pop (LPOP, ZPOPMIN) takes at most kLoopMembers.
bool SmallPopCount(const std::vector<std::string>& argv);

using TypedBody =
    std::function<absl::Status(storage::TypedTxn& txn, Reply& reply)>;

// Runs `body` in one transaction over the storage names `names` (every
// name it touches), at NowMs(), and sends what it replied, or an internal
// error if the transaction failed. A command that overwrites a key of any
// type (a STORE destination) names it in `replaceable` too, so that the
// body may remove its string or GEO collection with
// TypedTxn::RemoveOtherTypes in the same batch.
void RunTyped(CommandContext& ctx, absl::Span<const std::string> names,
              const TypedBody& body,
              absl::Span<const std::string> replaceable = {});

// RunTyped for a command that serves some keys another way (a sorted-set
// command on a GEO key): a body that finds such a key returns FallBack()
// having replied and staged nothing. Alone, RunTypedOrFallBack then returns
// false and the caller serves the key; in a group, the group starts over
// with each call alone. True when the body served the call.
absl::Status FallBack();
bool RunTypedOrFallBack(CommandContext& ctx,
                        absl::Span<const std::string> names,
                        const TypedBody& body);

// Runs `body` on the key `name` (a storage name) of type `want` in one
// transaction (RunTyped), after Redis's type check: WRONGTYPE when it holds
// anything else. `meta` is the key's, nullopt when it does not exist, or
// with `create` a new, empty one (stored only if the body sets a size).
using TypedKeyBody = std::function<absl::Status(
    storage::TypedTxn& txn, std::optional<storage::TypedMeta>& meta,
    Reply& reply)>;
void RunOnKey(CommandContext& ctx, const std::string& name,
              storage::ValueType want, bool create, const TypedKeyBody& body);

// RunOnKey for a command that reads or changes an existing key: `absent`
// replies when there is none (nil, 0, an empty array: the command's own
// answer), else `body` runs on its meta.
using ExistingKeyBody = std::function<absl::Status(
    storage::TypedTxn& txn, storage::TypedMeta& meta, Reply& reply)>;
void RunOnExistingKey(CommandContext& ctx, const std::string& name,
                      storage::ValueType want,
                      const std::function<void(Reply&)>& absent,
                      const ExistingKeyBody& body);

// Wakes the blocking pops waiting on `name` (a storage name) once the
// call's push or store there has committed: now, or, for a call in a
// pipelined group, once the group's one transaction has.
void WakePoppers(CommandContext& ctx, const std::string& name);

// Group commit: makes each of `commands` (already in `table`: commands of
// one key, argv[1], that run on the event loop and touch the store only
// through RunTyped) serve a pipelined run of such commands, of any of the
// typed families and any keys, as ONE transaction and one batch, each
// call replied to as if it had run alone, in order (command.h JoinsGroup).
// Calls see the earlier calls' staged writes (TypedTxn reads them). A call
// that needs what a group cannot give (another key, a STORE, a failed
// read) makes the group start over with each call run alone, as does a
// failed commit.
void AddTypedGroup(CommandTable* table,
                   std::initializer_list<const char*> commands);

// The storage name that a pipelined run of typed calls (`calls`, started
// by `spec`, each joining the first) writes, when the run is one that holds
// that name's stripe exclusively: every call is on one key and the run
// does not go first as a read. Such runs go through KeyLanes
// (key_lanes.h), so that the loops do not wait for the stripe in turn.
// nullopt for any other run (reads share the stripe and run side by side).
std::optional<std::string> ExclusiveNameOfRun(
    ServerState& server, const ClientState& client, const CommandSpec& spec,
    absl::Span<const std::vector<std::string>> calls);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_TYPED_COMMAND_H_
