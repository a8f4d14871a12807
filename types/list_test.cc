#include "types/list.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/format/typed_codec.h"
#include "storage/store_test_util.h"
#include "types/typed_test_util.h"

namespace trackdb::types::list {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ListArithmeticTest, PositionCountsNegativeIndexesFromTheTail) {
  EXPECT_EQ(Position(0, 3), 0u);
  EXPECT_EQ(Position(2, 3), 2u);
  EXPECT_EQ(Position(-1, 3), 2u);
  EXPECT_EQ(Position(-3, 3), 0u);
  EXPECT_EQ(Position(3, 3), std::nullopt);
  EXPECT_EQ(Position(-4, 3), std::nullopt);
  EXPECT_EQ(Position(0, 0), std::nullopt);
}

TEST(ListArithmeticTest, RangeOfClampsAsRedisDoes) {
  auto span = [](int64_t start, int64_t end, uint64_t size) {
    const Span s = RangeOf(start, end, size);
    return std::vector<uint64_t>{s.first, s.count};
  };
  EXPECT_THAT(span(0, -1, 5), ElementsAre(0, 5));
  EXPECT_THAT(span(1, 2, 5), ElementsAre(1, 2));
  EXPECT_THAT(span(-100, 100, 5), ElementsAre(0, 5));
  EXPECT_THAT(span(-2, -1, 5), ElementsAre(3, 2));
  EXPECT_EQ(RangeOf(3, 1, 5).count, 0u);   // start past end
  EXPECT_EQ(RangeOf(5, 10, 5).count, 0u);  // start past the tail
  EXPECT_EQ(RangeOf(0, -6, 5).count, 0u);  // end before the head
  EXPECT_EQ(RangeOf(0, -1, 0).count, 0u);
}

TEST(ListArithmeticTest, TrimmedEndsKeepTheSpanOrNothing) {
  const Ends keep_middle = TrimmedEnds(RangeOf(1, 2, 5), 5);
  EXPECT_EQ(keep_middle.left, 1u);
  EXPECT_EQ(keep_middle.right, 2u);
  const Ends keep_all = TrimmedEnds(RangeOf(0, -1, 5), 5);
  EXPECT_EQ(keep_all.left + keep_all.right, 0u);
  const Ends keep_none = TrimmedEnds(RangeOf(4, 1, 5), 5);
  EXPECT_EQ(keep_none.left + keep_none.right, 5u);
}

TEST(ListArithmeticTest, WithoutMatchesCountsFromEitherEnd) {
  const std::vector<std::string> was = {"a", "x", "b", "x", "c", "x"};
  EXPECT_THAT(WithoutMatches(was, "x", 0), ElementsAre("a", "b", "c"));
  EXPECT_THAT(WithoutMatches(was, "x", 2), ElementsAre("a", "b", "c", "x"));
  EXPECT_THAT(WithoutMatches(was, "x", -2), ElementsAre("a", "x", "b", "c"));
  EXPECT_THAT(WithoutMatches(was, "x", INT64_MIN), ElementsAre("a", "b", "c"));
  EXPECT_EQ(WithoutMatches(was, "y", 0), was);
}

class ListTest : public testing::StoreTest {
 protected:
  // Runs `body` on the list `kName` (a new one when there is none) and
  // stores the meta it leaves.
  void Write(const std::function<void(TypedTxn&, TypedMeta&)>& body) {
    absl::Status s =
        testing::WriteValue(*store_, kName, ValueType::kList,
                            [&](TypedTxn& txn, const TypedMeta& found) {
                              TypedMeta meta = found;
                              body(txn, meta);
                              txn.SetMeta(kName, meta);
                            });
    ASSERT_TRUE(s.ok()) << s;
  }

  void Push(const std::vector<std::string>& values, End end) {
    Write([&](TypedTxn& txn, TypedMeta& meta) {
      for (const std::string& v : values) PushElement(txn, kName, meta, v, end);
    });
  }

