// Pins what the command families register: which families, which
// commands, and which of them run on the worker pool rather than on their
// connection's event loop. A family dropped from the link, or a command
// moved between the loop and the workers, fails here.
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/dispatch/command.h"

namespace trackdb::resp {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAreArray;

std::vector<std::string> CommandNames(const CommandTable& table,
                                      bool on_worker) {
  std::vector<std::string> names;
  for (const auto& [name, spec] : table.all()) {
    if ((spec.runs_on == RunsOn::kWorker) == on_worker) names.push_back(name);
  }
  return names;
}

TEST(CommandTableTest, FindAnswersInAnyCaseForItsOwnTable) {
  const std::unique_ptr<CommandTable> full = NewCommandTable();
  const CommandSpec* lpush = full->Find("lpush");
  ASSERT_NE(lpush, nullptr);
  EXPECT_EQ(full->Find("LPUSH"), lpush);
  EXPECT_EQ(full->Find("LPUSH"), lpush);
  EXPECT_EQ(full->Find("LpUsH"), lpush);
  EXPECT_EQ(full->Find("lpushx"), &full->all().at("lpushx"));
  EXPECT_EQ(full->Find("LPUSH"), &full->all().at("lpush"));
  // Another table, asked right after, answers from its own commands.
  CommandTable empty;
  EXPECT_EQ(empty.Find("LPUSH"), nullptr);
  EXPECT_EQ(full->Find("LPUSH"), lpush);
  // So does a table made where a destroyed one was.
  for (int i = 0; i < 4; ++i) {
    auto one = std::make_unique<CommandTable>();
    one->Add("only", 1, [](CommandContext&) {}, {});
    ASSERT_NE(one->Find("ONLY"), nullptr);
    one.reset();
    auto other = std::make_unique<CommandTable>();
    EXPECT_EQ(other->Find("ONLY"), nullptr);
  }
}

TEST(CommandTableTest, EveryFamilyRegisters) {
  EXPECT_THAT(
      CommandFamilyNames(),
      ElementsAre("bitmap", "cluster", "config", "connection", "dump_restore",
                  "fence", "geo", "geo_search", "hash", "hyperloglog", "key",
                  "list", "memory", "migrate", "object", "pubsub",
                  "replication", "save", "script", "server", "set", "shutdown",
                  "slowlog", "sort", "string", "track", "track_search",
                  "transaction", "zset", "zset_algebra", "zset_write"));
}

TEST(CommandTableTest, WorkerCommands) {
  const std::unique_ptr<CommandTable> table = NewCommandTable();
  EXPECT_THAT(
      CommandNames(*table, /*on_worker=*/true),
      UnorderedElementsAreArray<std::string>(
          {// Whole keyspace or database.
           "keys", "scan", "dbsize", "flushdb", "flushall", "info", "debug",
           // A GEO key's members: searches, ranges, copies.
           "geosearch", "geosearchstore", "georadius", "georadius_ro",
           "georadiusbymember", "georadiusbymember_ro", "zrange", "zrevrange",
           "zrangebyscore", "zrevrangebyscore", "zrangebylex", "zrevrangebylex",
           "zcount", "zrank", "zrevrank", "rename", "renamenx", "copy", "move",
           // A sorted set's ranges, pops, random picks, pages, and its
           // algebra (no index by rank: a rank is a walk).
           "zrandmember", "zscan", "zpopmin", "zpopmax", "zremrangebyscore",
           "zremrangebyrank", "zremrangebylex", "zrangestore", "zunion",
           "zinter", "zintercard", "zdiff", "zunionstore", "zinterstore",
           "zdiffstore", "zlexcount", "zmpop",
           // The blocking sorted-set pop that may pop many.
           "bzmpop",
           // A key's fences, the members inside one, its event log.
           "fence.list", "fence.state", "fence.events",
           // A range of a track, whole; history in space and time.
           "track.analyze", "track.search",
           // A hash's fields: whole, paged, or picked at random (no index
           // by rank: a pick reads up to its field).
           "hkeys", "hvals", "hgetall", "hscan", "hrandfield",
           // A set's members: whole, paged, picked at random (a walk), and
           // the set algebra.
           "smembers", "sscan", "spop", "srandmember", "sinter", "sunion",
           "sdiff", "sinterstore", "sunionstore", "sdiffstore", "sintercard",
           // SORT reads the whole key, and the keys its patterns name.
           "sort", "sort_ro",
           // LCS fills a table of |a| x |b| cells.
           "lcs",
           // DUMP and RESTORE read or write a whole key; MIGRATE also waits
           // on another server.
           "dump", "restore", "restore-asking", "migrate",
           // MEMORY USAGE reads up to SAMPLES members (all of them for 0);
           // RANDOMKEY walks a window of keys, past other databases'.
           "memory", "randomkey",
           // EXEC runs a transaction's queue, whatever its calls are;
           // WATCH reads its keys' whole values.
           "exec", "watch",
           // A list's ranges, counted pops, trims, and the changes in its
           // middle (LREM, LINSERT rewrite what shifts); the blocking pop
           // that may pop many.
           "lrange", "lpop", "rpop", "lmpop", "ltrim", "lrem", "linsert",
           "lpos", "blmpop",
           // Replication: a replica's pulls (which wait for writes), a full
           // sync's snapshot pieces, a store's digest, a migration's keys.
           "repl.pull", "repl.snapshot", "repl.digest", "repl.import",
           // SHUTDOWN waits for the replicas (its ABORT runs on the loop);
           // SAVE for its backup.
           "shutdown", "save",
           // PFSELFTEST adds ten million elements.
           "pfselftest",
           // A script runs as long as it runs, holding the exec gate.
           "eval", "evalsha", "eval_ro", "evalsha_ro"}));
}

TEST(CommandTableTest, LoopCommands) {
  const std::unique_ptr<CommandTable> table = NewCommandTable();
  EXPECT_THAT(
      CommandNames(*table, /*on_worker=*/false),
      UnorderedElementsAreArray<std::string>(
          {// connection
           "ping", "echo", "auth", "hello", "quit", "select", "client", "acl",
           // server
           "command", "time", "config", "function", "script",
           // cluster
           "cluster", "clusterx", "readonly", "readwrite", "asking",
           // replication (WAIT waits without a thread: resp_server.cc)
           "replicaof", "slaveof", "role", "wait",
           // key
           "del", "unlink", "exists", "touch", "type", "expire", "pexpire",
           "expireat", "pexpireat", "ttl", "pttl", "expiretime", "pexpiretime",
           "persist",
           // object: a key's encoding, from at most 512 members
           "object",
           // transaction: MULTI's state (EXEC runs on a worker)
           "multi", "discard", "unwatch",
           // string
           "get", "strlen", "getrange", "substr", "mget", "set", "setnx",
           "setex", "psetex", "getset", "mset", "msetnx", "getdel", "getex",
           "incr", "decr", "incrby", "decrby", "incrbyfloat", "append",
           "setrange",
           // bitmaps (on strings)
           "setbit", "getbit", "bitcount", "bitpos", "bitop", "bitfield",
           "bitfield_ro",
           // HyperLogLog (on strings): a merge is 16,384 registers a key
           "pfadd", "pfcount", "pfmerge", "pfdebug",
           // geo
           "geoadd", "geopos", "geodist", "geohash",
           // zset; the blocking pops of one member, whose waits hold no
           // thread
           "zcard", "zscore", "zmscore", "zrem", "zadd", "zincrby", "bzpopmin",
           "bzpopmax",
           // hash
           "hset", "hmset", "hsetnx", "hget", "hmget", "hdel", "hexists",
           "hlen", "hstrlen", "hincrby", "hincrbyfloat",
           // set
           "sadd", "srem", "sismember", "smismember", "scard", "smove",
           // list: pushes and moves at the ends, point reads and writes
           "lpush", "rpush", "lpushx", "rpushx", "llen", "lindex", "lset",
           "lmove", "rpoplpush", "blpop", "brpop", "blmove", "brpoplpush",
           // fence
           "fence.set", "fence.get", "fence.del",
           // track: a one-point read, a collection's retention
           "track.posat", "track.setretention", "track.getretention",
           // pubsub
           "subscribe", "psubscribe", "unsubscribe", "punsubscribe", "publish",
           "pubsub",
           // slowlog
           "slowlog",
           // backups: BGSAVE starts one on a thread of its own
           "bgsave", "lastsave"}));
}

TEST(CommandTableTest, RunsOnWorkerLooksUpAnyCase) {
  const std::unique_ptr<CommandTable> table = NewCommandTable();
  EXPECT_TRUE(table->RunsOnWorker({"KEYS", "*"}));
  EXPECT_TRUE(table->RunsOnWorker({"debug", "sleep", "1"}));
  EXPECT_FALSE(table->RunsOnWorker({"GET", "k"}));
  EXPECT_FALSE(table->RunsOnWorker({"config", "get", "x"}));
  EXPECT_FALSE(table->RunsOnWorker({"nosuchcommand"}));
  EXPECT_FALSE(table->RunsOnWorker({""}));
}

// A search of a small area runs on the loop; a large or unreadable one,
// and any that stores, on a worker.
TEST(CommandTableTest, SmallSearchesRunOnTheLoop) {
  auto table = NewCommandTable();
  using Argv = std::vector<std::string>;
  EXPECT_FALSE(
      table->RunsOnWorker(Argv{"GeoSearch", "k", "FROMLONLAT", "1", "2",
                               "BYRADIUS", "200", "m", "ASC", "COUNT", "10"}));
  EXPECT_FALSE(table->RunsOnWorker(
      Argv{"GEOSEARCH", "k", "frommember", "m", "bybox", "2", "2", "km"}));
  EXPECT_FALSE(table->RunsOnWorker(
      Argv{"GEORADIUS_RO", "k", "1", "2", "0.5", "mi", "WITHDIST"}));
  EXPECT_TRUE(table->RunsOnWorker(
      Argv{"GEOSEARCH", "k", "FROMLONLAT", "1", "2", "BYRADIUS", "1.1", "km"}));
  EXPECT_TRUE(table->RunsOnWorker(Argv{"GEOSEARCH", "k", "FROMLONLAT", "1", "2",
                                       "BYBOX", "2001", "1", "m"}));
  EXPECT_TRUE(table->RunsOnWorker(
      Argv{"GEOSEARCH", "k", "FROMLONLAT", "1", "2", "BYRADIUS", "x", "m"}));
  EXPECT_TRUE(table->RunsOnWorker(
      Argv{"GEOSEARCH", "k", "FROMLONLAT", "1", "2", "BYRADIUS", "1", "yd"}));
  EXPECT_TRUE(table->RunsOnWorker(
      Argv{"GEORADIUS", "k", "1", "2", "100", "m", "STORE", "d"}));
  EXPECT_TRUE(table->RunsOnWorker(Argv{"GEOSEARCHSTORE", "d", "k", "FROMLONLAT",
                                       "1", "2", "BYRADIUS", "100", "m"}));
}

// A list read or pop of a few elements, known from its arguments, runs on
// the loop; a long or open-ended one on a worker.
TEST(CommandTableTest, SmallListCallsRunOnTheLoop) {
  auto table = NewCommandTable();
  using Argv = std::vector<std::string>;
  EXPECT_FALSE(table->RunsOnWorker(Argv{"LRANGE", "k", "0", "9"}));
  EXPECT_FALSE(table->RunsOnWorker(Argv{"lrange", "k", "-10", "-1"}));
  EXPECT_FALSE(table->RunsOnWorker(Argv{"LRANGE", "k", "5", "2"}));
  EXPECT_TRUE(table->RunsOnWorker(Argv{"LRANGE", "k", "0", "-1"}));
  EXPECT_TRUE(table->RunsOnWorker(Argv{"LRANGE", "k", "0", "100"}));
  EXPECT_TRUE(table->RunsOnWorker(Argv{"LRANGE", "k", "x", "1"}));
  EXPECT_FALSE(table->RunsOnWorker(Argv{"LPOP", "k"}));
  EXPECT_FALSE(table->RunsOnWorker(Argv{"RPOP", "k", "100"}));
  EXPECT_TRUE(table->RunsOnWorker(Argv{"LPOP", "k", "101"}));
  EXPECT_TRUE(table->RunsOnWorker(Argv{"RPOP", "k", "1", "2"}));
  // A blocking pop of one element tries on the loop (its wait holds no
  // thread); BLMPOP, which may pop many, on a worker.
  EXPECT_FALSE(table->RunsOnWorker(Argv{"BLPOP", "k", "0"}));
  EXPECT_TRUE(table->RunsOnWorker(Argv{"BLMPOP", "0", "1", "k", "LEFT"}));
}

// Find takes a name in any case; a name longer than any command's (the
// lookup's buffer) still finds nothing rather than reading past it.
TEST(CommandTableTest, FindTakesAnyCase) {
  auto table = NewCommandTable();
  ASSERT_NE(table->Find("get"), nullptr);
  EXPECT_EQ(table->Find("GeT"), table->Find("get"));
  EXPECT_EQ(table->Find("GEORADIUSBYMEMBER_RO")->name, "georadiusbymember_ro");
  EXPECT_EQ(table->Find(""), nullptr);
  EXPECT_EQ(table->Find("gett"), nullptr);
  EXPECT_EQ(table->Find(std::string(40, 'g')), nullptr);
  // Every command by its name in upper case: names are lower case and
  // short enough for Find's buffer.
  for (const auto& [name, spec] : table->all()) {
    EXPECT_EQ(table->Find(absl::AsciiStrToUpper(name)), &spec) << name;
  }
}

// COMMAND INFO's flags as the commands carry them: which read only (their
// typed transactions share their keys' stripes), which write.
TEST(CommandTableTest, HasFlagReadsTheSpecsFlags) {
  auto table = NewCommandTable();
  EXPECT_TRUE(HasFlag(*table->Find("lrange"), "readonly"));
  EXPECT_FALSE(HasFlag(*table->Find("lrange"), "write"));
  EXPECT_TRUE(HasFlag(*table->Find("lpush"), "write"));
  EXPECT_FALSE(HasFlag(*table->Find("lpush"), "readonly"));
  EXPECT_FALSE(HasFlag(*table->Find("lpush"), "writ"));
}

// A pipelined run of hash, set, sorted-set and list point commands is one
// group whichever family each call is of; a call that runs on a worker or
// of another family ends it.
TEST(CommandTableTest, TypedPointCommandsOfEveryFamilyJoinOneGroup) {
  auto table = NewCommandTable();
  using Argv = std::vector<std::string>;
  const Argv first{"LPUSH", "l", "a"};
  const CommandSpec* spec = table->GroupStartedBy(first);
  ASSERT_NE(spec, nullptr);
  for (const Argv& next : {Argv{"hset", "h", "f", "v"}, Argv{"SADD", "s", "m"},
                           Argv{"ZADD", "z", "1", "m"}, Argv{"lpop", "l"}}) {
    EXPECT_TRUE(spec->joins(first, next)) << next[0];
  }
  for (const Argv& next : {Argv{"SET", "k", "v"}, Argv{"LPOP", "l", "1000"},
                           Argv{"GEOADD", "g", "1", "2", "m"}, Argv{"NOPE"}}) {
    EXPECT_FALSE(spec->joins(first, next)) << next[0];
  }
}

}  // namespace
}  // namespace trackdb::resp
