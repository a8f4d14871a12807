#include "types/hash.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
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
using testing::Answer;
using ::testing::ElementsAre;
using ::testing::Pair;

class HashTest : public testing::StoreTest {
 protected:
  // Runs `body` on `name`'s hash (a new one when it has none) and finishes
  // the writer.
  void Write(const std::string& name,
             const std::function<void(HashWriter&)>& body) {
    absl::Status s =
        testing::WriteWith<HashWriter>(*store_, name, ValueType::kHash, body);
    ASSERT_TRUE(s.ok()) << s;
  }

  // The hash's fields as stored and its stored size; size -1 when the key
  // holds no hash.
  std::pair<std::map<std::string, std::string>, int64_t> Read(
      const std::string& name) {
    std::map<std::string, std::string> fields;
    int64_t size = -1;
    absl::Status s = testing::ReadValue(
        *store_, name, [&](TypedTxn& txn, const TypedMeta& meta) {
          size = static_cast<int64_t>(meta.size);
          return txn.Scan(name, meta, "", "", /*reverse=*/false,
                          [&](absl::string_view f, absl::string_view v) {
                            fields.emplace(f, v);
                            return true;
                          });
        });
    EXPECT_TRUE(s.ok()) << s;
    return {fields, size};
  }
};

TEST_F(HashTest, SetCountsNewFieldsOnceAndSeesItsOwnChanges) {
  Write("h", [](HashWriter& w) {
    EXPECT_TRUE(Answer(w.Set("a", "1")));
    EXPECT_FALSE(Answer(w.Set("a", "2")));  // staged
    EXPECT_EQ(w.Get("a").value_or(std::nullopt), "2");
    EXPECT_TRUE(Answer(w.Set("b", "3")));
    EXPECT_EQ(w.meta().size, 2u);
  });
  auto [fields, size] = Read("h");
  EXPECT_THAT(fields, ElementsAre(Pair("a", "2"), Pair("b", "3")));
  EXPECT_EQ(size, 2);
  Write("h", [](HashWriter& w) { EXPECT_FALSE(Answer(w.Set("b", "4"))); });
  EXPECT_EQ(Read("h").second, 2);
}

TEST_F(HashTest, RemoveCountsOnlyPresentFieldsAndAnEmptyHashGoes) {
  Write("h", [](HashWriter& w) {
    ASSERT_TRUE(w.Set("a", "1").ok());
    ASSERT_TRUE(w.Set("b", "2").ok());
  });
  Write("h", [](HashWriter& w) {
    EXPECT_FALSE(Answer(w.Remove("nope")));
    EXPECT_TRUE(Answer(w.Remove("a")));
    EXPECT_FALSE(Answer(w.Remove("a")));  // staged
  });
  auto [fields, size] = Read("h");
  EXPECT_THAT(fields, ElementsAre(Pair("b", "2")));
  EXPECT_EQ(size, 1);
  Write("h", [](HashWriter& w) { EXPECT_TRUE(Answer(w.Remove("b"))); });
  EXPECT_EQ(Read("h").second, -1);  // the key went with its last field
}

TEST_F(HashTest, ASetOfAFieldJustReadCountsAsItIsTold) {
  Write("h", [](HashWriter& w) {
    w.Set("a", "1", /*existed=*/false);
    w.Set("a", "2", /*existed=*/true);
  });
  auto [fields, size] = Read("h");
  EXPECT_THAT(fields, ElementsAre(Pair("a", "2")));
  EXPECT_EQ(size, 1);
}

TEST_F(HashTest, AWriterThatChangesNoSizeStagesNoMeta) {
  // A new hash that gets no field is never created.
  Write("h", [](HashWriter& w) { EXPECT_FALSE(Answer(w.Remove("a"))); });
  EXPECT_EQ(Read("h").second, -1);
}

}  // namespace
}  // namespace trackdb::types
