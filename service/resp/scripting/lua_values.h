#ifndef TRACKDB_SERVICE_RESP_SCRIPTING_LUA_VALUES_H_
#define TRACKDB_SERVICE_RESP_SCRIPTING_LUA_VALUES_H_

// Redis 7.0's conversions between replies and Lua values, both ways.
//
// A reply to redis.call (RESP2, or RESP3 after redis.setresp(3)) becomes:
// an integer a number, a bulk string a string, a null false (RESP3's null
// nil), an array a table, a status {ok=...}, an error {err=...}; in RESP3
// also a boolean a boolean, a double {double=n}, a big number
// {big_number=s}, a verbatim string {verbatim_string={format=, string=}},
// a map {map={k=v}} and a set {set={k=true}}.
//
// A script's result becomes its reply, in the caller's protocol: a string
// a bulk string, a number an integer (truncated), true 1 and false a null
// (booleans if the script itself speaks RESP3: redis.setresp(3)), a table with
// `err` an error, with `ok` a status, with `double`, `map`, `set` or
// `big_number` those, any other table an array of its elements up to the first
// nil; nil a null.

#include <string>

#include "absl/strings/string_view.h"
#include "service/resp/protocol/reply.h"

extern "C" {
#include "lua5.1/lua.h"
}

namespace trackdb::resp::scripting {

// Pushes the Lua value of the one reply `reply` holds (as Reply wrote
// it); whether it is an error (then the pushed value is its err table).
bool PushReply(lua_State* L, absl::string_view reply);

// Writes the Lua value at the top of the stack (left there) as a reply;
// `script_protocol` is what the script set with redis.setresp.
void WriteReply(lua_State* L, Reply& reply, int script_protocol = 2);

// The error message of the error table at `index` (its `err`), and where
// the script raised it ("@user_script", line), if it says.
struct ErrorInfo {
  std::string message;
  std::string source;
  int line = 0;
};
ErrorInfo ReadErrorTable(lua_State* L, int index);

}  // namespace trackdb::resp::scripting

#endif  // TRACKDB_SERVICE_RESP_SCRIPTING_LUA_VALUES_H_
