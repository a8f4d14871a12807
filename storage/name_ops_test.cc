#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/format/keys.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

using testing::InvariantViolations;
using ::testing::IsEmpty;
using testing::NewDataDir;
using testing::OpenStore;
using testing::Point;
using testing::RawEntries;
using testing::ReadRaw;
using CopyResult = TrackStore::CopyNameResult;

constexpr int64_t kNow = 1000000;

// Every points and latest entry of a collection, without its prefix,
// so that two collections' contents compare equal.
std::vector<RawEntries> Contents(TrackStore& store, const std::string& c) {
  const std::string prefix = CollectionPrefix(c);
  std::vector<RawEntries> out;
  for (ColumnFamily cf : {ColumnFamily::kPoints, ColumnFamily::kLatest}) {
    RawEntries raw = ReadRaw(store, cf, prefix);
    for (auto& [key, value] : raw) key = key.substr(prefix.size());
    out.push_back(std::move(raw));
  }
  return out;
}

// How many fixes Contents' points entries hold (the rest are history
// cells, storage/points/history_cells.h).
size_t Fixes(const std::vector<RawEntries>& contents) {
  size_t n = 0;
  for (const auto& [key, value] : contents[0]) {
    if (!absl::StartsWith(key, kHistoryCellsTag)) ++n;
  }
  return n;
}

// Two entities with history and a moved latest point.
void Fill(TrackStore& store, const std::string& c) {
  ASSERT_TRUE(store
                  .AddPoints(c, {Point("x", 1, 10, 10), Point("x", 2, 11, 11),
                                 Point("y", 1, -5, 20), Point("x", 3, 12, 12)})
                  .ok());
}

absl::StatusOr<CopyResult> Copy(TrackStore& store, const std::string& src,
                                const std::string& dst, bool remove_source,
                                bool replace) {
  TrackStore::CopyNameOptions options;
  options.remove_source = remove_source;
  options.replace = replace;
  return store.CopyName(src, dst, kNow, options);
}

TEST(NameOpsTest, CopyGivesTheDestinationTheWholeCollection) {
  auto store = OpenStore(NewDataDir());
  Fill(*store, "src");
  ASSERT_EQ(*Copy(*store, "src", "dst", false, false), CopyResult::kCopied);
  EXPECT_EQ(Contents(*store, "dst"), Contents(*store, "src"));
  EXPECT_EQ(Fixes(Contents(*store, "dst")), 4u);  // history included
  EXPECT_EQ(*store->CollectionSize("dst"), 2);
  EXPECT_EQ(*store->CollectionSize("src"), 2);
  EXPECT_THAT(InvariantViolations(*store, "dst"), IsEmpty());
}

TEST(NameOpsTest, RenameRemovesTheSourceAndReplacesAString) {
  auto store = OpenStore(NewDataDir());
  Fill(*store, "src");
  const std::vector<RawEntries> before = Contents(*store, "src");
  ASSERT_TRUE(store->PutString("dst", StringValue{"v", 0}, kNow).ok());
  ASSERT_EQ(*Copy(*store, "src", "dst", true, true), CopyResult::kCopied);
  EXPECT_EQ(Contents(*store, "dst"), before);
  EXPECT_EQ(*store->CollectionSize("src"), 0);
  EXPECT_THAT(Contents(*store, "src")[0], IsEmpty());
  EXPECT_FALSE(store->GetString("dst", kNow)->has_value());
  EXPECT_THAT(testing::StringCacheViolations(*store), IsEmpty());
}

TEST(NameOpsTest, AnExistingDestinationWithoutReplaceChangesNothing) {
  auto store = OpenStore(NewDataDir());
  Fill(*store, "src");
  ASSERT_TRUE(store->AddPoints("dst", {Point("z", 1, 1, 1)}).ok());
  ASSERT_TRUE(store->PutString("str", StringValue{"v", 0}, kNow).ok());
  EXPECT_EQ(*Copy(*store, "src", "dst", true, false),
            CopyResult::kDestinationExists);
  EXPECT_EQ(*Copy(*store, "src", "str", true, false),
            CopyResult::kDestinationExists);
  EXPECT_EQ(*store->CollectionSize("src"), 2);
  EXPECT_EQ(*store->CollectionSize("dst"), 1);
  EXPECT_EQ((*store->GetString("str", kNow))->value, "v");
  EXPECT_EQ(*Copy(*store, "none", "new", true, true), CopyResult::kNoSource);
  EXPECT_EQ(*store->CollectionSize("new"), 0);
}

TEST(NameOpsTest, AStringMovesWithItsExpiryOverACollection) {
  auto store = OpenStore(NewDataDir());
  ASSERT_TRUE(store->PutString("s", StringValue{"v", kNow + 5000}, kNow).ok());
  Fill(*store, "g");
  ASSERT_EQ(*Copy(*store, "s", "g", true, true), CopyResult::kCopied);
  EXPECT_EQ(*store->GetString("g", kNow), (StringValue{"v", kNow + 5000}));
  EXPECT_FALSE(store->GetString("s", kNow)->has_value());
  EXPECT_EQ(*store->CollectionSize("g"), 0);
  EXPECT_THAT(Contents(*store, "g")[0], IsEmpty());
  // An expired string is no source.
  TrackStore::CopyNameOptions rename;
  rename.remove_source = true;
  EXPECT_EQ(*store->CopyName("g", "h", kNow + 5000, rename),
            CopyResult::kNoSource);
}

