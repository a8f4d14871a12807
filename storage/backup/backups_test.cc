#include "storage/backup/backups.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/replication/replication.h"
#include "storage/store_test_util.h"

namespace trackdb::storage {
namespace {

using ::testing::HasSubstr;
using testing::InvariantViolations;
using ::testing::IsEmpty;
using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;

constexpr int kEntities = 20;

// What a writer had acknowledged: per entity, the times of its points.
struct Acked {
  std::mutex mu;
  std::map<std::string, std::set<int64_t>> times;
  std::map<std::string, std::set<int64_t>> Copy() {
    std::lock_guard<std::mutex> l(mu);
    return times;
  }
};

// Writes one point per call, round robin over the entities, until `stop`.
void WriteUntil(TrackStore& store, const std::atomic<bool>& stop,
                Acked* acked) {
  for (int64_t t = 1; !stop; ++t) {
    const std::string entity = absl::StrCat("v", t % kEntities);
    ASSERT_TRUE(
        store.AddPoints("fleet", {Point(entity, t * 1000, 40 + t * 1e-5, -74)})
            .ok());
    std::lock_guard<std::mutex> l(acked->mu);
    acked->times[entity].insert(t * 1000);
  }
}

std::set<int64_t> TrackTimes(TrackStore& store, const std::string& entity) {
  TrackQuery q{"fleet", entity};
  q.limit = 1 << 20;
  absl::StatusOr<TrackPage> page = store.GetTrack(q);
  EXPECT_TRUE(page.ok());
  std::set<int64_t> times;
  for (const model::TrackPoint& p : page->points) times.insert(p.loc_time_ms);
  return times;
}

TEST(BackupsTest, UnderLoadKeepsEveryWriteAcknowledgedBeforeItBegan) {
  const std::string data = NewDataDir(), backup_dir = NewDataDir();
  auto store = OpenStore(data);
  ASSERT_TRUE(store->PutString("greeting", StringValue{"hello"}, 0).ok());
  std::atomic<bool> stop{false};
  Acked acked;
  std::thread writer(WriteUntil, std::ref(*store), std::cref(stop), &acked);
  absl::SleepFor(absl::Milliseconds(300));
  auto backups = Backups::Open(backup_dir);
  ASSERT_TRUE(backups.ok()) << backups.status();
  const auto before = acked.Copy();
  absl::StatusOr<BackupInfo> info = (*backups)->Create(*store, data, 0);
  absl::SleepFor(absl::Milliseconds(100));
  stop = true;
  writer.join();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_GT(info->sequence, 0u);
  const auto written = acked.Copy();

  const std::string restored = NewDataDir() + "/restored";
  absl::StatusOr<BackupInfo> from = RestoreBackup(backup_dir, 0, restored);
  ASSERT_TRUE(from.ok()) << from.status();
  EXPECT_EQ(from->id, info->id);
  auto copy = OpenStore(restored);
  ASSERT_NE(copy, nullptr);
  EXPECT_GE(LatestSequence(*copy), info->sequence);
  size_t kept_before = 0;
  for (const auto& [entity, times] : written) {
    const std::set<int64_t> got = TrackTimes(*copy, entity);
    // All that was acknowledged before the backup began; nothing unwritten.
    for (int64_t t :
         before.count(entity) ? before.at(entity) : std::set<int64_t>{}) {
      EXPECT_TRUE(got.count(t)) << entity << " lost " << t;
      ++kept_before;
    }
    for (int64_t t : got) EXPECT_TRUE(times.count(t)) << entity << " " << t;
    // The derived latest index agrees with the restored history.
    auto latest = copy->GetLatest("fleet", entity);
    ASSERT_TRUE(latest.ok());
    if (got.empty()) continue;
    ASSERT_TRUE(latest->has_value()) << entity;
    EXPECT_EQ((*latest)->loc_time_ms, *got.rbegin());
  }
  EXPECT_GT(kept_before, 0u);
  EXPECT_THAT(InvariantViolations(*copy, "fleet"), IsEmpty());
  auto greeting = copy->GetString("greeting", 0);
  ASSERT_TRUE(greeting.ok() && greeting->has_value());
  EXPECT_EQ((*greeting)->value, "hello");
}

TEST(BackupsTest, KeepsTheNewestAndDeletesById) {
  const std::string data = NewDataDir();
  auto store = OpenStore(data);
  auto backups = Backups::Open(NewDataDir());
  ASSERT_TRUE(backups.ok());
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(store->AddPoints("fleet", {Point("v", i, 1, 1)}).ok());
    ASSERT_TRUE((*backups)->Create(*store, data, 2).ok());
  }
  auto list = (*backups)->List();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, 2u);
  EXPECT_EQ((*list)[1].id, 3u);
  EXPECT_LT((*list)[0].sequence, (*list)[1].sequence);
  EXPECT_TRUE((*backups)->Delete(2).ok());
  EXPECT_TRUE(absl::IsNotFound((*backups)->Delete(2)));
  list = (*backups)->List();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].id, 3u);
}

