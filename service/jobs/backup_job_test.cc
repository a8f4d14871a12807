#include "service/jobs/backup_job.h"

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"

namespace trackdb::service {
namespace {

using storage::testing::NewDataDir;
using storage::testing::OpenStore;
using storage::testing::Point;

v1::TrackdbConfig Config(const std::string& data_dir) {
  v1::TrackdbConfig config;
  config.set_data_dir(data_dir);
  return config;
}

TEST(BackupJobTest, BesideTheDataDirByDefaultKeepingOne) {
  const std::string data = NewDataDir();
  auto store = OpenStore(data);
  BackupJob job(store.get(), Config(data + "/"));
  EXPECT_EQ(job.backup_dir(), data + ".backup");
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(store->AddPoints("fleet", {Point("v", i, 1, 1)}).ok());
    auto info = job.RunNow();
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(job.state().last_success_unix_s, info->unix_s);
  }
  auto list = job.List();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].id, 2u);
}

TEST(BackupJobTest, OneAtATimeInTheBackground) {
  const std::string data = NewDataDir();
  auto store = OpenStore(data);
  v1::TrackdbConfig config = Config(data);
  config.mutable_storage()->set_backups_to_keep(0);
  BackupJob job(store.get(), config);
  ASSERT_TRUE(job.StartInBackground());
  // Either still running (then a second is refused) or done.
  const bool second = job.StartInBackground();
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (job.state().in_progress && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_FALSE(job.state().in_progress);
  EXPECT_TRUE(job.state().last_ok) << job.state().last_error;
  EXPECT_GT(job.state().last_success_unix_s, 0);
  auto list = job.List();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), second ? 2u : 1u);
}

TEST(BackupJobTest, NoDirToBackUpToSaysWhatToSet) {
  auto store = OpenStore(NewDataDir());
  BackupJob job(store.get(), v1::TrackdbConfig());
  auto info = job.RunNow();
  EXPECT_TRUE(absl::IsFailedPrecondition(info.status()));
  EXPECT_THAT(info.status().message(),
              ::testing::HasSubstr("storage.backup_dir"));
  EXPECT_FALSE(job.state().last_ok);
  EXPECT_FALSE(job.state().in_progress);
}

}  // namespace
}  // namespace trackdb::service
