#include "types/codec/redis_number.h"

#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::types {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// What each parser makes of `s`: its value, or nullopt when refused.
std::optional<double> RedisDouble(absl::string_view s) {
  double v = 0;
  if (!ParseRedisDouble(s, &v)) return std::nullopt;
  return v;
}
std::optional<long double> RedisLongDouble(absl::string_view s) {
  long double v = 0;
  if (!ParseRedisLongDouble(s, &v)) return std::nullopt;
  return v;
}
std::optional<double> ScoreBound(absl::string_view s) {
  double v = 0;
  if (!ParseZsetScoreBound(s, &v)) return std::nullopt;
  return v;
}

TEST(ParseRedisDoubleTest, AcceptsWhatString2dAccepts) {
  EXPECT_EQ(RedisDouble("1"), 1.0);
  EXPECT_EQ(RedisDouble("-1.5"), -1.5);
  EXPECT_EQ(RedisDouble("+2"), 2.0);
  EXPECT_EQ(RedisDouble("1e3"), 1000.0);
  EXPECT_EQ(RedisDouble("0x10"), 16.0);  // strtod reads hex
  EXPECT_EQ(RedisDouble("inf"), kInf);
  EXPECT_EQ(RedisDouble("-inf"), -kInf);
  EXPECT_EQ(RedisDouble("Infinity"), kInf);
  // A denormal (strtod sets ERANGE, but the value is not zero).
  const std::optional<double> denormal = RedisDouble("1e-310");
  ASSERT_TRUE(denormal.has_value());
  EXPECT_EQ(std::fpclassify(*denormal), FP_SUBNORMAL);
}

TEST(ParseRedisDoubleTest, RefusesWhatString2dRefuses) {
  EXPECT_EQ(RedisDouble(""), std::nullopt);
  EXPECT_EQ(RedisDouble(" 1"), std::nullopt);  // leading space
  EXPECT_EQ(RedisDouble("\t1"), std::nullopt);
  EXPECT_EQ(RedisDouble("1 "), std::nullopt);  // trailing bytes
  EXPECT_EQ(RedisDouble("1x"), std::nullopt);
  EXPECT_EQ(RedisDouble(std::string("1\0", 2)), std::nullopt);
  EXPECT_EQ(RedisDouble("nan"), std::nullopt);
  EXPECT_EQ(RedisDouble("-nan"), std::nullopt);
  EXPECT_EQ(RedisDouble("1e400"), std::nullopt);  // overflow
  EXPECT_EQ(RedisDouble("-1e400"), std::nullopt);
  EXPECT_EQ(RedisDouble("1e-400"), std::nullopt);  // underflow to 0
  EXPECT_EQ(RedisDouble("abc"), std::nullopt);
}

TEST(ParseRedisLongDoubleTest, AcceptsLongDoubleRange) {
  EXPECT_EQ(RedisLongDouble("1.5"), 1.5L);
  EXPECT_EQ(RedisLongDouble("0x10"), 16.0L);
  EXPECT_EQ(RedisLongDouble("inf"),
            std::numeric_limits<long double>::infinity());
  // Beyond double, within long double.
  ASSERT_TRUE(RedisLongDouble("1e400").has_value());
  EXPECT_GT(*RedisLongDouble("1e400"), 1e300L);
}

TEST(ParseRedisLongDoubleTest, RefusesWhatString2ldRefuses) {
  EXPECT_EQ(RedisLongDouble(""), std::nullopt);
  EXPECT_EQ(RedisLongDouble(" 1"), std::nullopt);
  EXPECT_EQ(RedisLongDouble("1 "), std::nullopt);
  EXPECT_EQ(RedisLongDouble("nan"), std::nullopt);
  EXPECT_EQ(RedisLongDouble("1e5000"), std::nullopt);   // overflow
  EXPECT_EQ(RedisLongDouble("1e-5000"), std::nullopt);  // underflow to 0
  EXPECT_EQ(RedisLongDouble(std::string(5 * 1024, '1')), std::nullopt);
}