uint64_t DirBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

TEST(BackupsTest, ASecondBackupCopiesOnlyWhatIsNew) {
  const std::string data = NewDataDir(), backup_dir = NewDataDir();
  auto store = OpenStore(data);
  std::vector<model::TrackPoint> batch;
  for (int i = 0; i < 20000; ++i) {
    batch.push_back(Point(absl::StrCat("v", i % 100), i, 40 + i * 1e-5, -74));
  }
  ASSERT_TRUE(store->AddPoints("fleet", batch).ok());
  auto backups = Backups::Open(backup_dir);
  ASSERT_TRUE((*backups)->Create(*store, data, 0).ok());
  const uint64_t first = DirBytes(backup_dir);
  ASSERT_TRUE(store->AddPoints("fleet", {Point("v1", 1 << 30, 1, 1)}).ok());
  ASSERT_TRUE((*backups)->Create(*store, data, 0).ok());
  const uint64_t grew = DirBytes(backup_dir) - first;
  EXPECT_LT(grew, first / 4) << first << " then " << grew;
}

TEST(BackupsTest, ACorruptFileIsRefusedNamingTheBackup) {
  const std::string data = NewDataDir(), backup_dir = NewDataDir();
  auto store = OpenStore(data);
  ASSERT_TRUE(store->AddPoints("fleet", {Point("v", 1, 1, 1)}).ok());
  auto backups = Backups::Open(backup_dir);
  auto info = (*backups)->Create(*store, data, 0);
  ASSERT_TRUE(info.ok());
  int corrupted = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(backup_dir)) {
    if (e.path().extension() != ".sst") continue;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(10);
    char c = 0;
    f.read(&c, 1);
    f.seekp(10);
    c = static_cast<char>(c ^ 0x5a);
    f.write(&c, 1);
    ++corrupted;
    break;
  }
  ASSERT_EQ(corrupted, 1);
  const std::string target = NewDataDir() + "/restored";
  absl::StatusOr<BackupInfo> r = RestoreBackup(backup_dir, info->id, target);
  ASSERT_TRUE(absl::IsDataLoss(r.status())) << r.status();
  EXPECT_THAT(r.status().message(),
              HasSubstr(absl::StrCat("backup ", info->id)));
  EXPECT_FALSE(std::filesystem::exists(target + "/CURRENT"));
}

