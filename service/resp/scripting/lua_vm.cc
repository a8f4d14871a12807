#include "service/resp/scripting/lua_vm.h"

#include <cstdint>
#include <random>

#include "absl/strings/str_cat.h"

extern "C" {
#include "lua5.1/lua-bitop.h"
#include "lua5.1/lua-cjson.h"
}

namespace trackdb::resp::scripting {
namespace {

// Registry keys.
constexpr char kGlobals[] = "trackdb.globals";  // the real globals
constexpr char kScripts[] = "trackdb.scripts";  // sha -> compiled chunk
constexpr char kHandler[] = "trackdb.handler";  // the error handler
constexpr char kViews[] = "trackdb.views";  // the read-only views

// Whether the value at `index` is one of the read-only views.
bool IsView(lua_State* L, int index) {
  lua_getfield(L, LUA_REGISTRYINDEX, kViews);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  const bool view = lua_toboolean(L, -1) != 0;
  lua_pop(L, 2);
  return view;
}

// rawset, except into a read-only view.
int RawSet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (IsView(L, 1)) {
    // Raised from inside rawset, as Lua's own check would be: no position.
    lua_pushstring(L, "Attempt to modify a readonly table");
    return lua_error(L);
  }
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

// __newindex of every read-only table.
int ReadonlyNewIndex(lua_State* L) {
  return luaL_error(L, "Attempt to modify a readonly table");
}

// __index of the globals seen by scripts: the real globals' value, or an
// error for a name there is none of.
int GlobalIndex(lua_State* L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) return 1;
  return luaL_error(L,
                    "Script attempted to access nonexistent global variable "
                    "'%s'",
                    lua_tostring(L, 2) != nullptr ? lua_tostring(L, 2) : "?");
}

// Pushes a read-only view of the table at `index`: an empty table whose
// reads go to it and whose writes are refused.
void PushReadonlyView(lua_State* L, int index, lua_CFunction getter) {
  if (index < 0 && index > LUA_REGISTRYINDEX) index = lua_gettop(L) + 1 + index;
  lua_pushvalue(L, index);  // the table viewed
  const int viewed = lua_gettop(L);
  lua_newtable(L);  // the view
  lua_newtable(L);  // its metatable
  if (getter != nullptr) {
    lua_pushvalue(L, viewed);
    lua_pushcclosure(L, getter, 1);
  } else {
    lua_pushvalue(L, viewed);
  }
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_remove(L, viewed);
  lua_getfield(L, LUA_REGISTRYINDEX, kViews);  // remember it as a view
  lua_pushvalue(L, -2);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

// Redis's rand48, behind math.random and math.randomseed.
uint64_t rand48_state = 0x1234ABCD330EULL;
int32_t Rand48() {
  rand48_state = (0x5DEECE66DULL * rand48_state + 0xB) & ((1ULL << 48) - 1);
  return static_cast<int32_t>(rand48_state >> 17);
}

// math.random as Lua 5.1's, over rand48.
int MathRandom(lua_State* L) {
  constexpr int32_t kMax = 2147483647;
  const lua_Number r =
      static_cast<lua_Number>(Rand48() % kMax) / static_cast<lua_Number>(kMax);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      return 1;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, static_cast<lua_Number>(static_cast<int>(r * u) + 1));
      return 1;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(
          L, static_cast<lua_Number>(static_cast<int>(r * (u - l + 1)) + l));
      return 1;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
}

int MathRandomSeed(lua_State* L) {
  const int32_t seed = static_cast<int32_t>(luaL_checkint(L, 1));
  rand48_state =
      (static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E;
  return 0;
}

void OpenLibrary(lua_State* L, lua_CFunction open, const char* name) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

// The error handler: an error becomes Redis's table {err=..., source=...,
// line=...}, placed at the script's line (past a C function that raised).
constexpr char kHandlerSource[] = R"lua(
local dbg = ...
return function(err)
  local i = dbg.getinfo(2, 'nSl')
  if i and i.what == 'C' then
    i = dbg.getinfo(3, 'nSl')
  end
  if type(err) ~= 'table' then
    err = {err = 'ERR ' .. tostring(err)}
  end
  if i then
    err['source'] = i.source
    err['line'] = i.currentline
  end
  return err
end
)lua";

void InstallHandler(lua_State* L) {
  luaL_loadbuffer(L, kHandlerSource, sizeof(kHandlerSource) - 1, "=handler");
  lua_getglobal(L, "debug");
  lua_call(L, 1, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, kHandler);
}

void RemoveGlobals(lua_State* L) {
  for (const char* name :
       {"print", "dofile", "loadfile", "require", "module", "setfenv",
        "getfenv", "debug", "newproxy", "gcinfo", "package", "os", "io"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
}

// Makes the globals read only: scripts (and what they load) see a view of
// them, and the library tables are views too.
void ProtectGlobals(lua_State* L) {
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kViews);
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  const int real = lua_gettop(L);
  lua_pushcfunction(L, RawSet);
  lua_setfield(L, real, "rawset");
  for (const char* lib :
       {"redis", "string", "math", "table", "cjson", "bit", "coroutine"}) {
    lua_getfield(L, real, lib);
    if (lua_istable(L, -1)) {
      PushReadonlyView(L, -1, nullptr);
      lua_setfield(L, real, lib);
    }
    lua_pop(L, 1);
  }
  // Strings' methods come from the view of `string` too, so that
  // getmetatable('').__index is no way around it. (The metatable itself
  // stays writable: Lua 5.1 has no read-only tables.)
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  lua_getfield(L, real, "string");
  lua_setfield(L, -2, "__index");
  lua_pop(L, 2);
  lua_pushvalue(L, real);
  lua_setfield(L, LUA_REGISTRYINDEX, kGlobals);
  PushReadonlyView(L, real, GlobalIndex);
  lua_pushvalue(L, -1);
  lua_setfield(L, real, "_G");  // _G is the view too
  lua_replace(L, LUA_GLOBALSINDEX);
  lua_pop(L, 1);
}

}  // namespace

void RegisterRedisTable(lua_State* L);  // script_run.cc

LuaVm& LuaVm::Get() {
  static LuaVm* vm = new LuaVm();
  return *vm;
}

LuaVm::LuaVm() {
  lua_State* L = luaL_newstate();
  state_ = L;
  OpenLibrary(L, luaopen_base, "");
  OpenLibrary(L, luaopen_table, LUA_TABLIBNAME);
  OpenLibrary(L, luaopen_string, LUA_STRLIBNAME);
  OpenLibrary(L, luaopen_math, LUA_MATHLIBNAME);
  OpenLibrary(L, luaopen_debug, LUA_DBLIBNAME);
  lua_pushcfunction(L, luaopen_cjson);
  lua_call(L, 0, 1);
  lua_setglobal(L, "cjson");
  lua_pushcfunction(L, luaopen_bit);
  lua_call(L, 0, 1);
  lua_setglobal(L, "bit");
  lua_getglobal(L, "math");
  lua_pushcfunction(L, MathRandom);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, MathRandomSeed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  rand48_state = (static_cast<uint64_t>(std::random_device{}()) << 16) | 0x330E;
  RegisterRedisTable(L);
  InstallHandler(L);
  RemoveGlobals(L);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kScripts);
  ProtectGlobals(L);
}

