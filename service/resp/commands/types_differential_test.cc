// Random command sequences over every Redis type trackdb serves (strings,
// hashes, sets, sorted sets, lists, GEO keys) and the key commands on all
// of them, replayed against a real redis-server 7.0 and trackdb, replies
// compared after every command: byte for byte, except where Redis leaves
// the order unspecified (HGETALL, HKEYS, HVALS, SMEMBERS, SINTER, SUNION,
// SDIFF, KEYS), which are compared as sorted lists of elements (HGETALL as
// sorted field-value pairs). A few keys and members are drawn from small
// pools, so commands meet each other's keys of every type: WRONGTYPE,
// STORE destinations of another type, RENAME and COPY across types,
// emptied keys, expiries set with absolute times.
//
// GEO keys (g0, g1) have a pool of their own that sorted-set writes never
// touch: a GEO key is a trackdb collection whose scores are positions, so
// ZADD on one is refused where Redis would take it (README).
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using Argv = std::vector<std::string>;

// The elements of a RESP2 reply that is an array of bulk strings (nested
// arrays flattened); nullopt if it is anything else.
std::optional<std::vector<std::string>> Elements(const std::string& reply) {
  if (reply.empty() || reply[0] != '*') return std::nullopt;
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < reply.size()) {
    const size_t eol = reply.find("\r\n", pos);
    if (eol == std::string::npos) return std::nullopt;
    const char kind = reply[pos];
    const long long n = std::stoll(reply.substr(pos + 1, eol - pos - 1));
    pos = eol + 2;
    if (kind == '*') continue;
    if (kind != '$') return std::nullopt;
    if (n < 0) {
      out.push_back("(nil)");
      continue;
    }
    out.push_back(reply.substr(pos, n));
    pos += n + 2;
  }
  return out;
}

// A reply in a form that does not depend on an order Redis leaves open.
std::string Canonical(const Argv& cmd, const std::string& reply) {
  static const char* kUnordered[] = {"HKEYS",  "HVALS", "SMEMBERS", "SINTER",
                                     "SUNION", "SDIFF", "KEYS"};
  const bool pairs = cmd[0] == "HGETALL";
  if (!pairs && std::find(std::begin(kUnordered), std::end(kUnordered),
                          cmd[0]) == std::end(kUnordered)) {
    return reply;
  }
  std::optional<std::vector<std::string>> items = Elements(reply);
  if (!items) return reply;
  std::vector<std::string> keys;
  for (size_t i = 0; i < items->size(); i += pairs ? 2 : 1) {
    keys.push_back(pairs && i + 1 < items->size()
                       ? absl::StrCat((*items)[i], "=", (*items)[i + 1])
                       : (*items)[i]);
  }
  std::sort(keys.begin(), keys.end());
  std::string out = absl::StrCat("sorted:", keys.size());
  for (const std::string& k : keys) absl::StrAppend(&out, "|", k);
  return out;
}

class Workload {
 public:
  // `wide`: half the commands come from the rest of each type's commands
  // (their options, STORE forms, ranges by rank, score and lex, expiries).
  explicit Workload(uint32_t seed, bool wide = false)
      : rng_(seed), wide_(wide) {}

  Argv Next() {
    if (wide_ && Pick(2) == 0) return NextWide();
    switch (Pick(5)) {
      case 0:
        return Hash();
      case 1:
        return Set();
      case 2:
        return Zset();
      case 3:
        return List();
      default:
        return KeyOrString();
    }
  }

 private:
  size_t Pick(size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }
  std::string Key() { return absl::StrCat("k", Pick(6)); }
  std::string GeoKey() { return absl::StrCat("g", Pick(2)); }
  // A key for a command that may meet a GEO key: any but a sorted-set
  // write, a STORE destination, or a RENAME/COPY into the other pool.
  std::string AnyKey() { return Pick(4) == 0 ? GeoKey() : Key(); }
  std::string Member() { return absl::StrCat("m", Pick(8)); }
  std::string Int() { return absl::StrCat(static_cast<int>(Pick(21)) - 10); }
  std::string Score() {
    static const char* kScores[] = {"0",    "1",   "-1",    "2.5", "1e3",
                                    "-inf", "inf", "0.125", "7",   "x"};
    return kScores[Pick(10)];
  }

  Argv Hash() {
    const std::string k = AnyKey();
    switch (Pick(9)) {
      case 0:
        return {"HSET", k, Member(), Int(), Member(), Int()};
      case 1:
        return {"HGET", k, Member()};
      case 2:
        return {"HDEL", k, Member(), Member()};
      case 3:
        return {"HGETALL", k};
      case 4:
        return {"HINCRBY", k, Member(), Int()};
      case 5:
        return {"HLEN", k};
      case 6:
        return {"HMGET", k, Member(), Member()};
      case 7:
        return {"HSETNX", k, Member(), Int()};
      default:
        return {"HKEYS", k};
    }
  }

