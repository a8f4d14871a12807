#include "storage/engine/collection_lock_table.h"

#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

TEST(CollectionLockTableTest, ANameHasOneLock) {
  CollectionLockTable table;
  EXPECT_EQ(&table.For("fleet"), &table.For(std::string("fleet")));
}

TEST(CollectionLockTableTest, ForAllIsDistinctAndInOneOrder) {
  CollectionLockTable table;
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) names.push_back("c" + std::to_string(i));
  names.push_back("c0");  // a repeat
  const std::vector<absl::Mutex*> all = table.ForAll(names);
  // The hash is seeded per process, so which stripes 200 names take varies
  // from run to run: compare with the stripes the names map to one by one.
  std::set<absl::Mutex*> expected;
  for (const std::string& name : names) expected.insert(&table.For(name));
  EXPECT_EQ(all, std::vector<absl::Mutex*>(expected.begin(), expected.end()));
  EXPECT_LE(all.size(), 64u);
  EXPECT_GT(all.size(), 1u);
  std::vector<std::string> reversed(names.rbegin(), names.rend());
  EXPECT_EQ(table.ForAll(reversed), all);
  const std::vector<absl::Mutex*> one = table.ForAll({"c7", "c7"});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], &table.For("c7"));
}

}  // namespace
}  // namespace trackdb::storage
