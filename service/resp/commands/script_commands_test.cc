// EVAL, EVALSHA, EVAL_RO and SCRIPT compared byte for byte with a real
// redis-server 7.0: results in both protocols, errors with where they were
// raised, the sandbox, redis.call over every data type, and the cache.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using Argv = std::vector<std::string>;
using testing::Differential;

Argv Eval(const std::string& script, std::vector<std::string> keys = {},
          std::vector<std::string> args = {}) {
  Argv argv = {"EVAL", script, absl::StrCat(keys.size())};
  argv.insert(argv.end(), keys.begin(), keys.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

TEST(ScriptCommandsTest, ResultsBecomeReplies) {
  Differential d;
  const std::vector<Argv> calls = {
      Eval("return 1"),
      Eval("return 3.99"),
      Eval("return -7"),
      Eval("return 'text'"),
      Eval("return true"),
      Eval("return false"),
      Eval("return nil"),
      Eval("return {1, 2, {3, 'x'}, nil, 5}"),
      Eval("return {}"),
      Eval("return {ok = 'fine'}"),
      Eval("return redis.status_reply('X')"),
      Eval("return {err = 'My Error'}"),
      Eval("return redis.error_reply('My Error')"),
      Eval("return redis.error_reply('-CODE with words')"),
      Eval("return {double = 3.5}"),
      Eval("return {map = {a = 1}}"),
      Eval("return {set = {b = true}}"),
      Eval("return {big_number = '1234567890123456789'}"),
      Eval("return redis.sha1hex('')"),
      Eval("return redis.REDIS_VERSION"),
      Eval("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #ARGV}", {"k1", "k2"},
           {"a1", "a2"}),
      Eval("return cjson.encode({1, 2, {a = 1}})"),
      Eval("return cjson.decode('[1,2,3]')[2]"),
      Eval("return bit.band(12, 10) + bit.bxor(5, 1)"),
      Eval("return bit.tohex(255)"),
      Eval(
          "return string.format('%d-%s', 7, 'x') .. table.concat({1, 2}, ',')"),
      Eval("return tonumber('12') + #'abc'"),
      Eval("return type(loadstring)"),
      Eval("return {unpack({1, 2, 3})}"),
      Eval("return tostring(1e15)"),
  };
  testing::ExpectSameReplies(d, calls);
  testing::Resp3Both(d);
  testing::ExpectSameReplies(d, calls);
  testing::ExpectSameReplies(d, {Eval("redis.setresp(3); return true"),
                                 Eval("redis.setresp(3); return false")});
}

TEST(ScriptCommandsTest, ErrorsSayWhereTheyWereRaised) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             Eval("return x"),
             Eval("x = 1"),
             Eval("string.x = 1"),
             Eval("redis.call = 1"),
             Eval("local t = KEYS; KEYS = 1"),
             Eval("KEYS[1] = 1; return KEYS[1]"),
             Eval("return print"),
             Eval("return os.clock()"),
             Eval("return debug"),
             Eval("return setfenv"),
             Eval("error('boom')"),
             Eval("error({err = 'E1 boom'})"),
             Eval("\n\nerror('line three')"),
             Eval("return 1 +"),
             Eval("return redis.call('nosuch')"),
             Eval("return redis.call('set', 'a')"),
             Eval("return redis.pcall('set', 'a')"),
             Eval("return redis.call()"),
             Eval("return redis.call('get', {})"),
             Eval("return redis.call('multi')"),
             Eval("return redis.call('eval', 'return 1', '0')"),
             Eval("return redis.pcall('nosuch')"),
             Eval("return redis.pcall('hello')"),
             Eval("return redis.pcall('auth', 'x')"),
             Eval("return redis.pcall('client', 'list')"),
             Eval("return redis.pcall('config', 'get', 'x')"),
             Eval("return redis.pcall('acl', 'whoami')"),
             Eval("return redis.pcall('role')"),
             Eval("return redis.pcall('debug', 'sleep', '0')"),
             Eval("return redis.pcall('save')"),
             Eval("return redis.pcall('wait', '0', '0')"),
             Eval("return redis.pcall('echo', 'x')"),
             Eval("redis.call('set', 'str', 'v'); "
                  "return redis.call('lpush', 'str', 'x')"),
             Eval("return redis.pcall('lpush', 'str', 'x')"),
             Eval("return redis.sha1hex()"),
             Eval("return redis.setresp(4)"),
             Eval("return redis.log()"),
             Eval("return redis.error_reply(1)"),
             {"EVAL", "return 1", "-1"},
             {"EVAL", "return 1", "2", "a"},
             {"EVAL", "return 1", "x"},
             {"EVAL", "return 1"},
             {"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"},
             {"EVALSHA", "short", "0"},
         });
}

