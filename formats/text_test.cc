#include "formats/text.h"

#include <cstdlib>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::formats {
namespace {

TEST(TextTest, NumbersReadBackExactly) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-180, 180);
  for (int i = 0; i < 10000; ++i) {
    const double v = u(rng);
    EXPECT_EQ(std::strtod(Number(v).c_str(), nullptr), v);
  }
  EXPECT_EQ(Number(0.1), "0.1");
  EXPECT_EQ(Number(116.4), "116.4");
  EXPECT_EQ(Number(-5), "-5");
}

TEST(TextTest, IsoTimesInUtcWithMilliseconds) {
  EXPECT_EQ(IsoTime(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(IsoTime(1763700015123), "2025-11-21T04:40:15.123Z");
  EXPECT_EQ(IsoTime(-1), "1969-12-31T23:59:59.999Z");
}

TEST(TextTest, InvalidUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(ValidUtf8("caf\xC3\xA9 \xF0\x9F\x9A\x97"),
            "caf\xC3\xA9 \xF0\x9F\x9A\x97");
  EXPECT_EQ(ValidUtf8("a\xFF"
                      "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(ValidUtf8("\xC0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"),                           // a surrogate
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ValidUtf8("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short
}

TEST(TextTest, EscapesForEachFormat) {
  EXPECT_EQ(JsonString("a\"b\\c\nd\x01"), "\"a\\\"b\\\\c\\nd\\u0001\"");
  EXPECT_EQ(XmlText("a&b<c>\"'\x01"),
            "a&amp;b&lt;c&gt;&quot;&apos;\xEF\xBF\xBD");
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
}

}  // namespace
}  // namespace trackdb::formats
