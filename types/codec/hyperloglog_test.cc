#include "types/codec/hyperloglog.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::types {
namespace {

TEST(HyperLogLogTest, NewHllIsRedisEmptySparseValue) {
  const std::string hll = NewHll();
  EXPECT_EQ(hll, std::string("HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff", 18));
  EXPECT_TRUE(IsHll(hll));
  EXPECT_FALSE(HllIsDense(hll));
  bool cached = true;
  std::string copy = hll;
  EXPECT_EQ(HllCountCaching(&copy, &cached), 0u);
  EXPECT_FALSE(cached);  // the empty value's cache is valid
  EXPECT_EQ(HllDecodeSparse(hll), "Z:16384");
}

TEST(HyperLogLogTest, IsHllChecksMagicEncodingAndDenseSize) {
  EXPECT_FALSE(IsHll("HYLL"));
  EXPECT_FALSE(IsHll(std::string("HYLX\x01", 5) + std::string(13, '\0')));
  EXPECT_FALSE(IsHll(std::string("HYLL\x02", 5) + std::string(13, '\0')));
  std::string dense = NewHll();
  ASSERT_TRUE(HllToDense(&dense));
  EXPECT_EQ(dense.size(), kHllDenseSize);
  EXPECT_TRUE(IsHll(dense));
  EXPECT_FALSE(IsHll(dense + "x"));
}

// MurmurHash64A's known values (Redis's seed for HLL).
TEST(HyperLogLogTest, MurmurHashReadsTailBytesAndWords) {
  EXPECT_NE(MurmurHash64A("a", 0xadc83b19ULL), MurmurHash64A("b", 0xadc83b19));
  EXPECT_NE(MurmurHash64A("abcdefgh", 0), MurmurHash64A("abcdefgi", 0));
  EXPECT_NE(MurmurHash64A("abcdefghi", 0), MurmurHash64A("abcdefghj", 0));
  EXPECT_EQ(MurmurHash64A("", 0), 0u);
}

// Registers set through the sparse runs read back, neighbours untouched,
// and agree with the same registers set dense.
TEST(HyperLogLogTest, SparseAndDenseRegistersAgree) {
  std::string sparse = NewHll();
  std::string dense = NewHll();
  ASSERT_TRUE(HllToDense(&dense));
  HllRegisters want{};
  for (int i : {0, 1, 2, 63, 64, 65, 100, 5000, 16382, 16383}) {
    const uint8_t v = static_cast<uint8_t>(1 + i % 30);
    want[i] = v;
    EXPECT_EQ(HllSet(&sparse, i, v, kHllDefaultSparseMaxBytes), 1);
    EXPECT_EQ(HllSet(&dense, i, v, kHllDefaultSparseMaxBytes), 1);
    EXPECT_EQ(HllSet(&sparse, i, v, kHllDefaultSparseMaxBytes), 0);
  }
  EXPECT_FALSE(HllIsDense(sparse));
  EXPECT_EQ(HllRegistersOf(sparse), want);
  EXPECT_EQ(HllRegistersOf(dense), want);
  HllMarkStale(&sparse);
  HllMarkStale(&dense);
  bool cached = false;
  const auto a = HllCountCaching(&sparse, &cached);
  EXPECT_TRUE(cached);
  EXPECT_EQ(a, HllCountCaching(&dense, &cached));
  EXPECT_EQ(*a, 10u);
}

// Adjacent runs of one value merge, up to four registers a run.
TEST(HyperLogLogTest, AdjacentValuesMerge) {
  std::string hll = NewHll();
  for (int i = 0; i < 5; ++i) HllSet(&hll, i, 3, kHllDefaultSparseMaxBytes);
  EXPECT_EQ(HllDecodeSparse(hll), "v:3,4 v:3,1 Z:16379");
  HllSet(&hll, 10, 2, kHllDefaultSparseMaxBytes);
  EXPECT_EQ(HllDecodeSparse(hll), "v:3,4 v:3,1 z:5 v:2,1 Z:16373");
}

TEST(HyperLogLogTest, TurnsDenseForBigValuesOrSize) {
  std::string big = NewHll();
  EXPECT_EQ(HllSet(&big, 7, 33, kHllDefaultSparseMaxBytes), 1);
  EXPECT_TRUE(HllIsDense(big));
  EXPECT_EQ((*HllRegistersOf(big))[7], 33);

  std::string tight = NewHll();
  int i = 0;
  while (!HllIsDense(tight)) {
    ASSERT_LE(tight.size(), 40u);
    HllSet(&tight, i, 1, 40);  // each apart: two bytes more each time
    i += 2;
  }
  EXPECT_EQ(i, 24);  // 18 bytes, 19 after the first, +2 a set up to 39
  EXPECT_EQ((*HllRegistersOf(tight))[i - 2], 1);
}

TEST(HyperLogLogTest, CorruptSparseRunsAreDetected) {
  std::string hll = NewHll();
  hll.back() = '\x00';  // XZERO of 16129 registers: 255 short
  EXPECT_EQ(HllSet(&hll, 16383, 1, kHllDefaultSparseMaxBytes), -1);
  HllRegisters max{};
  EXPECT_FALSE(HllMergeInto(hll, &max));
  HllMarkStale(&hll);
  bool cached = false;
  EXPECT_FALSE(HllCountCaching(&hll, &cached).has_value());
  std::string copy = hll;
  EXPECT_FALSE(HllToDense(&copy));
  EXPECT_EQ(copy, hll);
}

// A sparse value of 131,072 XZERO runs (a SET or RESTORE may store one)
// covers 2^31 registers: refused as corrupt, never indexed past the 16,384.
TEST(HyperLogLogTest, RunsPastTheRegistersAreCorrupt) {
  std::string hll = NewHll().substr(0, kHllHeaderSize);
  for (int i = 0; i < 131072; ++i) hll += "\x7f\xff";
  hll += "\x80";  // a VAL run after them
  ASSERT_TRUE(IsHll(hll));
  HllRegisters max{};
  EXPECT_FALSE(HllMergeInto(hll, &max));
  EXPECT_EQ(max, HllRegisters{});
  EXPECT_FALSE(HllRegistersOf(hll).has_value());
  std::string copy = hll;
  EXPECT_FALSE(HllToDense(&copy));
  HllMarkStale(&copy);
  bool cached = false;
  EXPECT_FALSE(HllCountCaching(&copy, &cached).has_value());
  // A set grows it past hll-sparse-max-bytes: the dense form it would
  // take cannot be built from it.
  EXPECT_EQ(HllSet(&copy, 16383, 2, kHllDefaultSparseMaxBytes), -1);
}

TEST(HyperLogLogTest, EstimateIsWithinItsError) {
  std::string hll = NewHll();
  for (int i = 0; i < 100000; ++i) {
    HllAdd(&hll, absl::StrCat("element:", i), kHllDefaultSparseMaxBytes);
  }
  HllMarkStale(&hll);
  bool cached = false;
  const uint64_t n = *HllCountCaching(&hll, &cached);
  EXPECT_NEAR(static_cast<double>(n), 100000.0, 100000 * 0.0081 * 4);
  // Cached now: the same answer without the registers.
  std::string copy = hll;
  EXPECT_EQ(*HllCountCaching(&copy, &cached), n);
  EXPECT_FALSE(cached);
}

}  // namespace
}  // namespace trackdb::types
