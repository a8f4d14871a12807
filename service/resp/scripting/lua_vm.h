#ifndef TRACKDB_SERVICE_RESP_SCRIPTING_LUA_VM_H_
#define TRACKDB_SERVICE_RESP_SCRIPTING_LUA_VM_H_

// The Lua 5.1 interpreter scripts run in, sandboxed as Redis 7.0's: the
// base, table, string and math libraries, cjson and bit; no print, dofile,
// loadfile, require, setfenv, getfenv, debug, os or io. Globals are read
// only (a write answers "Attempt to modify a readonly table", a read of an
// unknown name "Script attempted to access nonexistent global variable"),
// and so are the library tables. The `redis` table's functions are the
// ones script_run.h registers.
//
// One interpreter per process, used by one script at a time (mu()):
// scripts also run one at a time per server (ScriptState), and a compiled
// body stays compiled under its SHA1 for every server of the process (each
// server's own cache says which it knows).
//
// Lua raises errors with longjmp: the C functions it calls (lua_vm.cc,
// script_run.cc) raise only where no C++ object needs destroying.

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

extern "C" {
#include "lua5.1/lauxlib.h"
#include "lua5.1/lua.h"
#include "lua5.1/lualib.h"
}

namespace trackdb::resp::scripting {

class LuaVm {
 public:
  // The process's interpreter, set up at first use.
  static LuaVm& Get();

  absl::Mutex& mu() { return mu_; }
  lua_State* state() { return state_; }

  // Compiles `body` as the chunk "@user_script" under `sha`, unless it is
  // compiled already; Lua's message on a syntax error.
  std::optional<std::string> Compile(const std::string& sha,
                                     absl::string_view body);
  // Drops every compiled script (SCRIPT FLUSH), and collects the garbage.
  void ForgetAll();
  // Pushes the error handler, then the compiled function of `sha` (which
  // Compile made); returns the handler's stack index.
  int PushCall(const std::string& sha);
  // Sets the global `name` (KEYS, ARGV) to a table of `values`.
  void SetGlobalArray(const char* name, const std::string* values, size_t n);

 private:
  LuaVm();
  absl::Mutex mu_;
  lua_State* state_ = nullptr;
};

// Redis's error table: {err = "<CODE> <message>"} from "-CODE message",
// "CODE message" or a bare "message" (code ERR), as luaPushErrorBuff.
void PushErrorTable(lua_State* L, absl::string_view error);

}  // namespace trackdb::resp::scripting

#endif  // TRACKDB_SERVICE_RESP_SCRIPTING_LUA_VM_H_