// Numbers given to redis.call are "%.17g" of them, as Redis writes them.
TEST(ScriptCommandsTest, NumberArgumentsAndResults) {
  Differential d;
  testing::ExpectSameReplies(
      d,
      {
          Eval("redis.call('rpush', 'l', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11); "
               "return redis.call('lrange', 'l', 0, 10)"),
          Eval("redis.call('set', 'k', 'v'); "
               "return redis.call('expire', 'k', 60)"),
          {"TTL", "k"},
          Eval("return redis.call('incrby', 'n', 20)"),
          Eval("return redis.call('set', 'f', 0.1)"),
          {"GET", "f"},
          Eval("return redis.call('set', 'f', 1e20)"),
          {"GET", "f"},
          Eval("return redis.call('set', 'f', 1/3)"),
          {"GET", "f"},
          Eval("return redis.call('set', 'f', -0.5)"),
          {"GET", "f"},
          Eval("return 0/0"),
          Eval("return 1/0"),
          Eval("return -1e30"),
          Eval("return 9007199254740993"),
      });
}

// What a script leaves is read raw: its metamethods do not run once it
// has ended, and the sandbox's tables cannot be written around.
TEST(ScriptCommandsTest, ResultsAreReadRawAndTheSandboxHolds) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             Eval("return setmetatable({}, {__index = function() "
                  "error('x') end})"),
             Eval("return setmetatable({1, 2}, {__index = function() "
                  "return redis.call('ping') end})"),
             Eval("rawset(_G, 'KEYS', {'mine'})"),
             Eval("rawset(redis, 'call', 1)"),
             Eval("return KEYS[1]", {"theirs"}),
             Eval("return type(getmetatable(''))"),
             Eval("local t = {} rawset(t, 'a', 1) return t.a"),
             Eval("return ('abc'):upper()"),
         });
}

// An error object whose reads raise: its `err` read raw (redis-server
// 7.0.15 crashes on this one, so trackdb alone).
TEST(ScriptCommandsTest, AnErrorObjectIsReadRaw) {
  testing::TrackdbResp server;
  testing::RawClient c(server.port());
  EXPECT_EQ(c.Call(Eval("error(setmetatable({err = 'E raw'}, {__index = "
                        "function() error('y') end}))")),
            "-E raw script: a6efc382ebd780e70b051fcee71f1030c7e7b19f, on "
            "@user_script:1.\r\n");
  EXPECT_EQ(c.Call({"PING"}), "+PONG\r\n");
}

TEST(ScriptCommandsTest, ShebangsAndReadOnlyScripts) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             Eval("#!lua\nreturn 5"),
             Eval("#!lua flags=no-writes\nreturn redis.call('get', 'x')"),
             Eval("#!lua flags=no-writes\nreturn redis.call('set', 'x', '1')",
                  {"x"}),
             Eval("#!lua flags=no-writes,allow-oom\nreturn 6"),
             Eval("#!lua flags=bogus\nreturn 5"),
             Eval("#!luax\nreturn 5"),
             Eval("#!lua name=x\nreturn 5"),
             Eval("#!lua"),
             {"EVAL_RO", "return redis.call('set', KEYS[1], '1')", "1", "x"},
             {"EVAL_RO", "return redis.call('get', KEYS[1])", "1", "x"},
             {"EVAL_RO", "#!lua\nreturn 1", "0"},
             {"EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"},
             {"EVAL_RO", "return redis.call('pfcount', KEYS[1])", "1", "h"},
             {"GET", "x"},
         });
}

