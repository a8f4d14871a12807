#include "storage/format/kv_codec.h"

#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

TEST(KvCodecTest, RoundTripsBinaryValuesAndExpiries) {
  const StringValue values[] = {
      {"", 0},
      {std::string("a\0b\xff", 4), 1700000000123},
      {std::string(100000, 'x'), INT64_MAX},
  };
  for (const StringValue& v : values) {
    const std::string encoded = EncodeStringValue(v);
    EXPECT_EQ(DecodeStringValue(encoded), v);
    EXPECT_EQ(DecodeStringExpiry(encoded), v.expire_at_ms);
  }
}

TEST(KvCodecTest, RejectsWhatIsNotAStringValue) {
  EXPECT_EQ(DecodeStringValue(""), std::nullopt);
  EXPECT_EQ(DecodeStringValue("S1234567"), std::nullopt);  // header too short
  EXPECT_EQ(DecodeStringExpiry("X12345678"), std::nullopt);
}

TEST(KvCodecTest, ExpiredAtIsInclusiveAndZeroNeverExpires) {
  EXPECT_FALSE((StringValue{"v", 0}).expired_at(INT64_MAX));
  EXPECT_TRUE((StringValue{"v", 100}).expired_at(100));
  EXPECT_FALSE((StringValue{"v", 100}).expired_at(99));
}

}  // namespace
}  // namespace trackdb::storage
