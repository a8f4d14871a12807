#include "types/zset.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/format/typed_codec.h"
#include "storage/store_test_util.h"
#include "types/key_type.h"
#include "types/typed_test_util.h"

namespace trackdb::types {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;
using ::testing::ElementsAre;
using ::testing::Pair;

using testing::Now;

class ZsetTest : public testing::StoreTest {
 protected:
  // Runs `body` on `name`'s zset (a new one when it has none) and
  // finishes the writer.
  void Write(const std::string& name,
             const std::function<void(ZsetWriter&)>& body) {
    absl::Status s =
        testing::WriteWith<ZsetWriter>(*store_, name, ValueType::kZset, body);
    ASSERT_TRUE(s.ok()) << s;
  }

  // The zset's entries in sorted-set order and its stored size; size -1
  // when the key holds no zset.
  std::pair<std::vector<std::pair<std::string, double>>, int64_t> Read(
      const std::string& name) {
    std::vector<std::pair<std::string, double>> entries;
    int64_t size = -1;
    absl::Status s = testing::ReadValue(
        *store_, name, [&](TypedTxn& txn, const TypedMeta& meta) {
          size = static_cast<int64_t>(meta.size);
          return TypedZsetReader(txn, name, meta)
              .Walk(false, std::nullopt, [&](const ZEntry& e) {
                entries.push_back({e.member, e.score});
                return true;
              });
        });
    EXPECT_TRUE(s.ok()) << s;
    return {entries, size};
  }
};

TEST_F(ZsetTest, WriterKeepsBothIndexesAndTheSize) {
  Write("z", [](ZsetWriter& w) {
    w.Set("b", std::nullopt, 2);
    w.Set("a", std::nullopt, 3);
    w.Set("c", std::nullopt, 1);
  });
  auto [entries, size] = Read("z");
  EXPECT_THAT(entries, ElementsAre(Pair("c", 1), Pair("b", 2), Pair("a", 3)));
  EXPECT_EQ(size, 3);

  // A new score moves the member in the score order; no stale entry stays.
  Write("z", [](ZsetWriter& w) {
    absl::StatusOr<std::optional<double>> old = w.Score("a");
    ASSERT_TRUE(old.ok());
    ASSERT_EQ(*old, std::optional<double>(3));
    w.Set("a", *old, 0.5);
  });
  std::tie(entries, size) = Read("z");
  EXPECT_THAT(entries, ElementsAre(Pair("a", 0.5), Pair("c", 1), Pair("b", 2)));
  EXPECT_EQ(size, 3);
}

TEST_F(ZsetTest, EmptiedZsetIsRemoved) {
  Write("z", [](ZsetWriter& w) {
    w.Set("a", std::nullopt, 1);
    w.Set("b", std::nullopt, 2);
  });
  Write("z", [](ZsetWriter& w) {
    w.Remove("a", 1);
    w.Remove("b", 2);
  });
  EXPECT_EQ(Read("z").second, -1);
  absl::StatusOr<KeyType> type = TypeOf(*store_, "z", Now());
  ASSERT_TRUE(type.ok());
  EXPECT_EQ(*type, KeyType::kNone);
}

TEST_F(ZsetTest, SourcesAreZsetsSetsAndGeoKeysAndNothingElse) {
  Write("z", [](ZsetWriter& w) { w.Set("m", std::nullopt, 7); });
  const std::string names[] = {"s"};
  ASSERT_TRUE(store_
                  ->UpdateTyped(names, Now(),
                                [](TypedTxn& txn) {
                                  TypedMeta meta = txn.Create(ValueType::kSet);
                                  txn.Put("s", meta, "y", "");
                                  txn.Put("s", meta, "x", "");
                                  meta.size = 2;
                                  txn.SetMeta("s", meta);
                                  return absl::OkStatus();
                                })
                  .ok());
  ASSERT_TRUE(store_->PutString("str", {"v", 0}, Now()).ok());
  ASSERT_TRUE(
      store_->AddPoints("geo", {storage::testing::Point("p", 1000, 38.1, 13.3)})
          .ok());

  const std::string all[] = {"z", "s", "str", "geo", "none"};
  absl::Status s = store_->ReadTyped(all, Now(), [&](TypedTxn& txn) {
    auto kind = [&](const std::string& name, bool sets) {
      absl::StatusOr<std::optional<ZsetSource>> src =
          LookupZsetSource(*store_, txn, name, sets);
      EXPECT_TRUE(src.ok()) << src.status();
      return src.ok() && *src ? static_cast<int>((*src)->kind) : -1;
    };
    EXPECT_EQ(kind("z", false), ZsetSource::kZset);
    EXPECT_EQ(kind("s", true), ZsetSource::kSet);
    EXPECT_EQ(kind("s", false), -1);  // WRONGTYPE where sets are not taken
    EXPECT_EQ(kind("str", true), -1);
    EXPECT_EQ(kind("geo", false), ZsetSource::kGeo);
    EXPECT_EQ(kind("none", false), ZsetSource::kNone);

    // A set's members score 1, in member order.
    absl::StatusOr<std::optional<ZsetSource>> set =
        LookupZsetSource(*store_, txn, "s", true);
    absl::StatusOr<std::vector<ZEntry>> loaded =
        LoadZsetSource(*store_, txn, "s", **set);
    EXPECT_TRUE(loaded.ok());
    std::vector<std::pair<std::string, double>> got;
    for (const ZEntry& e : *loaded) got.push_back({e.member, e.score});
    EXPECT_THAT(got, ElementsAre(Pair("x", 1), Pair("y", 1)));
    return absl::OkStatus();
  });
  ASSERT_TRUE(s.ok()) << s;
}

TEST_F(ZsetTest, StageNewZsetReplacesTheOldValueWhole) {
  Write("z", [](ZsetWriter& w) {
    w.Set("old1", std::nullopt, 1);
    w.Set("old2", std::nullopt, 2);
  });
  const std::string names[] = {"z"};
  ASSERT_TRUE(store_
                  ->UpdateTyped(
                      names, Now(),
                      [](TypedTxn& txn) {
                        StageNewZset(txn, "z", /*had_typed=*/true, {{"n", 5}});
                        return absl::OkStatus();
                      })
                  .ok());
  auto [entries, size] = Read("z");
  EXPECT_THAT(entries, ElementsAre(Pair("n", 5)));
  EXPECT_EQ(size, 1);
}

}  // namespace
}  // namespace trackdb::types
