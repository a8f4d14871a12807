#include "types/key_type.h"

#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/format/typed_codec.h"
#include "storage/store_test_util.h"
#include "types/typed_test_util.h"

namespace trackdb::types {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

int64_t Now() { return absl::ToUnixMillis(absl::Now()); }

class KeyTypeTest : public testing::StoreTest {
 protected:
  void PutTyped(const std::string& name, ValueType type) {
    const std::string names[] = {name};
    ASSERT_TRUE(store_
                    ->UpdateTyped(names, Now(),
                                  [&](TypedTxn& txn) {
                                    TypedMeta meta = txn.Create(type);
                                    txn.Put(name, meta, "m", "v");
                                    meta.size = 1;
                                    txn.SetMeta(name, meta);
                                    return absl::OkStatus();
                                  })
                    .ok());
  }

  KeyType Type(const std::string& name) {
    absl::StatusOr<KeyType> t = TypeOf(*store_, name, Now());
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : KeyType::kNone;
  }
};

TEST_F(KeyTypeTest, EachKindOfValueHasItsType) {
  ASSERT_TRUE(store_->PutString("str", {"v", 0}, Now()).ok());
  PutTyped("h", ValueType::kHash);
  PutTyped("s", ValueType::kSet);
  PutTyped("l", ValueType::kList);
  PutTyped("z", ValueType::kZset);
  ASSERT_TRUE(
      store_->AddPoints("geo", {storage::testing::Point("p", 1000, 38.1, 13.3)})
          .ok());
  EXPECT_EQ(Type("none"), KeyType::kNone);
  EXPECT_EQ(Type("str"), KeyType::kString);
  EXPECT_EQ(Type("h"), KeyType::kHash);
  EXPECT_EQ(Type("s"), KeyType::kSet);
  EXPECT_EQ(Type("l"), KeyType::kList);
  EXPECT_EQ(Type("z"), KeyType::kZset);
  EXPECT_EQ(Type("geo"), KeyType::kGeo);
  // Redis calls a GEO key a zset.
  EXPECT_STREQ(TypeName(KeyType::kGeo), "zset");
  EXPECT_STREQ(TypeName(KeyType::kNone), "none");

  for (const char* name : {"h", "geo"}) {
    absl::StatusOr<bool> non_string = HoldsNonString(*store_, name, Now());
    ASSERT_TRUE(non_string.ok());
    EXPECT_TRUE(*non_string) << name;
  }
  absl::StatusOr<bool> non_string = HoldsNonString(*store_, "str", Now());
  ASSERT_TRUE(non_string.ok());
  EXPECT_FALSE(*non_string);
}

TEST_F(KeyTypeTest, AnExpiredValueIsNone) {
  ASSERT_TRUE(store_->PutString("str", {"v", Now() - 1}, Now() - 10).ok());
  EXPECT_EQ(Type("str"), KeyType::kNone);
}

TEST_F(KeyTypeTest, DeleteAnyKeyRemovesWhateverTheNameHolds) {
  ASSERT_TRUE(store_->PutString("str", {"v", 0}, Now()).ok());
  PutTyped("z", ValueType::kZset);
  ASSERT_TRUE(
      store_->AddPoints("geo", {storage::testing::Point("p", 1000, 38.1, 13.3)})
          .ok());
  for (const char* name : {"str", "z", "geo"}) {
    absl::StatusOr<bool> removed = DeleteAnyKey(*store_, name, Now());
    ASSERT_TRUE(removed.ok()) << removed.status();
    EXPECT_TRUE(*removed) << name;
    EXPECT_EQ(Type(name), KeyType::kNone) << name;
  }
  absl::StatusOr<bool> removed = DeleteAnyKey(*store_, "none", Now());
  ASSERT_TRUE(removed.ok());
  EXPECT_FALSE(*removed);
}

}  // namespace
}  // namespace trackdb::types
