#include "service/resp/scripting/lua_values.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/scripting/lua_vm.h"

namespace trackdb::resp::scripting {
namespace {

class LuaValuesTest : public ::testing::Test {
 protected:
  void SetUp() override { L_ = luaL_newstate(); }
  void TearDown() override { lua_close(L_); }

  // The reply `lua` (an expression) makes, in `protocol`, from a script
  // speaking `script_protocol`.
  std::string ReplyOf(const std::string& lua, int protocol = 2,
                      int script_protocol = 2) {
    const std::string chunk = "return " + lua;
    EXPECT_EQ(luaL_loadstring(L_, chunk.c_str()), 0) << lua;
    EXPECT_EQ(lua_pcall(L_, 0, 1, 0), 0) << lua;
    std::string out;
    Reply reply(&out, protocol);
    WriteReply(L_, reply, script_protocol);
    lua_pop(L_, 1);
    return out;
  }

  // The reply `resp` read into Lua and written back out in `protocol`.
  std::string RoundTrip(const std::string& resp, int protocol, bool* error) {
    *error = PushReply(L_, resp);
    std::string out;
    Reply reply(&out, protocol);
    WriteReply(L_, reply, protocol);
    lua_pop(L_, 1);
    return out;
  }

  lua_State* L_ = nullptr;
};

TEST_F(LuaValuesTest, ScriptResultsBecomeRedisReplies) {
  EXPECT_EQ(ReplyOf("'hi'"), "$2\r\nhi\r\n");
  EXPECT_EQ(ReplyOf("3.99"), ":3\r\n");
  EXPECT_EQ(ReplyOf("-2.5"), ":-2\r\n");
  EXPECT_EQ(ReplyOf("true"), ":1\r\n");
  EXPECT_EQ(ReplyOf("false"), "$-1\r\n");
  EXPECT_EQ(ReplyOf("nil"), "$-1\r\n");
  EXPECT_EQ(ReplyOf("true", 3), ":1\r\n");
  EXPECT_EQ(ReplyOf("false", 3), "_\r\n");
  EXPECT_EQ(ReplyOf("true", 3, 3), "#t\r\n");
  EXPECT_EQ(ReplyOf("false", 3, 3), "#f\r\n");
  EXPECT_EQ(ReplyOf("false", 2, 3), ":0\r\n");
  EXPECT_EQ(ReplyOf("nil", 3), "_\r\n");
  EXPECT_EQ(ReplyOf("{1, 'a', {2}, nil, 5}"),
            "*3\r\n:1\r\n$1\r\na\r\n*1\r\n:2\r\n");
  EXPECT_EQ(ReplyOf("{ok='fine\\r\\nline'}"), "+fine  line\r\n");
  EXPECT_EQ(ReplyOf("{err='MY error'}"), "-MY error\r\n");
  EXPECT_EQ(ReplyOf("{double=1.5}"), "$3\r\n1.5\r\n");
  EXPECT_EQ(ReplyOf("{double=1.5}", 3), ",1.5\r\n");
  EXPECT_EQ(ReplyOf("{map={a=1}}", 3), "%1\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(ReplyOf("{map={a=1}}"), "*2\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(ReplyOf("{set={x=true}}", 3), "~1\r\n$1\r\nx\r\n");
  EXPECT_EQ(ReplyOf("{big_number='123'}", 3), "(123\r\n");
}

TEST_F(LuaValuesTest, RepliesReadIntoLuaAndBack) {
  bool error = false;
  EXPECT_EQ(RoundTrip(":42\r\n", 2, &error), ":42\r\n");
  EXPECT_FALSE(error);
  EXPECT_EQ(RoundTrip("$-1\r\n", 2, &error), "$-1\r\n");  // false
  EXPECT_EQ(RoundTrip("*2\r\n$1\r\na\r\n*-1\r\n", 2, &error),
            "*2\r\n$1\r\na\r\n$-1\r\n");
  EXPECT_EQ(RoundTrip("+OK\r\n", 2, &error), "+OK\r\n");
  EXPECT_EQ(RoundTrip("-WRONGTYPE bad kind\r\n", 2, &error),
            "-WRONGTYPE bad kind\r\n");
  EXPECT_TRUE(error);
  EXPECT_EQ(RoundTrip("%1\r\n$1\r\nk\r\n:1\r\n", 3, &error),
            "%1\r\n$1\r\nk\r\n:1\r\n");
  EXPECT_FALSE(error);
  EXPECT_EQ(RoundTrip(",2.5\r\n", 3, &error), ",2.5\r\n");
  EXPECT_EQ(RoundTrip("#t\r\n", 3, &error), "#t\r\n");
  EXPECT_EQ(RoundTrip("_\r\n", 3, &error), "_\r\n");
  EXPECT_EQ(RoundTrip("|1\r\n+a\r\n+b\r\n:7\r\n", 3, &error), ":7\r\n");
  EXPECT_EQ(RoundTrip("=8\r\ntxt:abcd\r\n", 3, &error), "=8\r\ntxt:abcd\r\n");
  // A null map key: no Lua table holds one, the pair is left out.
  EXPECT_EQ(RoundTrip("%2\r\n_\r\n:1\r\n$1\r\nk\r\n:2\r\n", 3, &error),
            "%1\r\n$1\r\nk\r\n:2\r\n");
}

// A script's text cannot break the reply stream.
TEST_F(LuaValuesTest, ScriptTextStaysInItsReply) {
  EXPECT_EQ(ReplyOf("{big_number='12\\r\\n+OK'}", 3), "(12  +OK\r\n");
  EXPECT_EQ(ReplyOf("{verbatim_string={format='markdown', string='x'}}", 3),
            "=5\r\nmar:x\r\n");
  EXPECT_EQ(ReplyOf("{verbatim_string={format='t', string='x'}}", 3),
            "=5\r\nt  :x\r\n");
  EXPECT_EQ(ReplyOf("0/0"), ":-9223372036854775808\r\n");
}

TEST_F(LuaValuesTest, ErrorTablesTakeRedisCodes) {
  PushErrorTable(L_, "-WRONGTYPE Operation against a key\r\n");
  EXPECT_EQ(ReadErrorTable(L_, -1).message,
            "WRONGTYPE Operation against a key");
  lua_pop(L_, 1);
  PushErrorTable(L_, "plain words");
  EXPECT_EQ(ReadErrorTable(L_, -1).message, "ERR plain words");
  lua_pop(L_, 1);
  PushErrorTable(L_, "-NOSPACE");
  EXPECT_EQ(ReadErrorTable(L_, -1).message, "ERR NOSPACE");
  lua_pop(L_, 1);
}

}  // namespace
}  // namespace trackdb::resp::scripting