  Argv Set() {
    const std::string k = Key();
    switch (Pick(9)) {
      case 0:
        return {"SADD", k, Member(), Member()};
      case 1:
        return {"SREM", k, Member()};
      case 2:
        return {"SMEMBERS", k};
      case 3:
        return {"SISMEMBER", k, Member()};
      case 4:
        return {"SCARD", k};
      case 5:
        return {"SINTERSTORE", Key(), k, AnyKey()};
      case 6:
        return {"SUNIONSTORE", Key(), k, Key()};
      case 7:
        return {"SMOVE", k, Key(), Member()};
      default:
        return {"SDIFF", k, AnyKey()};
    }
  }

  Argv Zset() {
    const std::string k = Key();
    const std::string r = AnyKey();  // for reads
    switch (Pick(10)) {
      case 0:
        return {"ZADD", k, Score(), Member(), Score(), Member()};
      case 1:
        return {"ZINCRBY", k, Score(), Member()};
      case 2:
        return {"ZRANGE", r, "0", "-1", "WITHSCORES"};
      case 3:
        return {"ZREM", k, Member()};
      case 4:
        return {"ZSCORE", r, Member()};
      case 5:
        return {"ZRANGEBYSCORE", r, "-inf", Score(), "WITHSCORES"};
      case 6:  // on any key (a GEO key's members go with their entities)
        return Pick(2) ? Argv{"ZPOPMIN", k} : Argv{"ZPOPMAX", r, "2"};
      case 7:
        return {"ZCARD", r};
      case 8:
        return {"ZUNIONSTORE", Key(), "2", k, AnyKey()};
      default:
        return {"ZRANK", r, Member()};
    }
  }

  Argv List() {
    const std::string k = AnyKey();
    switch (Pick(10)) {
      case 0:
        return {"LPUSH", k, Member(), Member()};
      case 1:
        return {"RPUSH", k, Member()};
      case 2:
        return {"LPOP", k};
      case 3:
        return {"RPOP", k, "2"};
      case 4:  // the whole list (on a worker) or a small range (the loop)
        return Pick(2) ? Argv{"LRANGE", k, "0", "-1"}
                       : Argv{"LRANGE", k, "1", "3"};
      case 5:
        return {"LREM", k, Int(), Member()};
      case 6:
        return {"LINSERT", k, Pick(2) ? "BEFORE" : "AFTER", Member(), "new"};
      case 7:
        return {"LTRIM", k, Int(), Int()};
      case 8:
        return {"LSET", k, Int(), Member()};
      default:
        return {"LMOVE", k, Key(), "LEFT", "RIGHT"};
    }
  }

  Argv KeyOrString() {
    const std::string k = AnyKey();
    // RENAME and COPY stay within a pool.
    const std::string other = k[0] == 'g' ? GeoKey() : Key();
    static const char* kTimes[] = {"1", "4102444800", "4102444900"};
    switch (Pick(12)) {
      case 0:
        return {"SET", k, Member()};
      case 1:
        return {"GET", k};
      case 2:
        return {"DEL", k};
      case 3:
        return {"EXISTS", k, Key()};
      case 4:
        return {"TYPE", k};
      case 5:
        return {"RENAME", k, other};
      case 6:
        return {"COPY", k, other, "REPLACE"};
      case 7:
        return {"EXPIREAT", k, kTimes[Pick(3)]};
      case 8:
        return {"EXPIRETIME", k};
      case 9:
        return {"PERSIST", k};
      case 10:
        return {"KEYS", "*"};
      default:
        return {"GEOADD", GeoKey(), "13.361389", "38.115556", Member()};
    }
  }

  Argv NextWide() {
    switch (Pick(5)) {
      case 0:
        return WideHash();
      case 1:
        return WideSet();
      case 2:
        return Pick(2) ? WideZsetRead() : WideZsetWrite();
      case 3:
        return WideList();
      default:
        return WideKey();
    }
  }

  std::string Float() {
    static const char* kFloats[] = {"0.1", "-2.5", "1e2", "3", "inf", "x"};
    return kFloats[Pick(6)];
  }
  // A COUNT or LIMIT: mostly valid, sometimes not.
  std::string Count() {
    static const char* kCounts[] = {"1", "2", "3", "10", "0", "-1"};
    return kCounts[Pick(6)];
  }
  std::string Lex() {
    static const char* kLex[] = {"-", "+", "[m2", "(m5", "[m7", "m3"};
    return kLex[Pick(6)];
  }

  Argv WideHash() {
    const std::string k = AnyKey();
    switch (Pick(5)) {
      case 0:
        return {"HVALS", k};
      case 1:
        return {"HEXISTS", k, Member()};
      case 2:
        return {"HSTRLEN", k, Member()};
      case 3:
        return {"HINCRBYFLOAT", k, Member(), Float()};
      default:
        return {"HSET", k, Member(), Float()};
    }
  }

