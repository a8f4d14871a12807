#include "storage/format/kv_codec.h"

namespace trackdb::storage {
namespace {

constexpr char kStringTag = 'S';
constexpr size_t kHeaderBytes = 1 + 8;

}  // namespace

std::string EncodeStringValue(const StringValue& v) {
  std::string out;
  out.reserve(kHeaderBytes + v.value.size());
  out.push_back(kStringTag);
  const uint64_t expire = static_cast<uint64_t>(v.expire_at_ms);
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<char>((expire >> (8 * i)) & 0xff));
  }
  out += v.value;
  return out;
}

std::optional<int64_t> DecodeStringExpiry(absl::string_view encoded) {
  if (encoded.size() < kHeaderBytes || encoded[0] != kStringTag) {
    return std::nullopt;
  }
  uint64_t expire = 0;
  for (int i = 0; i < 8; ++i) {
    expire |= static_cast<uint64_t>(static_cast<uint8_t>(encoded[1 + i]))
              << (8 * i);
  }
  return static_cast<int64_t>(expire);
}

std::optional<StringValue> DecodeStringValue(absl::string_view encoded) {
  const std::optional<int64_t> expire = DecodeStringExpiry(encoded);
  if (!expire) return std::nullopt;
  StringValue v;
  v.expire_at_ms = *expire;
  v.value = std::string(encoded.substr(kHeaderBytes));
  return v;
}

}  // namespace trackdb::storage
