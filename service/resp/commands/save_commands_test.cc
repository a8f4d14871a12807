// BGSAVE, SAVE and LASTSAVE: their refusals beside a real redis-server, and
// on trackdb's server the backups they make, restored into a data dir.
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/backup/backups.h"
#include "storage/store_test_util.h"

namespace trackdb::resp {
namespace {

using testing::Differential;
using ::testing::HasSubstr;
using testing::RawClient;
using testing::TrackdbResp;

TEST(SaveCommandsTest, RefusalsAsRedis) {
  Differential d;
  for (const auto& call : std::vector<std::vector<std::string>>{
           {"BGSAVE", "NOW"},
           {"BGSAVE", "SCHEDULE", "x"},
           {"SAVE", "x"},
           {"LASTSAVE", "x"},
           {"MULTI"},
           {"SAVE"},
           {"EXEC"},
       }) {
    EXPECT_SAME_REPLY(d, call);
  }
}

// INFO persistence's `field` value.
std::string InfoField(RawClient& c, const std::string& field) {
  const std::string info = c.Call({"INFO", "persistence"});
  const size_t at = info.find(field + ":");
  if (at == std::string::npos) return "";
  const size_t begin = at + field.size() + 1;
  return info.substr(begin, info.find("\r\n", begin) - begin);
}

int64_t Integer(const std::string& reply) {
  int64_t v = -1;
  EXPECT_EQ(reply[0], ':') << reply;
  EXPECT_TRUE(absl::SimpleAtoi(reply.substr(1, reply.size() - 3), &v));
  return v;
}

TEST(SaveCommandsTest, BackupsThatRestore) {
  v1::TrackdbConfig config;
  const std::string backup_dir = storage::testing::NewDataDir();
  config.mutable_storage()->set_backup_dir(backup_dir);
  config.mutable_storage()->set_backups_to_keep(0);
  TrackdbResp server(config);
  RawClient c(server.port());
  const int64_t started = Integer(c.Call({"LASTSAVE"}));
  EXPECT_GT(started, 0);
  EXPECT_EQ(InfoField(c, "rdb_bgsave_in_progress"), "0");
  EXPECT_EQ(InfoField(c, "backup_dir"), backup_dir);
  ASSERT_EQ(c.Call({"SET", "k", "v1"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"GEOADD", "fleet", "13.4", "52.5", "car"}), ":1\r\n");
  ASSERT_EQ(c.Call({"BGSAVE"}), "+Background saving started\r\n");
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (InfoField(c, "rdb_bgsave_in_progress") != "0" &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(InfoField(c, "rdb_last_bgsave_status"), "ok");
  EXPECT_GE(Integer(c.Call({"LASTSAVE"})), started);
  ASSERT_EQ(c.Call({"SET", "k", "v2"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"SAVE"}), "+OK\r\n");
  ASSERT_EQ(c.Call({"SET", "k", "v3"}), "+OK\r\n");

  // Backup 1 holds v1 and the GEO key; backup 2 holds v2.
  for (const auto& [id, value] :
       std::vector<std::pair<uint32_t, std::string>>{{1, "v1"}, {2, "v2"}}) {
    const std::string dir = storage::testing::NewDataDir() + "/restored";
    auto restored = storage::RestoreBackup(backup_dir, id, dir);
    ASSERT_TRUE(restored.ok()) << restored.status();
    v1::TrackdbConfig from;
    from.set_data_dir(dir);
    TrackdbResp copy(from);
    RawClient r(copy.port());
    EXPECT_EQ(r.Call({"GET", "k"}), absl::StrCat("$2\r\n", value, "\r\n"));
    EXPECT_THAT(r.Call({"GEOPOS", "fleet", "car"}), HasSubstr("13.4"));
  }
}

// A replica backs up what it follows; the restored store is a primary of
// its own, taking writes.
TEST(SaveCommandsTest, AReplicaBacksUp) {
  TrackdbResp primary;
  RawClient p(primary.port());
  ASSERT_EQ(p.Call({"SET", "k", "from-primary"}), "+OK\r\n");
  v1::TrackdbConfig config;
  const std::string backup_dir = storage::testing::NewDataDir();
  config.mutable_storage()->set_backup_dir(backup_dir);
  TrackdbResp replica(config);
  RawClient r(replica.port());
  ASSERT_EQ(r.Call({"REPLICAOF", "127.0.0.1", std::to_string(primary.port())}),
            "+OK\r\n");
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (r.Call({"GET", "k"}) != "$12\r\nfrom-primary\r\n" &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ(r.Call({"SAVE"}), "+OK\r\n");
  const std::string dir = storage::testing::NewDataDir() + "/restored";
  ASSERT_TRUE(storage::RestoreBackup(backup_dir, 0, dir).ok());
  v1::TrackdbConfig from;
  from.set_data_dir(dir);
  TrackdbResp copy(from);
  RawClient c(copy.port());
  EXPECT_EQ(c.Call({"GET", "k"}), "$12\r\nfrom-primary\r\n");
  EXPECT_EQ(c.Call({"SET", "k", "mine"}), "+OK\r\n");
}

TEST(SaveCommandsTest, ABackupThatFailsSaysSo) {
  v1::TrackdbConfig config;
  // A file where the backup dir should be: it cannot be made.
  const std::string file = storage::testing::NewDataDir() + "/file";
  ASSERT_EQ(system(absl::StrCat("touch ", file).c_str()), 0);
  config.mutable_storage()->set_backup_dir(file + "/backups");
  TrackdbResp server(config);
  RawClient c(server.port());
  EXPECT_THAT(c.Call({"SAVE"}), ::testing::StartsWith("-ERR"));
  EXPECT_EQ(InfoField(c, "rdb_last_bgsave_status"), "err");
}

}  // namespace
}  // namespace trackdb::resp