TEST(ScriptCommandsTest, CallsReachEveryType) {
  Differential d;
  testing::ExpectSameReplies(
      d,
      {
          Eval("return redis.call('set', KEYS[1], ARGV[1])", {"s"}, {"v1"}),
          Eval("return redis.call('get', KEYS[1])", {"s"}),
          Eval("return redis.call('get', 'nosuch')"),
          Eval("return redis.call('incrby', 'n', 5) + redis.call('incr', 'n')"),
          Eval("redis.call('hset', 'h', 'f', 'v', 'g', 'w'); "
               "return redis.call('hgetall', 'h')"),
          Eval("redis.call('rpush', 'l', 'a', 'b', 'c'); "
               "return redis.call('lrange', 'l', 0, -1)"),
          Eval("redis.call('zadd', 'z', 1, 'a', 2.5, 'b'); "
               "return redis.call('zrange', 'z', 0, -1, 'withscores')"),
          Eval("return redis.call('zscore', 'z', 'b')"),
          Eval("redis.call('sadd', 'st', 'only'); "
               "return redis.call('smembers', 'st')"),
          Eval("return redis.call('geoadd', 'g', 13.361389, 38.115556, "
               "'Palermo')"),
          Eval("return redis.call('geopos', 'g', 'Palermo', 'none')"),
          Eval("return redis.call('blpop', 'empty', 0)"),
          Eval("return redis.call('type', 'h')['ok']"),
          Eval("return redis.call('select', 1)"),
          {"DBSIZE"},
          Eval("redis.setresp(3); return redis.call('hgetall', 'h')"),
          Eval("redis.setresp(3); local m = redis.call('hgetall', 'h'); "
               "return m['map']['f']"),
          Eval("redis.setresp(3); return redis.call('zscore', 'z', 'b')"),
          Eval("return redis.call('ping')"),
          Eval("return redis.call('exists', 's', 'h', 'nosuch')"),
          Eval("redis.setresp(3); return redis.call('hgetall', 'h')"),
          Eval("redis.setresp(3); return redis.call('zscore', 'z', 'b')"),
      });
  testing::Resp3Both(d);
  testing::ExpectSameReplies(
      d, {
             Eval("redis.setresp(3); return redis.call('hgetall', 'h')"),
             Eval("redis.setresp(3); return redis.call('zscore', 'z', 'b')"),
             Eval("return redis.call('hgetall', 'h')"),
         });
}