std::optional<std::string> LuaVm::Compile(const std::string& sha,
                                          absl::string_view body) {
  lua_State* L = state_;
  lua_getfield(L, LUA_REGISTRYINDEX, kScripts);
  lua_getfield(L, -1, sha.c_str());
  const bool known = lua_isfunction(L, -1);
  lua_pop(L, 1);
  if (known) {
    lua_pop(L, 1);
    return std::nullopt;
  }
  if (luaL_loadbuffer(L, body.data(), body.size(), "@user_script") != 0) {
    std::string error =
        lua_tostring(L, -1) != nullptr ? lua_tostring(L, -1) : "unknown error";
    lua_pop(L, 2);
    return error;
  }
  lua_setfield(L, -2, sha.c_str());
  lua_pop(L, 1);
  return std::nullopt;
}

void LuaVm::ForgetAll() {
  lua_newtable(state_);
  lua_setfield(state_, LUA_REGISTRYINDEX, kScripts);
  lua_gc(state_, LUA_GCCOLLECT, 0);
}

int LuaVm::PushCall(const std::string& sha) {
  lua_State* L = state_;
  lua_getfield(L, LUA_REGISTRYINDEX, kHandler);
  const int handler = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, kScripts);
  lua_getfield(L, -1, sha.c_str());
  lua_remove(L, -2);
  return handler;
}

void LuaVm::SetGlobalArray(const char* name, const std::string* values,
                           size_t n) {
  lua_State* L = state_;
  lua_getfield(L, LUA_REGISTRYINDEX, kGlobals);
  lua_createtable(L, static_cast<int>(n), 0);
  for (size_t i = 0; i < n; ++i) {
    lua_pushlstring(L, values[i].data(), values[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}

void PushErrorTable(lua_State* L, absl::string_view error) {
  absl::string_view code = "ERR", msg = error;
  if (!error.empty() && error[0] == '-') {
    const size_t space = error.find(' ');
    if (space == absl::string_view::npos) {
      msg = error.substr(1);
    } else {
      code = error.substr(1, space - 1);
      msg = error.substr(space + 1);
    }
  }
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == '\r')) {
    msg.remove_suffix(1);
  }
  while (!msg.empty() && (msg.front() == '\n' || msg.front() == '\r')) {
    msg.remove_prefix(1);
  }
  const std::string final_msg = absl::StrCat(code, " ", msg);
  lua_newtable(L);
  lua_pushlstring(L, final_msg.data(), final_msg.size());
  lua_setfield(L, -2, "err");
}

}  // namespace trackdb::resp::scripting