  // The list as stored, head first, read both ways (by key and by scan
  // agree), checked against its size; empty when it has no key.
  std::vector<std::string> Elements() {
    std::vector<std::string> out;
    absl::Status s = testing::ReadValue(
        *store_, kName, [&](TypedTxn& txn, const TypedMeta& meta) {
          absl::StatusOr<std::vector<std::string>> all =
              ReadAll(txn, kName, meta);
          if (!all.ok()) return all.status();
          std::vector<std::string> scanned;
          absl::Status scan =
              ScanElements(txn, kName, meta, 0, false,
                           [&](uint64_t pos, absl::string_view v) {
                             EXPECT_EQ(pos, scanned.size());
                             scanned.emplace_back(v);
                             return true;
                           });
          if (!scan.ok()) return scan;
          EXPECT_EQ(scanned, *all);
          EXPECT_EQ(all->size(), meta.size);
          out = *std::move(all);
          return absl::OkStatus();
        });
    EXPECT_TRUE(s.ok()) << s;
    return out;
  }

  static constexpr char kName[] = "l";
};

TEST_F(ListTest, PushesAtEitherEndAndPopsInOrder) {
  Push({"b", "a"}, End::kLeft);
  Push({"c", "d"}, End::kRight);
  EXPECT_THAT(Elements(), ElementsAre("a", "b", "c", "d"));
  Write([&](TypedTxn& txn, TypedMeta& meta) {
    EXPECT_EQ(PopElement(txn, kName, meta, End::kLeft).value_or(""), "a");
    EXPECT_EQ(PopElement(txn, kName, meta, End::kRight).value_or(""), "d");
  });
  EXPECT_THAT(Elements(), ElementsAre("b", "c"));
}

TEST_F(ListTest, PopCountedTakesUpToCountAndEmptyingRemovesTheKey) {
  Push({"a", "b", "c"}, End::kRight);
  Write([&](TypedTxn& txn, TypedMeta& meta) {
    EXPECT_THAT(PopCounted(txn, kName, meta, End::kRight, 2).value(),
                ElementsAre("c", "b"));
  });
  EXPECT_THAT(Elements(), ElementsAre("a"));
  Write([&](TypedTxn& txn, TypedMeta& meta) {
    EXPECT_THAT(PopCounted(txn, kName, meta, End::kLeft, 10).value(),
                ElementsAre("a"));
    EXPECT_EQ(meta.size, 0u);
  });
  EXPECT_THAT(Elements(), IsEmpty());
}

