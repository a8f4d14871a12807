// Pins what the command families register: which families, which
// commands, and which of them run on the worker pool rather than on their
// connection's event loop. A family dropped from the link, or a command
// moved between the loop and the workers, fails here.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/command.h"

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

TEST(CommandTableTest, EveryFamilyRegisters) {
  EXPECT_THAT(CommandFamilyNames(),
              ElementsAre("connection", "geo", "geo_search", "key", "server",
                          "string", "zset"));
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
           "zcount", "zrank", "zrevrank", "rename", "renamenx", "copy",
           "move"}));
}

TEST(CommandTableTest, LoopCommands) {
  const std::unique_ptr<CommandTable> table = NewCommandTable();
  EXPECT_THAT(CommandNames(*table, /*on_worker=*/false),
              UnorderedElementsAreArray<std::string>(
                  {// connection
                   "ping", "echo", "auth", "hello", "quit", "select", "client",
                   // server
                   "command", "time", "config", "function", "script",
                   // key
                   "del", "unlink", "exists", "touch", "type", "expire",
                   "pexpire", "expireat", "pexpireat", "ttl", "pttl",
                   "expiretime", "pexpiretime", "persist",
                   // string
                   "get", "strlen", "getrange", "substr", "mget", "set",
                   "setnx", "setex", "psetex", "getset", "mset", "msetnx",
                   "getdel", "getex", "incr", "decr", "incrby", "decrby",
                   "incrbyfloat", "append", "setrange",
                   // geo
                   "geoadd", "geopos", "geodist", "geohash",
                   // zset
                   "zcard", "zscore", "zmscore", "zrem"}));
}

TEST(CommandTableTest, RunsOnWorkerLooksUpAnyCase) {
  const std::unique_ptr<CommandTable> table = NewCommandTable();
  EXPECT_TRUE(table->RunsOnWorker("KEYS"));
  EXPECT_TRUE(table->RunsOnWorker("GeoSearch"));
  EXPECT_TRUE(table->RunsOnWorker("debug"));
  EXPECT_FALSE(table->RunsOnWorker("GET"));
  EXPECT_FALSE(table->RunsOnWorker("config"));
  EXPECT_FALSE(table->RunsOnWorker("nosuchcommand"));
  EXPECT_FALSE(table->RunsOnWorker(""));
}

}  // namespace
}  // namespace trackdb::resp
