#ifndef TRACKDB_SERVICE_RESP_SCRIPTING_SCRIPT_RUN_H_
#define TRACKDB_SERVICE_RESP_SCRIPTING_SCRIPT_RUN_H_

// Running a Lua script as Redis 7.0's EVAL does: as one transaction (the
// exec gate held exclusively: no other client's command runs between its
// calls, as with MULTI/EXEC), its redis.call()s dispatched as a client of
// its own (the caller's user and database, RESP2 unless redis.setresp(3)
// says otherwise) whose blocking commands never block, and its result
// replied in the caller's protocol (lua_values.h).
//
// redis.call and redis.pcall check what Redis checks first (a known
// command, its arity, not one scripts may not run, no write from a
// read-only script; in a cluster, keys this node serves, all in the slot
// of the script's first key unless its shebang allows cross-slot keys)
// and then Dispatch the call, so a script's calls are
// refused, logged, counted and replicated as any client's: a script is
// replicated by its effects. A SCRIPT KILL stops a script that has not
// written at its next check (every 100,000 Lua instructions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "service/resp/dispatch/command.h"

namespace trackdb::resp::scripting {

// The SHA1 of `body` in lower-case hex.
std::string Sha1Hex(absl::string_view body);

// A script's "#!lua flags=..." first line (Redis's evalExtractShebangFlags):
// where its code starts (at the line's newline, so that line numbers
// hold) and whether it declared no-writes. An error text (as Reply::Error
// takes it) for a bad shebang.
struct Shebang {
  bool present = false;
  size_t code_at = 0;
  bool no_writes = false;
  bool allow_cross_slot_keys = false;
};
std::optional<std::string> ParseShebang(absl::string_view body, Shebang* out);

// Compiles `body` (the whole script, shebang included) under `sha`; the
// error reply text when it does not compile.
std::optional<std::string> CompileScript(const std::string& sha,
                                         absl::string_view body);

// SCRIPT FLUSH: the interpreter forgets every compiled script (any server
// of the process compiles its own again from its cache when it runs one).
void ForgetCompiled();

// Runs the script `body` (known by `sha`) with `keys` and `args` and
// replies its result or error into ctx.reply. False when it did not
// compile (its shebang or its code), which is then the reply.
bool RunScript(CommandContext& ctx, const std::string& sha,
               absl::string_view body, absl::Span<const std::string> keys,
               absl::Span<const std::string> args, bool read_only);

}  // namespace trackdb::resp::scripting

#endif  // TRACKDB_SERVICE_RESP_SCRIPTING_SCRIPT_RUN_H_