TEST_F(ListTest, ReadAndSetOneElement) {
  Push({"a", "b", "c"}, End::kRight);
  Write([&](TypedTxn& txn, TypedMeta& meta) {
    SetElement(txn, kName, meta, *Position(-1, meta.size), "z");
  });
  absl::Status s = testing::ReadValue(
      *store_, kName, [&](TypedTxn& txn, const TypedMeta& meta) {
        EXPECT_EQ(ReadElement(txn, kName, meta, 1).value_or(""), "b");
        EXPECT_EQ(ReadElement(txn, kName, meta, 2).value_or(""), "z");
        return absl::OkStatus();
      });
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(ListTest, RemoveEndsTrimsBothSides) {
  Push({"a", "b", "c", "d", "e"}, End::kRight);
  Write([&](TypedTxn& txn, TypedMeta& meta) {
    RemoveEnds(txn, kName, meta, 1, 2);
  });
  EXPECT_THAT(Elements(), ElementsAre("b", "c"));
}

TEST_F(ListTest, ReadElementsByKeyAndByScanAgreeBothWays) {
  // Past kMaxElementsByKey (512) a range is read by one scan.
  std::vector<std::string> values;
  for (int i = 0; i < 600; ++i) values.push_back(absl::StrCat(i));
  Push(values, End::kRight);
  absl::Status s = testing::ReadValue(
      *store_, kName, [&](TypedTxn& txn, const TypedMeta& meta) {
        const std::vector<std::string> few =
            ReadElements(txn, kName, meta, 10, 3, false).value();
        EXPECT_THAT(few, ElementsAre("10", "11", "12"));
        const std::vector<std::string> back =
            ReadElements(txn, kName, meta, 599, 3, true).value();
        EXPECT_THAT(back, ElementsAre("599", "598", "597"));
        const std::vector<std::string> many =
            ReadElements(txn, kName, meta, 50, 550, false).value();
        EXPECT_EQ(many.size(), 550u);
        EXPECT_EQ(many.front(), "50");
        EXPECT_EQ(many.back(), "599");
        return absl::OkStatus();
      });
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(ListTest, RewriteListWritesOnlyTheShiftedEnd) {
  Push({"a", "b", "c", "d"}, End::kRight);
  // Removing the first element: anchored at the tail, the head moves and
  // no element is rewritten.
  Write([&](TypedTxn& txn, TypedMeta& meta) {
    const uint64_t head = meta.head;
    RewriteList(txn, kName, meta, {"a", "b", "c", "d"}, {"b", "c", "d"});
    EXPECT_EQ(meta.head, head + 1);
  });
  EXPECT_THAT(Elements(), ElementsAre("b", "c", "d"));
  // Inserting after the first element: anchored at the tail, the head
  // moves back one and only the first two positions are written.
  Write([&](TypedTxn& txn, TypedMeta& meta) {
    const uint64_t head = meta.head;
    RewriteList(txn, kName, meta, {"b", "c", "d"}, {"b", "x", "c", "d"});
    EXPECT_EQ(meta.head, head - 1);
  });
  EXPECT_THAT(Elements(), ElementsAre("b", "x", "c", "d"));
  // Inserting before the last one: anchored at the head, which stays.
  Write([&](TypedTxn& txn, TypedMeta& meta) {
    const uint64_t head = meta.head;
    RewriteList(txn, kName, meta, {"b", "x", "c", "d"},
                {"b", "x", "c", "y", "d"});
    EXPECT_EQ(meta.head, head);
  });
  EXPECT_THAT(Elements(), ElementsAre("b", "x", "c", "y", "d"));
  Write([&](TypedTxn& txn, TypedMeta& meta) {
    RewriteList(txn, kName, meta, {"b", "x", "c", "y", "d"}, {});
  });
  EXPECT_THAT(Elements(), IsEmpty());
}

PosOptions Opts(int64_t rank, bool has_count, int64_t count, int64_t maxlen) {
  PosOptions opts;
  opts.rank = rank;
  opts.has_count = has_count;
  opts.count = count;
  opts.maxlen = maxlen;
  return opts;
}

TEST_F(ListTest, MatchesFollowsRankCountAndMaxlen) {
  Push({"x", "a", "x", "b", "x"}, End::kRight);
  auto matches = [&](PosOptions opts) {
    std::vector<uint64_t> out;
    absl::Status s = testing::ReadValue(
        *store_, kName, [&](TypedTxn& txn, const TypedMeta& meta) {
          absl::StatusOr<std::vector<uint64_t>> m =
              Matches(txn, kName, meta, "x", opts);
          if (!m.ok()) return m.status();
          out = *m;
          return absl::OkStatus();
        });
    EXPECT_TRUE(s.ok()) << s;
    return out;
  };
  EXPECT_THAT(matches(Opts(1, false, 0, 0)), ElementsAre(0));
  EXPECT_THAT(matches(Opts(2, false, 0, 0)), ElementsAre(2));
  EXPECT_THAT(matches(Opts(-1, false, 0, 0)), ElementsAre(4));
  EXPECT_THAT(matches(Opts(1, true, 0, 0)), ElementsAre(0, 2, 4));
  EXPECT_THAT(matches(Opts(-1, true, 2, 0)), ElementsAre(4, 2));
  EXPECT_THAT(matches(Opts(1, true, 0, 3)), ElementsAre(0, 2));
  EXPECT_THAT(matches(Opts(INT64_MIN, true, 1, 0)), ElementsAre(4, 2, 0));
}

}  // namespace
}  // namespace trackdb::types::list
