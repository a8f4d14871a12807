// Every command of trackdb's RESP command table, run beside a real
// redis-server 7.0 from a table of rows: valid forms, wrong arity, bad
// numbers, bad options, wrong types, oversized names. For each row:
//  - the verdict (error or not) is Redis's;
//  - an error's text is Redis's, byte for byte, unless the row says why
//    trackdb's differs on purpose;
//  - an error writes nothing on trackdb (its keyspace, read through a
//    separate connection, is the same before and after).
// Accepted replies are compared by verdict only: many carry times, ids or
// server details (INFO, CLIENT LIST, TIME) that differ by nature, and the
// command families' own differential tests compare them byte for byte.
//
// The rows are grouped by command; each group starts from the same small
// keyspace on both servers and runs its rows in order, so a row may rely on
// the writes of the accepted rows before it. The table is read from
// NewCommandTable(), so a command or subcommand without rows fails the test.
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/testing/resp_test_client.h"
#include "service/resp/testing/verdict_table_rows.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using testing::RawClient;
using testing::VerdictRow;

// Table entries: "get", and "config|get" for a subcommand.
std::set<std::string> TableEntries() {
  std::set<std::string> names;
  const std::unique_ptr<CommandTable> table = NewCommandTable();
  for (const auto& [name, spec] : table->all()) {
    names.insert(name);
    for (const auto& [sub, unused] : spec.subcommands) {
      names.insert(absl::StrCat(name, "|", sub));
    }
  }
  return names;
}

// The request of a row: its words, with placeholders for what cannot be
// written in one: <empty> an empty argument, <long> a 1025-byte one (one
// byte over model/limits.h's name limits), <huge> a 200 KiB one.
std::vector<std::string> Request(const std::string& words) {
  std::vector<std::string> argv;
  for (absl::string_view w : absl::StrSplit(words, ' ', absl::SkipEmpty())) {
    if (w == "<empty>") {
      argv.emplace_back();
    } else if (w == "<long>") {
      argv.emplace_back(1025, 'k');
    } else if (w == "<huge>") {
      argv.emplace_back(200 * 1024, 'h');
    } else {
      argv.emplace_back(w);
    }
  }
  return argv;
}

// Arity rows from the table's own arities: one argument too few, and one
// too many for a fixed arity. Arguments are "1"s after the command words.
std::vector<VerdictRow> ArityRows(const std::string& entry, int arity) {
  const std::vector<std::string> words = absl::StrSplit(entry, '|');
  std::vector<VerdictRow> rows;
  // Module-style names (FENCE.SET) are trackdb's own, and Kvrocks's
  // CLUSTERX, which Redis lacks.
  const bool own = absl::StrContains(words[0], '.') || words[0] == "clusterx";
  const auto row = [&](int argc) {
    std::string req = absl::AsciiStrToUpper(absl::StrJoin(words, " "));
    for (int i = static_cast<int>(words.size()); i < argc; ++i) {
      absl::StrAppend(&req, " 1");
    }
    if (own) {
      rows.push_back({entry, req, VerdictRow::kOwn, "a trackdb command"});
    } else {
      rows.push_back({entry, req});
    }
  };
  const int min = arity < 0 ? -arity : arity;
  if (min - 1 >= static_cast<int>(words.size())) row(min - 1);
  if (arity > 0) row(arity + 1);
  return rows;
}

int ArityOf(const std::string& entry) {
  const std::vector<std::string> words = absl::StrSplit(entry, '|');
  auto table = NewCommandTable();
  const CommandSpec* spec = table->Find(words[0]);
  if (words.size() == 2) spec = &spec->subcommands.at(words[1]);
  return spec->arity;
}

// What a row may write or read: the fixture's keys and every word of the
// row (most are keys, the others cost only a TYPE).
std::vector<std::string> TouchedKeys(const std::vector<std::string>& argv) {
  std::set<std::string> keys = {"g", "s", "n", "h", "st", "dst", "z"};
  keys.insert(argv.begin() + 1, argv.end());
  return {keys.begin(), keys.end()};
}