TEST(NameOpsTest, ACopyLargerThanTheBoundIsRefusedWhole) {
  const std::string dir = NewDataDir();
  v1::StorageConfig config;
  config.set_max_atomic_copy_mb(1);
  auto opened = TrackStore::Open(dir, config);
  ASSERT_TRUE(opened.ok());
  TrackStore& store = **opened;
  std::vector<model::TrackPoint> points;
  for (int i = 0; i < 30000; ++i) points.push_back(Point("e", i, 1, 1));
  ASSERT_TRUE(store.AddPoints("big", points).ok());
  ASSERT_TRUE(store.AddPoints("dst", {Point("z", 1, 1, 1)}).ok());
  absl::StatusOr<CopyResult> r = Copy(store, "big", "dst", true, true);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(*store.CollectionSize("big"), 1);
  EXPECT_EQ(*store.CollectionSize("dst"), 1);
  EXPECT_EQ(Fixes(Contents(store, "dst")), 1u);
}

TEST(NameOpsTest, ReplaceWithPointsReplacesWhateverTheNameHeld) {
  auto store = OpenStore(NewDataDir());
  Fill(*store, "g");
  ASSERT_TRUE(
      store->ReplaceWithPoints("g", {Point("n", 5, 1, 2), Point("m", 5, 3, 4)})
          .ok());
  EXPECT_EQ(*store->CollectionSize("g"), 2);
  EXPECT_EQ(Fixes(Contents(*store, "g")), 2u);  // old history is gone
  EXPECT_THAT(InvariantViolations(*store, "g"), IsEmpty());
  ASSERT_TRUE(store->PutString("s", StringValue{"v", 0}, kNow).ok());
  ASSERT_TRUE(store->ReplaceWithPoints("s", {Point("n", 1, 1, 1)}).ok());
  EXPECT_FALSE(store->GetString("s", kNow)->has_value());
  EXPECT_EQ(*store->CollectionSize("s"), 1);
  ASSERT_TRUE(store->ReplaceWithPoints("g", {}).ok());
  EXPECT_EQ(*store->CollectionSize("g"), 0);
  // An invalid point: nothing changes.
  EXPECT_EQ(store->ReplaceWithPoints("s", {Point("n", 1, 91, 1)}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(*store->CollectionSize("s"), 1);
}

TEST(NameOpsTest, DeleteNamesAndReplaceWithStringsTakeBothKinds) {
  auto store = OpenStore(NewDataDir());
  Fill(*store, "g");
  ASSERT_TRUE(store->PutString("s", StringValue{"v", 0}, kNow).ok());
  auto removed = store->DeleteNames({"g", "s", "none", "g"}, kNow);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ((*removed)[0].entities, 2);
  EXPECT_TRUE((*removed)[1].string);
  EXPECT_FALSE((*removed)[2].exists());
  EXPECT_FALSE((*removed)[3].exists());  // counted once, as Redis's DEL
  EXPECT_EQ(*store->CollectionSize("g"), 0);
  EXPECT_FALSE(store->GetString("s", kNow)->has_value());

  Fill(*store, "g");
  ASSERT_TRUE(store
                  ->ReplaceWithStrings(
                      {"g", "t"}, {StringValue{"1", 0}, StringValue{"2", 0}})
                  .ok());
  EXPECT_EQ(*store->CollectionSize("g"), 0);
  EXPECT_THAT(Contents(*store, "g")[0], IsEmpty());
  EXPECT_EQ((*store->GetString("g", kNow))->value, "1");
  EXPECT_EQ((*store->GetString("t", kNow))->value, "2");
  EXPECT_THAT(testing::StringCacheViolations(*store), IsEmpty());
}

// A process renaming a collection back and forth is killed at random
// moments: after each kill, exactly one of the two names holds the whole
// collection, never a mix or a part.
TEST(NameOpsTest, AKilledRenameLeavesTheOldOrTheNewCollection) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  const std::string child =
      absl::StrCat(srcdir, "/trackdb/storage/name_ops_crash_child");
  const std::string dir = NewDataDir();
  std::vector<RawEntries> want;
  {
    auto store = OpenStore(dir);
    std::vector<model::TrackPoint> points;
    for (int e = 0; e < 200; ++e) {
      for (int t = 0; t < 20; ++t) {
        points.push_back(Point(absl::StrCat("e", e), t, e % 80, t));
      }
    }
    ASSERT_TRUE(store->AddPoints("a", points).ok());
    want = Contents(*store, "a");
  }
  std::mt19937 rng(7);
  for (int round = 0; round < 6; ++round) {
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      dup2(out[1], 1);
      close(out[0]);
      execl(child.c_str(), child.c_str(), dir.c_str(), nullptr);
      _exit(127);
    }
    close(out[1]);
    // Wait for a few renames to have landed, then kill at a random moment.
    std::string seen;
    char buf[256];
    const int want_renames = 2 + static_cast<int>(rng() % 5);
    while (std::count(seen.begin(), seen.end(), '\n') < want_renames) {
      const ssize_t n = read(out[0], buf, sizeof(buf));
      ASSERT_GT(n, 0) << "the child stopped: " << seen;
      seen.append(buf, n);
    }
    usleep(rng() % 20000);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    close(out[0]);

    auto store = OpenStore(dir);
    ASSERT_NE(store, nullptr);
    const int64_t a = *store->CollectionSize("a");
    const int64_t b = *store->CollectionSize("b");
    ASSERT_TRUE((a == 200 && b == 0) || (a == 0 && b == 200))
        << "round " << round << ": a=" << a << " b=" << b;
    const std::string full = a > 0 ? "a" : "b";
    const std::string empty = a > 0 ? "b" : "a";
    EXPECT_EQ(Contents(*store, full), want) << "round " << round;
    EXPECT_THAT(Contents(*store, empty)[0], IsEmpty());
    EXPECT_THAT(InvariantViolations(*store, full), IsEmpty());
  }
}

}  // namespace
}  // namespace trackdb::storage
