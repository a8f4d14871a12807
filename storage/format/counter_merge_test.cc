#include "storage/format/counter_merge.h"

#include <memory>

#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "storage/store_test_util.h"

namespace trackdb::storage {
namespace {

TEST(CounterMergeTest, EncodesLittleEndianInt64) {
  for (int64_t v :
       {int64_t{0}, int64_t{1}, int64_t{-1}, INT64_MAX, INT64_MIN}) {
    EXPECT_EQ(DecodeCounter(EncodeCounter(v)), v);
  }
  EXPECT_EQ(EncodeCounter(1), std::string("\1\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(DecodeCounter("1234567"), std::nullopt);
}

TEST(CounterMergeTest, MergesDeltasOverPutsAndFlushes) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.merge_operator = NewCounterMergeOperator();
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, testing::NewDataDir(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  const rocksdb::WriteOptions w;
  ASSERT_TRUE(db->Merge(w, "k", EncodeCounter(5)).ok());
  ASSERT_TRUE(db->Merge(w, "k", EncodeCounter(-2)).ok());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(db->Merge(w, "k", EncodeCounter(10)).ok());
  std::string value;
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "k", &value).ok());
  EXPECT_EQ(DecodeCounter(value), 13);
  ASSERT_TRUE(db->Put(w, "k", EncodeCounter(100)).ok());
  ASSERT_TRUE(db->Merge(w, "k", EncodeCounter(1)).ok());
  ASSERT_TRUE(
      db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "k", &value).ok());
  EXPECT_EQ(DecodeCounter(value), 101);
  // A corrupt operand is an error, not a silent wrong count.
  ASSERT_TRUE(db->Merge(w, "k", "bad").ok());
  EXPECT_FALSE(db->Get(rocksdb::ReadOptions(), "k", &value).ok());
}

}  // namespace
}  // namespace trackdb::storage
