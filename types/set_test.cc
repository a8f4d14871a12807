#include "types/set.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"
#include "types/typed_test_util.h"

namespace trackdb::types {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;
using testing::Answer;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

class SetTest : public testing::StoreTest {
 protected:
  // Runs `body` on `name`'s set (a new one when it has none) and finishes
  // the writer.
  void Write(const std::string& name,
             const std::function<void(SetWriter&)>& body) {
    absl::Status s =
        testing::WriteWith<SetWriter>(*store_, name, ValueType::kSet, body);
    ASSERT_TRUE(s.ok()) << s;
  }

  // The set's members as stored; checks its stored size against them.
  // Empty when the key holds no set.
  std::vector<std::string> Members(const std::string& name) {
    std::vector<std::string> out;
    absl::Status s = testing::ReadValue(
        *store_, name, [&](TypedTxn& txn, const TypedMeta& meta) {
          absl::StatusOr<std::vector<std::string>> m =
              SetMembers(txn, name, meta);
          if (!m.ok()) return m.status();
          EXPECT_EQ(m->size(), meta.size);
          out = *std::move(m);
          return absl::OkStatus();
        });
    EXPECT_TRUE(s.ok()) << s;
    return out;
  }
};

TEST_F(SetTest, AddCountsNewMembersOnceAndSeesItsOwnChanges) {
  Write("s", [](SetWriter& w) {
    EXPECT_TRUE(Answer(w.Add("b")));
    EXPECT_FALSE(Answer(w.Add("b")));  // staged
    EXPECT_TRUE(Answer(w.Add("a")));
    EXPECT_EQ(w.meta().size, 2u);
  });
  EXPECT_THAT(Members("s"), ElementsAre("a", "b"));
  Write("s", [](SetWriter& w) {
    EXPECT_FALSE(Answer(w.Add("a")));  // stored
    EXPECT_TRUE(Answer(w.Add("c")));
  });
  EXPECT_THAT(Members("s"), ElementsAre("a", "b", "c"));
}

TEST_F(SetTest, RemoveTakesOnlyMembersAndEmptyingRemovesTheKey) {
  Write("s", [](SetWriter& w) {
    ASSERT_TRUE(w.Add("a").ok());
    ASSERT_TRUE(w.Add("b").ok());
  });
  Write("s", [](SetWriter& w) {
    EXPECT_FALSE(Answer(w.Remove("x")));
    EXPECT_TRUE(Answer(w.Remove("a")));
    EXPECT_FALSE(Answer(w.Remove("a")));
    EXPECT_EQ(w.meta().size, 1u);
  });
  EXPECT_THAT(Members("s"), ElementsAre("b"));
  Write("s", [](SetWriter& w) { w.RemoveMember("b"); });
  EXPECT_THAT(Members("s"), IsEmpty());
  absl::Status s =
      testing::ReadValue(*store_, "s", [](TypedTxn&, const TypedMeta&) {
        ADD_FAILURE() << "an emptied set keeps its key";
        return absl::OkStatus();
      });
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(SetTest, ReplaceSetOverwritesOrRemovesTheDestination) {
  Write("d", [](SetWriter& w) { ASSERT_TRUE(w.Add("old").ok()); });
  auto replace = [&](const std::vector<std::string>& members) {
    const std::string names[] = {"d"};
    absl::Status s = store_->UpdateTyped(
        names, testing::Now(), [&](TypedTxn& txn) -> absl::Status {
          absl::StatusOr<std::optional<TypedMeta>> old = txn.Meta("d");
          if (!old.ok()) return old.status();
          ReplaceSet(txn, "d", old->has_value(), members);
          return absl::OkStatus();
        });
    ASSERT_TRUE(s.ok()) << s;
  };
  replace({"x", "y"});
  EXPECT_THAT(Members("d"), ElementsAre("x", "y"));
  replace({});
  EXPECT_THAT(Members("d"), IsEmpty());
}

}  // namespace
}  // namespace trackdb::types
