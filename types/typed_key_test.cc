#include "types/typed_key.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"
#include "types/typed_test_util.h"

namespace trackdb::types {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;
using testing::Now;

class TypedKeyTest : public testing::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(store_->PutString("str", {"v", 0}, Now()).ok());
    ASSERT_TRUE(
        store_
            ->AddPoints("geo", {storage::testing::Point("p", 1000, 38.1, 13.3)})
            .ok());
    absl::Status s =
        testing::WriteValue(*store_, "h", ValueType::kHash,
                            [](TypedTxn& txn, const TypedMeta& meta) {
                              TypedMeta m = meta;
                              txn.Put("h", m, "f", "v");
                              m.size = 1;
                              txn.SetMeta("h", m);
                            });
    ASSERT_TRUE(s.ok()) << s;
  }

  // What LookupTyped (or with `create`, LookupOrCreate) finds at `name`
  // for a command on `want`.
  TypedKey Lookup(const std::string& name, ValueType want,
                  bool create = false) {
    TypedKey found;
    const std::string names[] = {name};
    auto body = [&](TypedTxn& txn) -> absl::Status {
      absl::StatusOr<TypedKey> key = create ? LookupOrCreate(txn, name, want)
                                            : LookupTyped(txn, name, want);
      if (!key.ok()) return key.status();
      found = *std::move(key);
      return absl::OkStatus();
    };
    // A created meta is a write to come: only an update may make one.
    absl::Status s = create ? store_->UpdateTyped(names, Now(), body)
                            : store_->ReadTyped(names, Now(), body);
    EXPECT_TRUE(s.ok()) << s;
    return found;
  }
};

TEST_F(TypedKeyTest, AKeyOfTheWantedTypeGivesItsMeta) {
  const TypedKey key = Lookup("h", ValueType::kHash);
  EXPECT_FALSE(key.wrong_type);
  ASSERT_TRUE(key.meta.has_value());
  EXPECT_EQ(key.meta->type, ValueType::kHash);
  EXPECT_EQ(key.meta->size, 1u);
}

TEST_F(TypedKeyTest, AnyOtherTypeIsWrongAndGivesNoMeta) {
  for (const char* name : {"h", "str", "geo"}) {
    const TypedKey key = Lookup(name, ValueType::kList, /*create=*/true);
    EXPECT_TRUE(key.wrong_type) << name;
    EXPECT_FALSE(key.meta.has_value()) << name;
  }
  EXPECT_TRUE(Lookup("h", ValueType::kZset).wrong_type);
  EXPECT_TRUE(Lookup("str", ValueType::kSet).wrong_type);
}

TEST_F(TypedKeyTest, AMissingKeyIsNoneOrANewEmptyOne) {
  const TypedKey none = Lookup("missing", ValueType::kSet);
  EXPECT_FALSE(none.wrong_type);
  EXPECT_FALSE(none.meta.has_value());
  const TypedKey created = Lookup("missing", ValueType::kSet, true);
  EXPECT_FALSE(created.wrong_type);
  ASSERT_TRUE(created.meta.has_value());
  EXPECT_EQ(created.meta->type, ValueType::kSet);
  EXPECT_EQ(created.meta->size, 0u);
}

}  // namespace
}  // namespace trackdb::types