  Argv WideSet() {
    const std::string k = Key();
    switch (Pick(6)) {
      case 0:
        return {"SMISMEMBER", k, Member(), Member()};
      case 1:
        return {"SINTER", k, AnyKey()};
      case 2:
        return {"SUNION", k, Key()};
      case 3:
        return {"SINTERCARD", "2", k, Key(), "LIMIT", Int()};
      case 4:
        return {"SDIFFSTORE", Key(), k, AnyKey()};
      default:
        return {"SADD", k, Member(), Member(), Member()};
    }
  }

  Argv WideZsetWrite() {
    const std::string k = Key();
    static const char* kFlags[] = {"NX", "XX", "GT", "LT", "CH", "INCR"};
    switch (Pick(9)) {
      case 7:
        return {"ZMPOP", "2",    AnyKey(), k, Pick(2) ? "MIN" : "MAX",
                "COUNT", Count()};
      case 8:  // served at once, or a null after 1 ms
        return {Pick(2) ? "BZPOPMIN" : "BZPOPMAX", AnyKey(), k, "0.001"};
      case 0:
        return {"ZADD", k, kFlags[Pick(6)], Score(), Member()};
      case 1:
        return {"ZADD", k, kFlags[Pick(6)], kFlags[Pick(6)], Score(), Member()};
      case 2:
        return {"ZREMRANGEBYSCORE", k, Score(), Score()};
      case 3:
        return {"ZREMRANGEBYRANK", k, Int(), Int()};
      case 4:
        return {"ZREMRANGEBYLEX", k, Lex(), Lex()};
      case 5:
        return {
            "ZINTERSTORE", Key(), "2",   k,           Key(),
            "WEIGHTS",     "2",   Int(), "AGGREGATE", Pick(2) ? "MIN" : "SUM"};
      default:
        return {"ZRANGESTORE", Key(), AnyKey(), Int(), Int()};
    }
  }

  Argv WideZsetRead() {
    const std::string r = AnyKey();
    switch (Pick(10)) {
      case 8:
        return {"ZLEXCOUNT", r, Lex(), Lex()};
      case 9:
        return {"ZINTERCARD", "2", Key(), r, "LIMIT", Count()};
      case 0:
        return {"ZMSCORE", r, Member(), Member()};
      case 1:
        return {"ZCOUNT", r, Score(), Score()};
      case 2:
        return {"ZRANGE", r, Int(), Int(), "REV", "WITHSCORES"};
      case 3:
        return {"ZRANGE", r, Lex(), Lex(), "BYLEX", "LIMIT", "0", Int()};
      case 4:
        return {"ZRANGE", r,       Score(), Score(), "BYSCORE",
                "REV",    "LIMIT", "1",     "2"};
      case 5:
        return {"ZREVRANK", r, Member()};
      case 6:
        return {"ZDIFF", "2", Key(), r, "WITHSCORES"};
      default:
        return {"ZUNION", "2", Key(), r, "AGGREGATE", "MAX", "WITHSCORES"};
    }
  }

  Argv WideList() {
    const std::string k = AnyKey();
    switch (Pick(10)) {
      case 8:
        return {"LMPOP", "2",    Key(), k, Pick(2) ? "LEFT" : "RIGHT",
                "COUNT", Count()};
      case 9:
        return {"BLMPOP", "0.001", "1", k, "LEFT"};
      case 0:
        return {"LINDEX", k, Int()};
      case 1:
        return {"LLEN", k};
      case 2:
        return {"LPOS",  k,    Member(), "RANK", Pick(2) ? "-1" : "1",
                "COUNT", Int()};
      case 3:
        return {"LMOVE", k, Key(), Pick(2) ? "LEFT" : "RIGHT",
                Pick(2) ? "LEFT" : "RIGHT"};
      case 4:
        return {"RPOPLPUSH", k, Key()};
      case 5:
        return {Pick(2) ? "LPUSHX" : "RPUSHX", k, Member()};
      case 6:
        return {"LPOP", k, Int()};
      default:
        return {"RPUSH", k, Member(), Member(), Member()};
    }
  }

  // No SORT here (sort_command_test has it): Redis converts a sorted set
  // it sorts to its skiplist encoding, after which a lex range over mixed
  // scores (which Redis leaves unspecified) answers by the skiplist's
  // random levels, where the small encoding and trackdb scan in order.
  Argv WideKey() {
    const std::string k = AnyKey();
    const std::string other = k[0] == 'g' ? GeoKey() : Key();
    // Absolute times only: both servers must answer alike although they
    // run a command a little apart (a relative expiry or TTL may not).
    static const char* kFlags[] = {"NX", "XX", "GT", "LT"};
    static const char* kTimes[] = {"4102444800", "4102444850", "4102444900"};
    switch (Pick(6)) {
      case 0:
        return {"EXPIREAT", k, kTimes[Pick(3)], kFlags[Pick(4)]};
      case 1:
        return {"PEXPIRETIME", k};
      case 2:
        return {"RENAMENX", k, other};
      case 3:
        return {"PEXPIREAT", k, "4102444800000"};
      case 4:
        return {"EXPIRETIME", k};
      default:
        return {"COPY", k, other};
    }
  }

