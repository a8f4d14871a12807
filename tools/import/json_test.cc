#include "tools/import/json.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::import {
namespace {

using ::testing::HasSubstr;
using Type = JsonValue::Type;

JsonValue Parse(absl::string_view text) {
  JsonParser parser(text);
  JsonValue v;
  absl::Status s = parser.Parse(&v);
  EXPECT_TRUE(s.ok()) << text << ": " << s;
  return v;
}

std::string Error(absl::string_view text) {
  JsonParser parser(text);
  JsonValue v;
  absl::Status s = parser.Parse(&v);
  EXPECT_FALSE(s.ok()) << text;
  return std::string(s.message());
}

TEST(JsonTest, ScalarsAndNumbersKeepTheirText) {
  EXPECT_EQ(Parse("null").type, Type::kNull);
  EXPECT_TRUE(Parse(" true ").boolean);
  EXPECT_FALSE(Parse("false").boolean);
  JsonValue big = Parse("1763700000000123");
  EXPECT_EQ(big.type, Type::kNumber);
  EXPECT_EQ(big.text, "1763700000000123");  // exact, beyond 2^53
  EXPECT_EQ(Parse("-0.5e2").number, -50);
  EXPECT_EQ(Parse("\"a\\\"b\\\\c\\/d\\n\"").text, "a\"b\\c/d\n");
}

TEST(JsonTest, UnicodeEscapes) {
  EXPECT_EQ(Parse("\"\\u00e9\"").text, "\xc3\xa9");
  EXPECT_EQ(Parse("\"\\u4eac\"").text, "\xe4\xba\xac");             // 京
  EXPECT_EQ(Parse("\"\\ud83d\\ude95\"").text, "\xf0\x9f\x9a\x95");  // taxi
  EXPECT_THAT(Error("\"\\ud83d\""), HasSubstr("low surrogate"));
  EXPECT_THAT(Error("\"\\ude95\""), HasSubstr("lone low surrogate"));
}

TEST(JsonTest, ObjectsAndArrays) {
  JsonValue v = Parse(R"({"a": [1, {"b": null}], "c": "x", "a": 2})");
  ASSERT_EQ(v.type, Type::kObject);
  ASSERT_EQ(v.members.size(), 3u);
  EXPECT_EQ(v.Find("a")->text, "2");  // the last of a repeated name
  EXPECT_EQ(v.members[0].second.items.size(), 2u);
  EXPECT_EQ(v.Find("missing"), nullptr);
  EXPECT_EQ(v.ToString(), R"({"a":[1,{"b":null}],"c":"x","a":2})");
  EXPECT_EQ(Parse("[]").items.size(), 0u);
  EXPECT_EQ(Parse("{}").members.size(), 0u);
}

TEST(JsonTest, ErrorsSayWhatWasExpected) {
  EXPECT_THAT(Error("{\"a\" 1}"), HasSubstr("expected ':', got '1'"));
  EXPECT_THAT(Error("[1 2]"), HasSubstr("expected ',' or ']'"));
  EXPECT_THAT(Error("{a: 1}"), HasSubstr("member name in quotes"));
  EXPECT_THAT(Error("1."), HasSubstr("digit after '.'"));
  EXPECT_THAT(Error("tru"), HasSubstr("'true'"));
  EXPECT_THAT(Error("\"abc"), HasSubstr("closing"));
  EXPECT_THAT(Error("\"a\tb\""), HasSubstr("control character"));
  EXPECT_THAT(Error("1e999"), HasSubstr("out of range"));
  EXPECT_THAT(Error(std::string(100, '[')), HasSubstr("deeper than"));
  EXPECT_THAT(Error(""), HasSubstr("the end of the input"));
}

TEST(JsonTest, StreamsValuesFromAnInputWithLineNumbers) {
  auto in = InputSource::FromString("[1,\n 2]\n\n{\"x\":\n  tru}");
  JsonParser parser(in.get());
  JsonValue v;
  ASSERT_TRUE(parser.Parse(&v).ok());
  EXPECT_EQ(v.items.size(), 2u);
  absl::Status s = parser.Parse(&v);
  EXPECT_THAT(std::string(s.message()), HasSubstr("line 5"));
}

}  // namespace
}  // namespace trackdb::import
