#ifndef TRACKDB_STORAGE_FORMAT_KV_CODEC_H_
#define TRACKDB_STORAGE_FORMAT_KV_CODEC_H_

// Values of the `kv` column family: a Redis string and its expiry.
//
//   'S' | fixed64 little-endian expire_at_ms | bytes
//
// expire_at_ms is Unix milliseconds, 0 for "no expiry". The expiry sits at a
// fixed offset so that the compaction filter (storage/strings/kv_expiry.h) reads it
// without decoding the rest.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::storage {

struct StringValue {
  std::string value;
  int64_t expire_at_ms = 0;  // 0: never expires

  bool expired_at(int64_t now_ms) const {
    return expire_at_ms != 0 && expire_at_ms <= now_ms;
  }
  bool operator==(const StringValue& o) const {
    return value == o.value && expire_at_ms == o.expire_at_ms;
  }
};

// `v` if it holds a value that has not expired at `now_ms`, else nothing:
// an expired string reads as absent.
inline std::optional<StringValue> Unexpired(std::optional<StringValue> v,
                                            int64_t now_ms) {
  if (v && v->expired_at(now_ms)) return std::nullopt;
  return v;
}

std::string EncodeStringValue(const StringValue& v);
// nullopt when `encoded` is not a string value.
std::optional<StringValue> DecodeStringValue(absl::string_view encoded);
// Just the expiry; nullopt when `encoded` is not a string value.
std::optional<int64_t> DecodeStringExpiry(absl::string_view encoded);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_KV_CODEC_H_