  std::mt19937 rng_;
  bool wide_;
};

TEST(TypesDifferentialTest, RandomSequencesMatchRedisAfterEveryCommand) {
  Differential d;
  Workload work(20261127);
  std::map<std::string, int> errors;  // error kinds seen: the mix is real
  int mismatches = 0;
  for (int i = 0; i < 6000 && mismatches < 10; ++i) {
    const Argv cmd = work.Next();
    const auto r = d.Call(cmd);
    if (Canonical(cmd, r.trackdb) != Canonical(cmd, r.redis)) {
      ++mismatches;
      ADD_FAILURE() << "command " << i << ": " << ::testing::PrintToString(cmd)
                    << "\nredis:   " << r.redis << "\ntrackdb: " << r.trackdb;
    }
    if (r.redis[0] == '-') ++errors[r.redis.substr(0, r.redis.find(' '))];
  }
  // WRONGTYPE and ERR both happened: the workload meets types and errors.
  EXPECT_GT(errors["-WRONGTYPE"], 100);
  EXPECT_GT(errors["-ERR"], 10);
  // Both keyspaces end equal.
  for (const char* key : {"k0", "k1", "k2", "k3", "k4", "k5", "g0", "g1"}) {
    const auto r = d.Call({"TYPE", key});
    EXPECT_EQ(r.trackdb, r.redis) << key;
  }
}

// The rest of each type's commands, mixed with the workload above.
TEST(TypesDifferentialTest, WiderCommandsMatchRedisAfterEveryCommand) {
  Differential d;
  Workload work(20261128, /*wide=*/true);
  std::map<std::string, int> seen;  // commands that answered other than -ERR
  int mismatches = 0;
  for (int i = 0; i < 20000 && mismatches < 10; ++i) {
    const Argv cmd = work.Next();
    const auto r = d.Call(cmd);
    if (Canonical(cmd, r.trackdb) != Canonical(cmd, r.redis)) {
      ++mismatches;
      ADD_FAILURE() << "command " << i << ": " << ::testing::PrintToString(cmd)
                    << "\nredis:   " << r.redis << "\ntrackdb: " << r.trackdb;
    }
    if (r.redis[0] != '-') ++seen[cmd[0]];
  }
  // The wide commands did their work, not only their errors.
  for (const char* command :
       {"ZRANGESTORE", "ZINTERSTORE", "ZREMRANGEBYLEX", "HINCRBYFLOAT", "LPOS",
        "SINTERCARD", "ZDIFF", "RENAMENX", "EXPIREAT", "ZMPOP", "LMPOP",
        "ZLEXCOUNT", "ZINTERCARD"}) {
    EXPECT_GT(seen[command], 5) << command;
  }
}

// The same workload pipelined: runs of up to 40 commands sent in one
// write, so that runs of point commands on typed keys are served as one
// transaction (group commit, typed_command.h AddTypedGroup), mixed with
// commands that end a run. Every reply is compared, in order.
TEST(TypesDifferentialTest, PipelinedRunsMatchRedis) {
  Differential d;
  Workload work(7, /*wide=*/true);
  std::mt19937 rng(11);
  int mismatches = 0, commands = 0;
  for (int batch = 0; batch < 200 && mismatches < 10; ++batch) {
    std::vector<Argv> cmds;
    const int n = std::uniform_int_distribution<int>(1, 40)(rng);
    std::string wire;
    for (int i = 0; i < n; ++i) {
      cmds.push_back(work.Next());
      wire += testing::EncodeCommand(cmds.back());
    }
    d.redis().Send(wire);
    d.trackdb().Send(wire);
    for (const Argv& cmd : cmds) {
      const std::optional<std::string> r = d.redis().ReadReply();
      const std::optional<std::string> t = d.trackdb().ReadReply();
      ASSERT_TRUE(r && t) << ::testing::PrintToString(cmd);
      ++commands;
      if (Canonical(cmd, *t) != Canonical(cmd, *r)) {
        ++mismatches;
        ADD_FAILURE() << "batch " << batch << ": "
                      << ::testing::PrintToString(cmd) << "\nredis:   " << *r
                      << "\ntrackdb: " << *t;
      }
    }
  }
  EXPECT_GT(commands, 3000);
}

}  // namespace
}  // namespace trackdb::resp
