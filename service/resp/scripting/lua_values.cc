#include "service/resp/scripting/lua_values.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "service/resp/scripting/lua_vm.h"

namespace trackdb::resp::scripting {
namespace {

// Reads replies as Reply writes them and pushes their Lua values.
class ReplyReader {
 public:
  explicit ReplyReader(absl::string_view in) : in_(in) {}

  // Pushes the next value (false when the bytes end or are not RESP).
  bool Push(lua_State* L, bool* is_error) {
    if (pos_ >= in_.size() || !lua_checkstack(L, 4)) return false;
    const char type = in_[pos_++];
    const absl::string_view line = Line();
    switch (type) {
      case '+':
        return PushField(L, "ok", line);
      case '-':
        PushErrorTable(L, absl::StrCat("-", line));
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "ignore_error_stats_update");
        if (is_error != nullptr) *is_error = true;
        return true;
      case ':':
        lua_pushnumber(L, static_cast<lua_Number>(Integer(line)));
        return true;
      case '$':
        return PushBulk(L, Integer(line));
      case '*':
      case '>':
        return PushArray(L, Integer(line));
      case '_':
        lua_pushnil(L);
        return true;
      case '#':
        lua_pushboolean(L, line == "t");
        return true;
      case ',':
        lua_newtable(L);
        lua_pushnumber(L, Double(line));
        lua_setfield(L, -2, "double");
        return true;
      case '(':
        return PushField(L, "big_number", line);
      default:
        return PushAggregate(L, type, line);
    }
  }

 private:
  absl::string_view Line() {
    const size_t end = in_.find("\r\n", pos_);
    const size_t stop = end == absl::string_view::npos ? in_.size() : end;
    absl::string_view line = in_.substr(pos_, stop - pos_);
    pos_ = stop + 2;
    return line;
  }
  static int64_t Integer(absl::string_view s) {
    int64_t v = 0;
    return absl::SimpleAtoi(s, &v) ? v : 0;
  }
  static double Double(absl::string_view s) {
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
    double v = 0;
    return absl::SimpleAtod(s, &v) ? v : NAN;
  }
  static bool PushField(lua_State* L, const char* field, absl::string_view v) {
    lua_newtable(L);
    lua_pushlstring(L, v.data(), v.size());
    lua_setfield(L, -2, field);
    return true;
  }
  // `len` bytes and their CRLF.
  absl::string_view Bytes(int64_t len) {
    absl::string_view s = in_.substr(pos_, static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len) + 2;
    return s;
  }
  bool PushBulk(lua_State* L, int64_t len) {
    if (len < 0) {
      lua_pushboolean(L, 0);
      return true;
    }
    const absl::string_view s = Bytes(len);
    lua_pushlstring(L, s.data(), s.size());
    return true;
  }
  bool PushArray(lua_State* L, int64_t n) {
    if (n < 0) {
      lua_pushboolean(L, 0);
      return true;
    }
    lua_createtable(L, static_cast<int>(n), 0);
    for (int64_t i = 1; i <= n; ++i) {
      if (!Push(L, nullptr)) return false;
      lua_rawseti(L, -2, static_cast<int>(i));
    }
    return true;
  }
  // RESP3's verbatim strings, maps, sets and attributes.
  bool PushAggregate(lua_State* L, char type, absl::string_view line) {
    const int64_t n = Integer(line);
    if (type == '=') {
      const absl::string_view s = Bytes(n);
      lua_newtable(L);
      lua_newtable(L);
      lua_pushlstring(L, s.data(), std::min<size_t>(3, s.size()));
      lua_setfield(L, -2, "format");
      const absl::string_view text = s.size() > 4 ? s.substr(4) : "";
      lua_pushlstring(L, text.data(), text.size());
      lua_setfield(L, -2, "string");
      lua_setfield(L, -2, "verbatim_string");
      return true;
    }
    if (type == '|') {  // an attribute: skipped, the value after it read
      for (int64_t i = 0; i < 2 * n; ++i) {
        if (!Push(L, nullptr)) return false;
        lua_pop(L, 1);
      }
      return Push(L, nullptr);
    }
    if (type != '%' && type != '~') return false;
    lua_newtable(L);
    lua_newtable(L);
    for (int64_t i = 0; i < n; ++i) {
      if (!Push(L, nullptr)) return false;
      if (type == '%') {
        if (!Push(L, nullptr)) return false;
      } else {
        lua_pushboolean(L, 1);
      }
      if (lua_isnil(L, -2)) {  // a null key: no table may hold it
        lua_pop(L, 2);
        continue;
      }
      lua_rawset(L, -3);
    }
    lua_setfield(L, -2, type == '%' ? "map" : "set");
    return true;
  }