TEST(ParseZsetScoreBoundTest, ReadsAsZslParseRangeDoes) {
  EXPECT_EQ(ScoreBound("1"), 1.0);
  EXPECT_EQ(ScoreBound(" 1"), 1.0);  // strtod skips leading spaces
  EXPECT_EQ(ScoreBound(""), 0.0);    // no digits: strtod reads 0
  EXPECT_EQ(ScoreBound("inf"), kInf);
  EXPECT_EQ(ScoreBound("-inf"), -kInf);
  EXPECT_EQ(ScoreBound("1e400"), kInf);  // overflow is +inf, not an error
  EXPECT_EQ(ScoreBound("1e-400"), 0.0);
  EXPECT_EQ(ScoreBound("0x10"), 16.0);
  EXPECT_EQ(ScoreBound(std::string("2\0junk", 6)), 2.0);  // a C string
  ASSERT_TRUE(ScoreBound("1e-310").has_value());
  EXPECT_EQ(std::fpclassify(*ScoreBound("1e-310")), FP_SUBNORMAL);
}

TEST(ParseZsetScoreBoundTest, RefusesTrailingBytesAndNan) {
  EXPECT_EQ(ScoreBound("1 "), std::nullopt);
  EXPECT_EQ(ScoreBound("1x"), std::nullopt);
  EXPECT_EQ(ScoreBound("nan"), std::nullopt);
  EXPECT_EQ(ScoreBound("(1"), std::nullopt);  // the caller strips '('
}

TEST(ParseInt64Test, StrictDecimal) {
  int64_t v = 0;
  EXPECT_TRUE(ParseInt64("-42", &v));
  EXPECT_EQ(v, -42);
  EXPECT_TRUE(ParseInt64("9223372036854775807", &v));
  EXPECT_FALSE(ParseInt64("9223372036854775808", &v));
  EXPECT_FALSE(ParseInt64("+1", &v));
  EXPECT_FALSE(ParseInt64(" 1", &v));
  EXPECT_FALSE(ParseInt64("01", &v));
  EXPECT_FALSE(ParseInt64("-0", &v));
  EXPECT_FALSE(ParseInt64("", &v));
}

// ParseRedisMemory's verdict on `s`: its bytes, "not memory" or "out of
// range".
std::string Memory(absl::string_view s) {
  std::optional<int64_t> v;
  if (!ParseRedisMemory(s, &v)) return "not memory";
  return v.has_value() ? std::to_string(*v) : "out of range";
}

TEST(ParseRedisMemoryTest, DigitsThenAUnit) {
  EXPECT_EQ(Memory("2097152"), "2097152");
  EXPECT_EQ(Memory("2097152b"), "2097152");
  EXPECT_EQ(Memory("2k"), "2000");
  EXPECT_EQ(Memory("2KB"), "2048");
  EXPECT_EQ(Memory("2m"), "2000000");
  EXPECT_EQ(Memory("2Mb"), "2097152");
  EXPECT_EQ(Memory("1gb"), "1073741824");
  EXPECT_EQ(Memory(""), "0");
}

TEST(ParseRedisMemoryTest, RefusesSignsFractionsAndOtherUnits) {
  EXPECT_EQ(Memory("-1"), "not memory");
  EXPECT_EQ(Memory("+1"), "not memory");
  EXPECT_EQ(Memory("1.5gb"), "not memory");
  EXPECT_EQ(Memory("2x"), "not memory");
  EXPECT_EQ(Memory(" 1"), "not memory");
}

TEST(ParseRedisMemoryTest, OverInt64IsOutOfRange) {
  EXPECT_EQ(Memory("99999999999999999999"), "out of range");
  EXPECT_EQ(Memory("9223372036854775808"), "out of range");
  EXPECT_EQ(Memory("9999999999gb"), "out of range");
  EXPECT_EQ(Memory("9223372036854775807"), "9223372036854775807");
}

TEST(FormatLongDoubleTest, DropsTrailingZeros) {
  EXPECT_EQ(FormatLongDouble(1.5L), "1.5");
  EXPECT_EQ(FormatLongDouble(3.0L), "3");
  EXPECT_EQ(FormatLongDouble(-0.0L), "0");
}

}  // namespace
}  // namespace trackdb::types