TEST(ScriptCommandsTest, TheCacheAndScriptSubcommands) {
  Differential d;
  testing::ExpectSameReplies(
      d, {
             {"SCRIPT", "LOAD", "return 'loaded'"},
             {"EVALSHA", "8aa9b9d9e4f2f2bc5d1b8c62a8fb7b1a4b5a58d1", "0"},
             {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
             Eval("return 1"),
             {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db",
              "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "ffff"},
             {"EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"},
             {"EVALSHA_RO", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"},
             {"SCRIPT", "LOAD", "return +"},
             {"SCRIPT", "LOAD", "#!lua flags=nope\nreturn 1"},
             {"SCRIPT", "KILL"},
             {"SCRIPT", "FLUSH"},
             {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
             {"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"},
             {"SCRIPT", "FLUSH", "ASYNC"},
             {"SCRIPT", "FLUSH", "LATER"},
             {"SCRIPT", "NOPE"},
             {"MULTI"},
             Eval("return redis.call('incr', 'm')"),
             {"SET", "m2", "x"},
             Eval("return redis.call('get', 'm2')"),
             {"EXEC"},
         });
  // SCRIPT LOAD's reply is the body's SHA1, which EVALSHA takes.
  const std::string sha = d.Call({"SCRIPT", "LOAD", "return ARGV[1]"}).redis;
  ASSERT_EQ(sha.size(), 47u);
  EXPECT_SAME_REPLY(d, {"EVALSHA", sha.substr(5, 40), "0", "arg"});
}

// A script's writes reach a replica as any client's (by their effects),
// and WAIT after EVAL waits for them: once it answers, the replica has
// them.
TEST(ScriptCommandsTest, ScriptsReplicateByEffectsAndWaitCoversThem) {
  testing::TrackdbResp primary;
  testing::TrackdbResp replica;
  testing::RawClient p(primary.port());
  testing::RawClient r(replica.port());
  ASSERT_EQ(r.Call({"REPLICAOF", "127.0.0.1", absl::StrCat(primary.port())}),
            "+OK\r\n");
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (p.Call({"WAIT", "1", "100"}) != ":1\r\n" && absl::Now() < deadline) {
  }
  for (int i = 0; i < 20; ++i) {
    const std::string value = absl::StrCat("v", i);
    ASSERT_EQ(p.Call(Eval("redis.call('set', KEYS[1], ARGV[1]); "
                          "return redis.call('incr', KEYS[2])",
                          {"k", "n"}, {value})),
              absl::StrCat(":", i + 1, "\r\n"));
    ASSERT_EQ(p.Call({"WAIT", "1", "5000"}), ":1\r\n");
    EXPECT_EQ(r.Call({"GET", "k"}),
              absl::StrCat("$", value.size(), "\r\n", value, "\r\n"));
  }
  EXPECT_EQ(r.Call({"GET", "n"}), "$2\r\n20\r\n");
  // A replica runs read-only scripts and refuses writes from any.
  EXPECT_EQ(r.Call(Eval("return redis.call('get', 'n')")), "$2\r\n20\r\n");
  EXPECT_EQ(r.Call(Eval("return redis.call('set', 'n', '1')")).substr(0, 10),
            "-READONLY ");
}

// A script is one transaction: concurrent read-modify-writes from several
// clients add up (trackdb only: a count).
TEST(ScriptCommandsTest, ScriptsAreAtomic) {
  testing::TrackdbResp server;
  constexpr int kClients = 4, kCalls = 100;
  const Argv incr = Eval(
      "local v = tonumber(redis.call('get', KEYS[1]) or '0'); "
      "redis.call('set', KEYS[1], tostring(v + 1)); return v + 1",
      {"counter"});
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      testing::RawClient client(server.port());
      for (int i = 0; i < kCalls; ++i) client.Call(incr);
    });
  }
  for (std::thread& t : clients) t.join();
  testing::RawClient check(server.port());
  EXPECT_EQ(check.Call({"GET", "counter"}),
            absl::StrCat("$3\r\n", kClients * kCalls, "\r\n"));
}

// Past busy-reply-threshold, other clients are answered BUSY; SCRIPT KILL
// stops a script that has not written, and refuses one that has, with
// Redis's words (checked against redis-server by hand: timing-bound).
TEST(ScriptCommandsTest, BusyScriptsAndScriptKill) {
  testing::TrackdbResp server;
  testing::RawClient admin(server.port());
  ASSERT_EQ(admin.Call({"CONFIG", "SET", "busy-reply-threshold", "100"}),
            "+OK\r\n");
  EXPECT_EQ(admin.Call({"SCRIPT", "KILL"}),
            "-NOTBUSY No scripts in execution right now.\r\n");
  std::string killed;
  std::thread runner([&] {
    testing::RawClient c(server.port());
    killed = c.Call(Eval("local i = 0 while true do i = i + 1 end"));
  });
  absl::SleepFor(absl::Milliseconds(400));
  const std::string busy =
      "-BUSY Redis is busy running a script. You can only call SCRIPT KILL "
      "or SHUTDOWN NOSAVE.\r\n";
  EXPECT_EQ(admin.Call({"PING"}), busy);
  EXPECT_EQ(admin.Call({"GET", "x"}), busy);
  EXPECT_EQ(admin.Call({"SCRIPT", "KILL"}), "+OK\r\n");
  runner.join();
  EXPECT_EQ(killed,
            "-ERR Script killed by user with SCRIPT KILL... script: "
            "3fcf51a9b854b8f66cb8685600b0d7df968f4398, on @user_script:1.\r\n");
  EXPECT_EQ(admin.Call({"PING"}), "+PONG\r\n");

  // A pcall around the loop does not keep a killed script going.
  std::thread dodger([&] {
    testing::RawClient c(server.port());
    killed = c.Call(
        Eval("while true do pcall(function() while true do end end) end"));
  });
  absl::SleepFor(absl::Milliseconds(400));
  EXPECT_EQ(admin.Call({"SCRIPT", "KILL"}), "+OK\r\n");
  dodger.join();
  EXPECT_THAT(killed, ::testing::StartsWith(
                          "-ERR Script killed by user with SCRIPT KILL..."));
  // MULTI is let through a busy script, so a pipelined transaction is
  // never half refused.
  std::thread sleeper([&] {
    testing::RawClient c(server.port());
    c.Call(
        Eval("local t = redis.call('time') "
             "while tonumber(redis.call('time')[1]) < t[1] + 2 do end"));
  });
  absl::SleepFor(absl::Milliseconds(400));
  EXPECT_EQ(admin.Call({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(admin.Call({"SET", "q", "1"}), busy);
  EXPECT_EQ(admin.Call({"EXEC"}).substr(0, 9), "-EXECABOR");
  sleeper.join();

  std::atomic<bool> done{false};
  std::thread writer([&] {
    testing::RawClient c(server.port());
    c.Call(
        Eval("redis.call('set', 'w', '1') "
             "local t = redis.call('time') "
             "while tonumber(redis.call('time')[1]) < t[1] + 2 do end"));
    done = true;
  });
  absl::SleepFor(absl::Milliseconds(400));
  EXPECT_EQ(admin.Call({"SCRIPT", "KILL"}),
            "-UNKILLABLE Sorry the script already executed write commands "
            "against the dataset. You can either wait the script termination "
            "or kill the server in a hard way using the SHUTDOWN NOSAVE "
            "command.\r\n");
  writer.join();
  EXPECT_TRUE(done.load());
  EXPECT_EQ(admin.Call({"GET", "w"}), "$1\r\n1\r\n");
}

}  // namespace
}  // namespace trackdb::resp