TEST(BackupsTest, RestoreKeepsTheNodeFileAndStartsAHistoryOfItsOwn) {
  const std::string data = NewDataDir(), backup_dir = NewDataDir();
  auto store = OpenStore(data);
  ASSERT_TRUE(store->AddPoints("fleet", {Point("v", 1, 1, 1)}).ok());
  auto replid = PrimaryReplid(*store);
  ASSERT_TRUE(replid.ok());
  {
    std::ofstream nodes(data + "/cluster_nodes.conf");
    nodes << "node-id abc\n";
  }
  auto backups = Backups::Open(backup_dir);
  ASSERT_TRUE((*backups)->Create(*store, data, 0).ok());
  const std::string target = NewDataDir();  // exists, empty: fine
  ASSERT_TRUE(RestoreBackup(backup_dir, 0, target).ok());
  std::ifstream nodes(target + "/cluster_nodes.conf");
  std::string line;
  std::getline(nodes, line);
  EXPECT_EQ(line, "node-id abc");
  auto copy = OpenStore(target);
  auto copy_replid = PrimaryReplid(*copy);
  ASSERT_TRUE(copy_replid.ok());
  EXPECT_NE(*copy_replid, *replid);
  EXPECT_TRUE(copy->GetLatest("fleet", "v")->has_value());
}

TEST(BackupsTest, ListingWritesNothing) {
  const std::string missing = NewDataDir() + "/typo";
  EXPECT_TRUE(absl::IsNotFound(ListBackupsIn(missing).status()));
  EXPECT_FALSE(std::filesystem::exists(missing));
  const std::string data = NewDataDir(), backup_dir = NewDataDir();
  auto store = OpenStore(data);
  auto backups = Backups::Open(backup_dir);
  ASSERT_TRUE((*backups)->Create(*store, data, 0).ok());
  auto list = ListBackupsIn(backup_dir);
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].id, 1u);
}

// A backup's metadata that names a file no backup keeps (a path out of the
// target) is refused, and nothing is written there.
TEST(BackupsTest, MetadataNamingOtherFilesIsRefused) {
  const std::string data = NewDataDir(), backup_dir = NewDataDir();
  auto store = OpenStore(data);
  {
    std::ofstream nodes(data + "/cluster_nodes.conf");
    nodes << "node-id abc\n";
  }
  auto backups = Backups::Open(backup_dir);
  ASSERT_TRUE((*backups)->Create(*store, data, 0).ok());
  // The meta file is text, the metadata in hex: rename the kept file in
  // place, same length.
  const std::string from = absl::BytesToHexString("cluster_nodes.conf");
  const std::string to = absl::BytesToHexString("../../../escape.cf");
  int edited = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(backup_dir + "/meta")) {
    std::ifstream in(e.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    size_t at = text.find(from);
    std::string with = to;
    if (at == std::string::npos) {
      at = text.find(absl::AsciiStrToUpper(from));
      with = absl::AsciiStrToUpper(to);
    }
    if (at == std::string::npos) continue;
    text.replace(at, with.size(), with);
    std::ofstream out(e.path(), std::ios::binary | std::ios::trunc);
    out << text;
    ++edited;
  }
  ASSERT_EQ(edited, 1);
  const std::string target = NewDataDir() + "/restored";
  absl::StatusOr<BackupInfo> r = RestoreBackup(backup_dir, 0, target);
  EXPECT_TRUE(absl::IsDataLoss(r.status())) << r.status();
  EXPECT_FALSE(std::filesystem::exists(target + "/CURRENT"));
}

TEST(BackupsTest, RestoreRefusesWhatItCannotDo) {
  const std::string data = NewDataDir(), backup_dir = NewDataDir();
  auto backups = Backups::Open(backup_dir);
  ASSERT_TRUE(backups.ok());
  EXPECT_TRUE(
      absl::IsNotFound(RestoreBackup(backup_dir, 0, NewDataDir()).status()));
  auto store = OpenStore(data);
  ASSERT_TRUE((*backups)->Create(*store, data, 0).ok());
  EXPECT_TRUE(
      absl::IsNotFound(RestoreBackup(backup_dir, 7, NewDataDir()).status()));
  // Not over a data dir that holds something.
  absl::StatusOr<BackupInfo> over = RestoreBackup(backup_dir, 0, data);
  EXPECT_TRUE(absl::IsFailedPrecondition(over.status())) << over.status();
  EXPECT_THAT(over.status().message(), HasSubstr("not an empty directory"));
  EXPECT_FALSE(Backups::Open("").ok());
}

}  // namespace
}  // namespace trackdb::storage