  absl::string_view in_;
  size_t pos_ = 0;
};

// The string field `name` of the table at the top, if it is a string.
bool StringField(lua_State* L, const char* name, std::string* out) {
  lua_pushstring(L, name);  // raw: a script's metamethods run no more
  lua_rawget(L, -2);
  const bool is = lua_type(L, -1) == LUA_TSTRING;
  if (is) {
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    out->assign(s, len);
  }
  lua_pop(L, 1);
  return is;
}

// A RESP3 line reply (a big number): its text kept on one line.
void WriteRaw(Reply& reply, char type, std::string s) {
  if (reply.protocol() < 3) return reply.Bulk(s);
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  reply.EncodedNoted(absl::StrCat(std::string(1, type), s, "\r\n"));
}

void WriteTable(lua_State* L, Reply& reply, int resp);

void WriteValue(lua_State* L, Reply& reply, int resp) {
  if (!lua_checkstack(L, 4)) {
    return reply.Error("reached lua stack limit");
  }
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      return reply.Bulk(absl::string_view(s, len));
    }
    case LUA_TBOOLEAN:  // as the script's protocol has them
      if (resp >= 3) return reply.Bool(lua_toboolean(L, -1) != 0);
      return lua_toboolean(L, -1) ? reply.Integer(1) : reply.Null();
    case LUA_TNUMBER: {
      // As Redis's (long long) cast on x86: out of range, NaN and the
      // infinities are INT64_MIN.
      const double d = lua_tonumber(L, -1);
      const bool fits =
          d >= -9223372036854775808.0 && d < 9223372036854775808.0;
      return reply.Integer(fits ? static_cast<int64_t>(d) : INT64_MIN);
    }
    case LUA_TTABLE:
      return WriteTable(L, reply, resp);
    default:
      return reply.Null();
  }
}

// Pairs (or keys) of the table field at the top, written as a map or set.
void WriteMapOrSet(lua_State* L, Reply& reply, bool map, int resp) {
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    ++n;
    lua_pop(L, 1);
  }
  map ? reply.Map(n) : reply.Set(n);
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pushvalue(L, -2);  // the key, on top
    WriteValue(L, reply, resp);
    lua_pop(L, 1);
    if (map) WriteValue(L, reply, resp);
    lua_pop(L, 1);
  }
}

// A table field `name` that is itself a table, pushed; false (nothing
// pushed) if it is not.
bool TableField(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, -2);
  if (lua_istable(L, -1)) return true;
  lua_pop(L, 1);
  return false;
}

void WriteArray(lua_State* L, Reply& reply, int resp) {
  size_t n = 0;
  for (;;) {
    lua_rawgeti(L, -1, static_cast<int>(n + 1));
    const bool nil = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (nil) break;
    ++n;
  }
  reply.Array(n);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, -1, static_cast<int>(i));
    WriteValue(L, reply, resp);
    lua_pop(L, 1);
  }
}

void WriteTable(lua_State* L, Reply& reply, int resp) {
  std::string s;
  if (StringField(L, "err", &s)) {
    return reply.Error(absl::StrCat("-", ReadErrorTable(L, -1).message));
  }
  if (StringField(L, "ok", &s)) {
    for (char& c : s) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    return reply.Status(s);
  }
  lua_pushstring(L, "double");
  lua_rawget(L, -2);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    const double d = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return reply.Double(d);
  }
  lua_pop(L, 1);
  if (StringField(L, "big_number", &s)) return WriteRaw(reply, '(', s);
  if (TableField(L, "verbatim_string")) {
    std::string format, text;
    StringField(L, "format", &format);
    StringField(L, "string", &text);
    lua_pop(L, 1);
    if (reply.protocol() < 3) return reply.Bulk(text);
    format.resize(3, ' ');  // RESP3's verbatim format is three bytes
    return reply.EncodedNoted(
        absl::StrCat("=", text.size() + 4, "\r\n", format, ":", text, "\r\n"));
  }
  for (const char* kind : {"map", "set"}) {
    if (TableField(L, kind)) {
      WriteMapOrSet(L, reply, kind[0] == 'm', resp);
      lua_pop(L, 1);
      return;
    }
  }
  WriteArray(L, reply, resp);
}

}  // namespace

bool PushReply(lua_State* L, absl::string_view reply) {
  bool is_error = false;
  ReplyReader reader(reply);
  if (!reader.Push(L, &is_error)) {
    lua_pushnil(L);
    return false;
  }
  return is_error;
}

void WriteReply(lua_State* L, Reply& reply, int script_protocol) {
  WriteValue(L, reply, script_protocol);
}

ErrorInfo ReadErrorTable(lua_State* L, int index) {
  ErrorInfo info;
  lua_pushvalue(L, index);
  StringField(L, "err", &info.message);
  StringField(L, "source", &info.source);
  lua_pushstring(L, "line");
  lua_rawget(L, -2);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    info.line = static_cast<int>(lua_tonumber(L, -1));
  }
  lua_pop(L, 2);
  return info;
}

}  // namespace trackdb::resp::scripting