// trackdb's keyspace as far as `keys` go, in databases 0 and 1, read on a
// fresh connection (authenticated with `password` if set) so that the
// row's connection state is untouched.
std::string Dump(int port, const std::string& password,
                 const std::vector<std::string>& keys) {
  RawClient c(port);
  if (!password.empty()) c.Call({"AUTH", password});
  std::string out;
  for (const char* db : {"0", "1"}) {
    absl::StrAppend(&out, c.Call({"SELECT", db}), c.Call({"DBSIZE"}));
    for (const std::string& k : keys) {
      const std::string type = c.Call({"TYPE", k});
      absl::StrAppend(&out, k.substr(0, 20), k.size(), type);
      if (type == "+string\r\n") absl::StrAppend(&out, c.Call({"GET", k}));
      if (type == "+zset\r\n") {
        absl::StrAppend(&out, c.Call({"ZRANGE", k, "0", "-1", "WITHSCORES"}));
      }
      if (type == "+hash\r\n") absl::StrAppend(&out, c.Call({"HGETALL", k}));
      if (type == "+set\r\n") absl::StrAppend(&out, c.Call({"SMEMBERS", k}));
      if (type == "+list\r\n") {
        absl::StrAppend(&out, c.Call({"LRANGE", k, "0", "-1"}));
      }
      if (type != "+none\r\n") {
        absl::StrAppend(&out, c.Call({"PEXPIRETIME", k}));
      }
    }
  }
  return out;
}

bool IsError(const std::string& reply) {
  return !reply.empty() && reply[0] == '-';
}

// The same keys on both servers, in database 0.
void Fixture(int port, const std::string& password) {
  RawClient c(port);
  if (!password.empty()) c.Call({"AUTH", password});
  const std::vector<std::vector<std::string>> setup = {
      {"FLUSHALL"},
      {"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269",
       "37.502669", "Catania"},
      {"SET", "s", "hello"},
      {"SET", "n", "10"},
      {"HSET", "h", "f", "v", "n", "5", "x", "1.5"},
      {"SADD", "st", "a", "b", "c"},
  };
  for (const auto& argv : setup) {
    ASSERT_FALSE(IsError(c.Call(argv))) << argv[0];
  }
}

// Runs one group's rows on both servers; returns how many ran. With a
// `password` (both servers require it), the rows run unauthenticated, and
// a row's allowed difference is one of text only: both must refuse it.
// With `resp3`, the rows' connections speak RESP3 (HELLO 3).
int RunGroup(Differential& d, const std::vector<VerdictRow>& rows,
             const std::string& password = "", bool resp3 = false) {
  const int port = d.trackdb_server().port();
  Fixture(d.redis_port(), password);
  Fixture(port, password);
  RawClient redis(d.redis_port());
  RawClient trackdb(port);
  if (resp3) {
    EXPECT_FALSE(IsError(redis.Call({"HELLO", "3"})));
    EXPECT_FALSE(IsError(trackdb.Call({"HELLO", "3"})));
  }
  for (VerdictRow row : rows) {
    if (!password.empty() && row.differs == VerdictRow::kVerdict) {
      row.differs = VerdictRow::kText;
    }
    const std::vector<std::string> argv = Request(row.request);
    const std::string where = absl::StrCat(row.entry, ": ", row.request);
    const std::vector<std::string> keys = TouchedKeys(argv);
    const std::string before = Dump(port, password, keys);
    const std::string want = redis.Call(argv);
    const std::string got = trackdb.Call(argv);
    if (row.differs == VerdictRow::kOwn) {
      // Redis refuses an unknown command, or, before AUTH, closes the
      // connection for a large request: trackdb must do the same.
      EXPECT_TRUE(IsError(want) ? IsError(got) : got == want)
          << where
          << " (a bad request of trackdb's own command)\n redis: " << want
          << " trackdb: " << got;
    } else if (row.differs == VerdictRow::kVerdict) {
      EXPECT_TRUE(IsError(got) && !IsError(want))
          << where << " (allowed: " << row.why << ")\n redis: " << want
          << " trackdb: " << got;
    } else {
      EXPECT_EQ(IsError(got), IsError(want))
          << where << "\n redis: " << want << " trackdb: " << got;
    }
    if (row.differs == VerdictRow::kNone && IsError(want)) {
      EXPECT_EQ(got, want) << where;
    }
    if (IsError(got)) {
      EXPECT_EQ(Dump(port, password, keys), before)
          << where << ": an error wrote";
    }
  }
  return static_cast<int>(rows.size());
}

std::map<std::string, std::vector<VerdictRow>> Groups() {
  std::map<std::string, std::vector<VerdictRow>> groups;
  for (const VerdictRow& row : testing::VerdictRows()) {
    groups[row.entry].push_back(row);
  }
  for (auto& [entry, rows] : groups) {
    if (entry.empty()) continue;  // not in the table
    for (VerdictRow& r : ArityRows(entry, ArityOf(entry))) {
      rows.push_back(std::move(r));
    }
  }
  return groups;
}

