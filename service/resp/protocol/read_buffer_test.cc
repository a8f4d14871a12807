#include "service/resp/protocol/read_buffer.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace trackdb::resp {
namespace {

TEST(ReadBufferTest, StartsAtTheSmallestSize) {
  ReadBuffer buffer;
  EXPECT_EQ(buffer.size(), ReadBuffer::kMinBytes);
  EXPECT_NE(buffer.data(), nullptr);
}

TEST(ReadBufferTest, AFullReadGrowsItUpToTheLargestSize) {
  ReadBuffer buffer;
  buffer.Took(ReadBuffer::kMinBytes);
  EXPECT_EQ(buffer.size(), 2 * ReadBuffer::kMinBytes);
  for (int i = 0; i < 20; ++i) buffer.Took(buffer.size());
  EXPECT_EQ(buffer.size(), ReadBuffer::kMaxBytes);
}

TEST(ReadBufferTest, APipelinedBatchFitsAfterOneFullRead) {
  // redis-benchmark -P 16's LPUSH batch.
  constexpr size_t kBatch = 576;
  ReadBuffer buffer;
  buffer.Took(std::min(kBatch, buffer.size()));
  ASSERT_GE(buffer.size(), kBatch);
  const size_t settled = buffer.size();
  for (int i = 0; i < 10; ++i) buffer.Took(kBatch);
  EXPECT_EQ(buffer.size(), settled);  // neither full nor a quarter used
}

TEST(ReadBufferTest, ShortReadsShrinkItOneStepEachToTheSmallestSize) {
  ReadBuffer buffer;
  for (int i = 0; i < 20; ++i) buffer.Took(buffer.size());
  ASSERT_EQ(buffer.size(), ReadBuffer::kMaxBytes);
  buffer.Took(40);
  EXPECT_EQ(buffer.size(), ReadBuffer::kMaxBytes / 2);
  for (int i = 0; i < 20; ++i) buffer.Took(40);
  EXPECT_EQ(buffer.size(), ReadBuffer::kMinBytes);
}

TEST(ReadBufferTest, AReadOverAQuarterKeepsTheSize) {
  ReadBuffer buffer;
  buffer.Took(buffer.size());
  buffer.Took(buffer.size());
  const size_t size = buffer.size();
  buffer.Took(size / 4 + 1);
  EXPECT_EQ(buffer.size(), size);
  buffer.Took(size / 4);
  EXPECT_EQ(buffer.size(), size / 2);
}

}  // namespace
}  // namespace trackdb::resp
