#include "tools/import/json_input.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::import {
namespace {

using ::testing::HasSubstr;

// The value of `text`, as compact JSON text.
std::string Parse(absl::string_view text) {
  JsonDocument doc;
  size_t end = 0;
  absl::Status s = doc.ParsePrefix(text, &end);
  EXPECT_TRUE(s.ok()) << text << ": " << s;
  return JsonToString(doc.value());
}

std::string Error(absl::string_view text) {
  JsonDocument doc;
  size_t end = 0;
  absl::Status s = doc.ParsePrefix(text, &end);
  EXPECT_FALSE(s.ok()) << text;
  return std::string(s.message());
}

std::string Text(absl::string_view json) {
  JsonDocument doc;
  size_t end = 0;
  EXPECT_TRUE(doc.ParsePrefix(json, &end).ok()) << json;
  std::string text;
  EXPECT_TRUE(JsonAsText(doc.value(), &text)) << json;
  return text;
}

TEST(JsonInputTest, ValuesAndWhereTheyEnd) {
  JsonDocument doc;
  size_t end = 0;
  ASSERT_TRUE(
      doc.ParsePrefix(R"( {"a": [1, {"b": null}], "c": "x"} tail)", &end).ok());
  EXPECT_EQ(end, 34u);  // just after the '}'
  EXPECT_EQ(JsonToString(doc.value()), R"({"a":[1,{"b":null}],"c":"x"})");
  EXPECT_EQ(Parse("[]"), "[]");
  EXPECT_EQ(Parse("{}"), "{}");
  EXPECT_EQ(Parse(" true "), "true");
}

TEST(JsonInputTest, NumbersAsText) {
  EXPECT_EQ(Text("1763700000000123"), "1763700000000123");  // beyond 2^53
  EXPECT_EQ(Text("18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(Text("-42"), "-42");
  EXPECT_EQ(Text("39.9"), "39.9");
  EXPECT_EQ(Text("1.50"), "1.5");
  EXPECT_EQ(Text("-0.5e2"), "-50.0");
  EXPECT_EQ(Text("false"), "false");
  EXPECT_EQ(Text("\"a\\\"b\\\\c\\/d\\n\""), "a\"b\\c/d\n");
  JsonDocument doc;
  size_t end = 0;
  ASSERT_TRUE(doc.ParsePrefix("116.4", &end).ok());
  EXPECT_EQ(doc.value().GetDouble(), 116.4);  // correctly rounded
  ASSERT_TRUE(doc.ParsePrefix("null", &end).ok());
  std::string text;
  EXPECT_FALSE(JsonAsText(doc.value(), &text));
}

// Numbers are converted from their text, typed as rapidjson types them.
TEST(JsonInputTest, NumbersAreExactAndTypedByTheirRange) {
  JsonDocument doc;
  size_t end = 0;
  auto number = [&](absl::string_view text) -> const rapidjson::Value& {
    EXPECT_TRUE(doc.ParsePrefix(text, &end).ok()) << text;
    return doc.value();
  };
  // A zero significand with an exponent is zero (rapidjson's own
  // full-precision conversion made 0e-35 about 2.6e-54).
  EXPECT_EQ(number("0e-35").GetDouble(), 0.0);
  EXPECT_FALSE(std::signbit(number("0e-35").GetDouble()));
  EXPECT_EQ(number("0.000e+300").GetDouble(), 0.0);
  EXPECT_TRUE(std::signbit(number("-0e5").GetDouble()));
  EXPECT_EQ(number("1e-400").GetDouble(), 0.0);  // underflow
  EXPECT_EQ(number("4.9406564584124654e-324").GetDouble(),
            std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(number("1.7976931348623157e308").GetDouble(),
            std::numeric_limits<double>::max());
  EXPECT_EQ(number("39.90000000000000000000001").GetDouble(), 39.9);
  EXPECT_TRUE(number("1").IsInt());
  EXPECT_TRUE(number("1").IsUint());
  EXPECT_TRUE(number("-2147483648").IsInt());
  EXPECT_FALSE(number("-2147483649").IsInt());
  EXPECT_EQ(number("-2147483649").GetInt64(), -2147483649);
  EXPECT_FALSE(number("4294967295").IsInt());
  EXPECT_EQ(number("4294967295").GetUint(), 4294967295u);
  EXPECT_EQ(number("-9223372036854775808").GetInt64(), INT64_MIN);
  EXPECT_EQ(number("18446744073709551615").GetUint64(), UINT64_MAX);
  EXPECT_TRUE(number("18446744073709551616").IsDouble());
  EXPECT_TRUE(number("-9223372036854775809").IsDouble());
  EXPECT_TRUE(number("1.0").IsDouble());
  EXPECT_TRUE(number("1e2").IsDouble());
  // Past a double's range, whether rapidjson's own check sees it or not.
  EXPECT_EQ(Error("1.8e308"), "column 1: number out of range");
  EXPECT_EQ(Error("[0, -1e309]"), "column 5: number out of range");
}

TEST(JsonInputTest, UnicodeEscapes) {
  EXPECT_EQ(Text("\"\\u00e9\""), "\xc3\xa9");
  EXPECT_EQ(Text("\"\\u4eac\""), "\xe4\xba\xac");             // 京
  EXPECT_EQ(Text("\"\\ud83d\\ude95\""), "\xf0\x9f\x9a\x95");  // taxi
  EXPECT_THAT(Error("\"\\ud83d\""), HasSubstr("low surrogate"));
  EXPECT_THAT(Error("\"\\u12g4\""), HasSubstr("hex digit"));
}

TEST(JsonInputTest, RepeatedNamesKeepTheirOrderAndTheLastWins) {
  JsonDocument doc;
  size_t end = 0;
  ASSERT_TRUE(doc.ParsePrefix(R"({"a": 1, "c": "x", "a": 2})", &end).ok());
  EXPECT_EQ(doc.value().MemberCount(), 3u);
  EXPECT_EQ(JsonFind(doc.value(), "a")->GetInt(), 2);
  EXPECT_EQ(JsonFind(doc.value(), "missing"), nullptr);
  EXPECT_EQ(JsonFind(doc.value()["c"], "a"), nullptr);  // not an object
  EXPECT_STREQ(JsonTypeName(doc.value()), "an object");
}

TEST(JsonInputTest, ErrorsSayWhereAndWhatWasExpected) {
  EXPECT_EQ(Error("{\"a\" 1}"), "column 6: expected ':', got '1'");
  EXPECT_THAT(Error("[1 2]"), HasSubstr("expected ',' or ']'"));
  EXPECT_THAT(Error("{\"a\": 1 \"b\"}"), HasSubstr("expected ',' or '}'"));
  EXPECT_EQ(Error("{a: 1}"),
            "column 2: expected a member name in quotes, got 'a'");
  EXPECT_THAT(Error("1."), HasSubstr("digit after '.'"));
  EXPECT_THAT(Error("1e"), HasSubstr("digit in the exponent"));
  EXPECT_THAT(Error("tru"), HasSubstr("expected a JSON value"));
  EXPECT_THAT(Error("\"abc"), HasSubstr("closing"));
  EXPECT_THAT(Error("\"a\tb\""), HasSubstr("control character"));
  EXPECT_THAT(Error("\"a\\qb\""), HasSubstr("bad escape"));
  EXPECT_THAT(Error("1e999"), HasSubstr("out of range"));
  EXPECT_THAT(Error(std::string(100, '[')), HasSubstr("deeper than 64"));
  EXPECT_THAT(Error(""), HasSubstr("got the end of the text"));
  EXPECT_THAT(Error("{\"a\": \x01}"), HasSubstr("got byte 0x01"));
}

TEST(JsonInputTest, StreamsValuesFromAnInputWithLineNumbers) {
  auto in = InputSource::FromString("[1,\n 2]\n\n{\"x\":\n  tru}");
  JsonDocument doc;
  ASSERT_TRUE(doc.ParseNext(in.get()).ok());
  EXPECT_EQ(doc.value().Size(), 2u);
  absl::Status s = doc.ParseNext(in.get());
  EXPECT_EQ(s.message(), "line 5: expected a JSON value, got '}'");
  EXPECT_TRUE(doc.value().IsNull());
}

TEST(JsonInputTest, WalkingAStructureByHand) {
  auto in = InputSource::FromString(" {\n \"a\" : 1 ]");
  EXPECT_TRUE(ConsumeJson(in.get(), '{'));
  EXPECT_FALSE(ConsumeJson(in.get(), '}'));
  JsonDocument doc;
  ASSERT_TRUE(doc.ParseNext(in.get()).ok());
  EXPECT_EQ(JsonString(doc.value()), "a");
  EXPECT_TRUE(ConsumeJson(in.get(), ':'));
  ASSERT_TRUE(doc.ParseNext(in.get()).ok());
  SkipJsonWhitespace(in.get());
  EXPECT_EQ(JsonExpected(in.get(), "'}'").message(),
            "line 2: expected '}', got ']'");
  in->Get();
  EXPECT_THAT(std::string(JsonExpected(in.get(), "'}'").message()),
              HasSubstr("got the end of the input"));
}

}  // namespace
}  // namespace trackdb::import