TEST(VerdictTableTest, EveryTableEntryHasRowsAndEveryRowAnEntry) {
  const std::set<std::string> entries = TableEntries();
  std::set<std::string> with_rows;
  for (const VerdictRow& row : testing::VerdictRows()) {
    EXPECT_TRUE(row.entry.empty() || entries.count(row.entry))
        << "no such command: " << row.entry;
    with_rows.insert(row.entry);
    if (row.differs != VerdictRow::kNone) {
      EXPECT_FALSE(row.why.empty()) << row.request << ": say why it differs";
    }
  }
  for (const std::string& e : entries) {
    EXPECT_TRUE(with_rows.count(e)) << e << " has no rows";
  }
}

TEST(VerdictTableTest, VerdictsErrorsAndWritesMatchRedis) {
  Differential d;
  int rows = 0;
  const auto groups = Groups();
  for (const auto& [entry, group] : groups) {
    rows += RunGroup(d, group);
    // Still serving after the group.
    RawClient probe(d.trackdb_server().port());
    ASSERT_EQ(probe.Call({"PING"}), "+PONG\r\n") << "after " << entry;
  }
  std::cout << TableEntries().size() << " table entries, " << rows << " rows\n";
}

// Pipelined GEOADDs run as one group (JoinsGroup in command.h): bad calls
// among good ones get Redis's errors, each in its place, and write nothing,
// while the good ones around them are written.
TEST(VerdictTableTest, BadGeoaddsInAPipelinedGroup) {
  Differential d;
  const std::vector<std::vector<std::string>> calls = {
      {"GEOADD", "g", "13.4", "52.5", "a"},
      {"GEOADD", "g", "181", "0", "b"},
      {"GEOADD", "g", "nan", "0", "c"},
      {"GEOADD", "g", "1", "2", "d", "3"},
      {"GEOADD", "g", "NX", "XX", "1", "2", "e"},
      {"GEOADD", "g", "1", "2", "f", "1", "86", "g"},
      {"GEOADD", "g", "CH", "13.5", "52.5", "a"},
      {"GEOADD", "s", "1", "2", "h"},
      {"GEOADD", "g", "1", "2", std::string(1025, 'k')},
      {"GEOADD", "g", "2", "3", "i"},
  };
  ASSERT_EQ(d.Call({"SET", "s", "x"}).trackdb, "+OK\r\n");
  std::string pipeline;
  for (const auto& argv : calls) pipeline += testing::EncodeCommand(argv);
  d.redis().Send(pipeline);
  d.trackdb().Send(pipeline);
  for (size_t i = 0; i < calls.size(); ++i) {
    const std::string want = d.redis().ReadReply().value_or("<none>");
    const std::string got = d.trackdb().ReadReply().value_or("<none>");
    if (i == 8) {  // the 1025-byte member: see verdict_table_rows.cc
      EXPECT_EQ(got.substr(0, 4), "-ERR") << got;
      EXPECT_EQ(want, ":1\r\n");
      continue;
    }
    EXPECT_EQ(got, want) << "call " << i;
  }
  EXPECT_EQ(d.redis().Call({"ZREM", "g", std::string(1025, 'k')}), ":1\r\n");
  EXPECT_SAME_REPLY(d, {"ZRANGE", "g", "0", "-1", "WITHSCORES"});
  EXPECT_SAME_REPLY(d, {"GET", "s"});
}

// The same in RESP3, whose replies take other paths (maps, doubles,
// verbatim strings).
TEST(VerdictTableTest, VerdictsMatchRedisInResp3) {
  Differential d;
  for (const auto& [entry, group] : Groups()) {
    RunGroup(d, group, "", /*resp3=*/true);
  }
}

// With requirepass on both servers, every row sent before AUTH: what is
// refused (NOAUTH, or an earlier check: unknown subcommand, arity) and what
// is served anyway (AUTH, HELLO, QUIT) is Redis's, in its words.
TEST(VerdictTableTest, BeforeAuthMatchesRedis) {
  v1::TrackdbConfig config;
  config.mutable_server()->set_requirepass("pw");
  Differential d(config, {"--requirepass", "pw"});
  for (const auto& [entry, group] : Groups()) {
    if (!entry.empty()) RunGroup(d, group, "pw");
  }
}

}  // namespace
}  // namespace trackdb::resp
