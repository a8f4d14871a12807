#include "storage/engine/collection_lock_table.h"

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
  // 64 stripes: 200 names take them all, each once.
  EXPECT_EQ(all.size(), 64u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1], all[i]);
  std::vector<std::string> reversed(names.rbegin(), names.rend());
  EXPECT_EQ(table.ForAll(reversed), all);
  const std::vector<absl::Mutex*> one = table.ForAll({"c7", "c7"});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], &table.For("c7"));
}

}  // namespace
}  // namespace trackdb::storage
