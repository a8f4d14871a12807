#include "types/codec/bitmap.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::types {
namespace {

TEST(BitmapTest, BitZeroIsTheFirstBytesHighBit) {
  std::string s;
  EXPECT_EQ(SetBit(&s, 0, 1), 0);
  EXPECT_EQ(s, "\x80");
  EXPECT_EQ(SetBit(&s, 17, 1), 0);
  EXPECT_EQ(s, std::string("\x80\x00\x40", 3));
  EXPECT_EQ(SetBit(&s, 17, 0), 1);
  EXPECT_EQ(GetBit(s, 0), 1);
  EXPECT_EQ(GetBit(s, 1000), 0);
}

TEST(BitmapTest, RangesAsRedisConvertsThem) {
  // 3 bytes: bytes -2..-1 are 1..2; bits 5..-1 are 5..23.
  auto r = NormalizeRange(-2, -1, 3, false, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first_bit, 8u);
  EXPECT_EQ(r->last_bit, 23u);
  r = NormalizeRange(5, -1, 3, true, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first_bit, 5u);
  EXPECT_EQ(r->last_bit, 23u);
  EXPECT_FALSE(NormalizeRange(-1, -2, 3, false, true));
  // BITPOS converts them: bytes 2..1 of 3, then clamped to 0..0.
  r = NormalizeRange(-8, -9, 3, false, false);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first_bit, 0u);
  EXPECT_EQ(r->last_bit, 7u);
  EXPECT_FALSE(NormalizeRange(2, 1, 3, false, true));
  EXPECT_FALSE(NormalizeRange(0, -1, 0, false, true));
  r = NormalizeRange(-100, 100, 3, false, true);  // clamped to the string
  ASSERT_TRUE(r);
  EXPECT_EQ(r->last_bit, 23u);
}

TEST(BitmapTest, CountAndFindInsideTheRange) {
  const std::string s("\xff\xf0\x00", 3);
  EXPECT_EQ(CountBits(s, {0, 23}), 12);
  EXPECT_EQ(CountBits(s, {3, 10}), 8);
  EXPECT_EQ(FindBit(s, 0, {0, 23}), 12);
  EXPECT_EQ(FindBit(s, 1, {13, 23}), -1);
  EXPECT_EQ(FindBit(s, 1, {9, 23}), 9);
  EXPECT_EQ(FindBit(s, 0, {0, 7}), -1);
}

TEST(BitmapTest, BitOpsZeroPadTheShorter) {
  const std::string a("\xf0\x0f", 2), b("\xff", 1);
  EXPECT_EQ(ApplyBitOp(BitOperation::kAnd, {a, b}), std::string("\xf0\x00", 2));
  EXPECT_EQ(ApplyBitOp(BitOperation::kOr, {a, b}), std::string("\xff\x0f", 2));
  EXPECT_EQ(ApplyBitOp(BitOperation::kXor, {a, b}), std::string("\x0f\x0f", 2));
  EXPECT_EQ(ApplyBitOp(BitOperation::kNot, {a}), std::string("\x0f\xf0", 2));
  EXPECT_EQ(ApplyBitOp(BitOperation::kOr, {"", ""}), "");
}

TEST(BitmapTest, FieldsAndTheirOverflow) {
  std::string s(2, '\0');
  const BitfieldType u4{false, 4}, i8{true, 8};
  SetBitfield(&s, 4, u4, 0xb);
  EXPECT_EQ(s, std::string("\x0b\x00", 2));
  EXPECT_EQ(GetBitfield(s, 4, u4), 11);
  EXPECT_EQ(GetBitfield(s, 0, i8), 11);
  SetBitfield(&s, 0, i8, static_cast<uint64_t>(-2));
  EXPECT_EQ(GetBitfield(s, 0, i8), -2);
  EXPECT_EQ(AddToBitfield(15, 1, u4, Overflow::kWrap), 0);
  EXPECT_EQ(AddToBitfield(15, 1, u4, Overflow::kSat), 15);
  EXPECT_EQ(AddToBitfield(15, 1, u4, Overflow::kFail), std::nullopt);
  EXPECT_EQ(AddToBitfield(0, -1, u4, Overflow::kSat), 0);
  EXPECT_EQ(AddToBitfield(127, 1, i8, Overflow::kWrap), -128);
  EXPECT_EQ(AddToBitfield(-128, -1, i8, Overflow::kSat), -128);
  EXPECT_EQ(AddToBitfield(200, 0, i8, Overflow::kWrap), -56);  // SET 200
  EXPECT_EQ(AddToBitfield(-1, 0, u4, Overflow::kWrap), 15);    // SET -1
  // SET u8 to INT64_MIN: 2^63 as the unsigned value, no signed overflow.
  EXPECT_EQ(AddToBitfield(INT64_MIN, 0, u4, Overflow::kSat), 15);
  EXPECT_EQ(AddToBitfield(INT64_MIN, 0, u4, Overflow::kWrap), 0);
  const BitfieldType i64{true, 64};
  EXPECT_EQ(AddToBitfield(INT64_MAX, 1, i64, Overflow::kWrap), INT64_MIN);
  EXPECT_EQ(AddToBitfield(INT64_MAX, 1, i64, Overflow::kFail), std::nullopt);
}

}  // namespace
}  // namespace trackdb::types
