#include "storage/import/external_sort.h"

#include <filesystem>
#include <map>
#include <random>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"

namespace trackdb::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

using Records = std::vector<std::pair<std::string, std::string>>;

Records Drain(ExternalSorter& sorter) {
  auto stream = sorter.Finish();
  EXPECT_TRUE(stream.ok()) << stream.status();
  Records out;
  if (!stream.ok()) return out;
  while ((*stream)->Next()) {
    out.emplace_back((*stream)->key(), (*stream)->value());
  }
  EXPECT_TRUE((*stream)->status().ok()) << (*stream)->status();
  return out;
}

size_t FilesIn(const std::string& dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++n;
  }
  return n;
}

TEST(ExternalSortTest, EmptyInputGivesEmptyStream) {
  ExternalSorter sorter({testing::NewDataDir(), 1 << 20});
  EXPECT_TRUE(Drain(sorter).empty());
}

TEST(ExternalSortTest, SortsBytewiseUnsignedAndByLength) {
  ExternalSorter sorter({testing::NewDataDir(), 1 << 20});
  const std::string keys[] = {std::string("\xff", 1),
                              "b",
                              "ab",
                              std::string("ab\0", 3),
                              "a",
                              std::string("abcdefgh\x80", 9),
                              "abcdefgh",
                              ""};
  for (const std::string& k : keys) ASSERT_TRUE(sorter.Add(k, "v").ok());
  Records out = Drain(sorter);
  std::vector<std::string> got;
  for (const auto& [k, v] : out) got.push_back(k);
  EXPECT_THAT(got, ElementsAre("", "a", "ab", std::string("ab\0", 3),
                               "abcdefgh", std::string("abcdefgh\x80", 9), "b",
                               std::string("\xff", 1)));
}

TEST(ExternalSortTest, LastAddedOfEqualKeysWinsInMemory) {
  ExternalSorter sorter({testing::NewDataDir(), 1 << 20});
  ASSERT_TRUE(sorter.Add("k", "first").ok());
  ASSERT_TRUE(sorter.Add("j", "x").ok());
  ASSERT_TRUE(sorter.Add("k", "second").ok());
  ASSERT_TRUE(sorter.Add("k", "third").ok());
  EXPECT_EQ(sorter.spilled_runs(), 0);
  EXPECT_THAT(Drain(sorter), ElementsAre(Pair("j", "x"), Pair("k", "third")));
}

TEST(ExternalSortTest, LastAddedOfEqualKeysWinsAcrossSpilledRuns) {
  const std::string dir = testing::NewDataDir();
  // 200 bytes: a few records per run.
  ExternalSorter sorter({dir, 200});
  for (int round = 0; round < 5; ++round) {
    for (int k = 0; k < 4; ++k) {
      ASSERT_TRUE(
          sorter.Add(absl::StrCat("key", k), absl::StrCat("round", round))
              .ok());
    }
  }
  EXPECT_GT(sorter.spilled_runs(), 2);
  EXPECT_THAT(Drain(sorter),
              ElementsAre(Pair("key0", "round4"), Pair("key1", "round4"),
                          Pair("key2", "round4"), Pair("key3", "round4")));
}

// Random keys of random lengths (with zero bytes and shared prefixes), many
// duplicates, against std::map with last-write-wins, for several memory
// budgets: everything in memory, a few runs, many runs.
TEST(ExternalSortTest, MatchesReferenceForAnyBudget) {
  for (size_t budget : {size_t{64} << 20, size_t{64} << 10, size_t{4} << 10}) {
    SCOPED_TRACE(budget);
    const std::string dir = testing::NewDataDir();
    std::map<std::string, std::string> reference;
    std::mt19937 rng(budget);
    std::uniform_int_distribution<int> len(0, 20), byte(0, 3), id(0, 5000);
    int spilled = 0;
    {
      ExternalSorter sorter({dir, budget});
      for (int i = 0; i < 20000; ++i) {
        std::string key = absl::StrCat("p", id(rng) % 50, "/");
        const int n = len(rng);
        for (int j = 0; j < n; ++j) key.push_back(static_cast<char>(byte(rng)));
        const std::string value = absl::StrCat("v", i);
        reference[key] = value;
        ASSERT_TRUE(sorter.Add(key, value).ok());
      }
      EXPECT_EQ(sorter.records_added(), 20000u);
      Records got = Drain(sorter);
      spilled = sorter.spilled_runs();
      ASSERT_EQ(got.size(), reference.size());
      auto it = reference.begin();
      for (size_t i = 0; i < got.size(); ++i, ++it) {
        ASSERT_EQ(got[i].first, it->first) << i;
        ASSERT_EQ(got[i].second, it->second) << i;
      }
    }
    if (budget < (size_t{1} << 20)) {
      EXPECT_GT(spilled, 1);
    }
    EXPECT_EQ(FilesIn(dir), 0u) << "spill files left behind";
  }
}

TEST(ExternalSortTest, AddAfterFinishFails) {
  ExternalSorter sorter({testing::NewDataDir(), 1 << 20});
  ASSERT_TRUE(sorter.Finish().ok());
  EXPECT_EQ(sorter.Add("k", "v").code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ExternalSortTest, MissingTempDirIsAnError) {
  ExternalSorter sorter({"/nonexistent/trackdb-sort", 64});
  absl::Status s;
  for (int i = 0; i < 10 && s.ok(); ++i) s = sorter.Add(absl::StrCat(i), "v");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(s.message()),
              ::testing::HasSubstr("cannot create spill file"));
}

}  // namespace
}  // namespace trackdb::storage
