// A full or failing disk under an open store (storage/engine/disk_faults.h):
// writes fail at once with a disk error (RESOURCE_EXHAUSTED for no space,
// UNAVAILABLE for I/O errors), reads keep working and the store's events
// say why. Once there is space again writes resume by themselves; after
// another I/O error they resume when the store is reopened. Nothing
// acknowledged is lost either way.

#include <chrono>
#include <memory>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/format/disk_error.h"
#include "storage/engine/disk_faults.h"
#include "storage/engine/engine.h"
#include "storage/engine/store_events.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using Clock = std::chrono::steady_clock;
using Fault = DiskFaults::Fault;
using testing::NewDataDir;
using testing::Point;

v1::StorageConfig SmallConfig() {
  v1::StorageConfig config;
  config.set_write_buffer_size_mb(1);
  config.set_block_cache_size_mb(8);
  return config;
}

std::unique_ptr<TrackStore> Open(const std::string& dir,
                                 std::shared_ptr<DiskFaults> faults) {
  auto store = TrackStore::Open(dir, SmallConfig(), std::move(faults));
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

// Writes a point of "a" at `t` until it is stored or `deadline` passes.
absl::Status WriteUntilStored(TrackStore& store, int64_t t,
                              Clock::duration deadline) {
  const Clock::time_point until = Clock::now() + deadline;
  absl::Status s;
  do {
    s = store.AddPoints("fleet", {Point("a", t, 30, 120)});
    if (s.ok()) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (Clock::now() < until);
  return s;
}

// Turns `fault` on and checks what writes, reads and the events say.
void FailDisk(TrackStore& store, DiskFaults& faults, Fault fault,
              absl::StatusCode code) {
  faults.Set(fault);
  const Clock::time_point before = Clock::now();
  absl::Status s = store.AddPoints("fleet", {Point("a", 2000, 31, 121)});
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_TRUE(IsDiskError(s)) << s;
  // Refused until the disk recovers, strings too, each at once.
  absl::Status again = store.AddPoints("fleet", {Point("b", 2000, 31, 121)});
  EXPECT_EQ(again.code(), code) << again;
  EXPECT_TRUE(IsDiskError(again)) << again;
  StringValue value;
  value.value = "v";
  absl::Status set = store.PutString("k", value, 1).status();
  EXPECT_EQ(set.code(), code) << set;
  EXPECT_LT(Clock::now() - before, std::chrono::seconds(1));

  auto latest = store.GetLatest("fleet", "a");
  ASSERT_TRUE(latest.ok()) << latest.status();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->loc_time_ms, 1000);
  auto b = store.GetLatest("fleet", "b");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->has_value());

  const DiskErrorState failing = store.options().events->disk_error();
  EXPECT_TRUE(failing.failing);
  EXPECT_TRUE(failing.writes_stopped);
  EXPECT_EQ(failing.no_space, fault == Fault::kNoSpace);
  EXPECT_EQ(failing.fatal, fault == Fault::kIoError);
  EXPECT_FALSE(failing.message.empty());
}

// "a"'s history after reopening without faults.
std::vector<int64_t> StoredTimes(const std::string& dir) {
  std::unique_ptr<TrackStore> store = Open(dir, nullptr);
  if (!store) return {};
  TrackQuery query;
  query.collection = "fleet";
  query.entity = "a";
  auto track = store->GetTrack(query);
  EXPECT_TRUE(track.ok()) << track.status();
  std::vector<int64_t> times;
  if (track.ok()) {
    for (const model::TrackPoint& p : track->points) {
      times.push_back(p.loc_time_ms);
    }
  }
  return times;
}

TEST(DiskFaultTest, FullDiskRefusesWritesUntilThereIsSpace) {
  const std::string dir = NewDataDir();
  auto faults = std::make_shared<DiskFaults>();
  std::unique_ptr<TrackStore> store = Open(dir, faults);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->AddPoints("fleet", {Point("a", 1000, 30, 120)}).ok());
  FailDisk(*store, *faults, Fault::kNoSpace,
           absl::StatusCode::kResourceExhausted);

  // RocksDB polls the free space and resumes by itself.
  faults->Set(Fault::kNone);
  EXPECT_TRUE(WriteUntilStored(*store, 3000, std::chrono::seconds(30)).ok());
  const DiskErrorState healed = store->options().events->disk_error();
  EXPECT_FALSE(healed.failing);
  EXPECT_GE(healed.recoveries, 1u);
  ASSERT_TRUE(store->Close().ok());
  EXPECT_THAT(StoredTimes(dir), ::testing::ElementsAre(1000, 3000));
}

TEST(DiskFaultTest, IoErrorRefusesWritesUntilReopened) {
  const std::string dir = NewDataDir();
  auto faults = std::make_shared<DiskFaults>();
  std::unique_ptr<TrackStore> store = Open(dir, faults);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->AddPoints("fleet", {Point("a", 1000, 30, 120)}).ok());
  FailDisk(*store, *faults, Fault::kIoError, absl::StatusCode::kUnavailable);

  // RocksDB does not retry an I/O error while open: still refused.
  faults->Set(Fault::kNone);
  EXPECT_EQ(store->AddPoints("fleet", {Point("a", 3000, 30, 120)}).code(),
            absl::StatusCode::kUnavailable);
  store->Close().IgnoreError();  // cannot flush: the WAL is replayed
  store.reset();
  store = Open(dir, nullptr);
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->AddPoints("fleet", {Point("a", 3000, 30, 120)}).ok());
  ASSERT_TRUE(store->Close().ok());
  EXPECT_THAT(StoredTimes(dir), ::testing::ElementsAre(1000, 3000));
}

}  // namespace
}  // namespace trackdb::storage
