#ifndef TRACKDB_TYPES_CODEC_RDB_PAYLOAD_H_
#define TRACKDB_TYPES_CODEC_RDB_PAYLOAD_H_

// Redis's DUMP / RESTORE payloads: one value in the RDB object format,
// followed by a footer. A pure codec: no keys, no TTLs, no storage.
//
// The encoder writes the oldest object formats (RDB version 9), which
// Redis 6.2 and every later version load. The decoder reads what Redis
// 6.x through 7.4 write, so a payload taken from a real Redis can be
// restored here.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trackdb::types {

// A Redis value as DUMP writes it and RESTORE reads it.
struct RdbValue {
  enum class Kind { kString, kList, kSet, kZset, kHash };
  Kind kind = Kind::kString;
  std::string string;                                // kString
  std::vector<std::string> elements;                 // kList head first; kSet
  std::vector<std::pair<std::string, double>> zset;  // member, score
  std::vector<std::pair<std::string, std::string>> hash;  // field, value
};

// DUMP's payload: object type byte, the object, the RDB version (2 bytes,
// little endian) and CRC-64 of everything before it (8 bytes, little
// endian). Only the member of `value` that its kind names is written. Redis
// never holds an empty collection, so neither Redis nor DecodeDumpPayload
// accepts the payload of one.
std::string EncodeDumpPayload(const RdbValue& value);

// The messages of RESTORE's errors, as Redis words them.
inline constexpr char kDumpPayloadVersionOrChecksum[] =
    "DUMP payload version or checksum are wrong";
inline constexpr char kBadDataFormat[] = "Bad data format";

// RESTORE's decoding. Errors:
// - absl::DataLossError(kDumpPayloadVersionOrChecksum) when the payload is
//   shorter than 10 bytes, its RDB version is 0 or above 12, or its CRC is
//   wrong;
// - absl::InvalidArgumentError(kBadDataFormat) for anything else that fails
//   to parse: an unknown or unsupported type (zipmap, module, stream, hash
//   with field TTLs), truncation, trailing bytes, an empty collection,
//   duplicate set members, hash fields or zset members, a NaN score, a
//   malformed listpack, intset, ziplist or LZF block.
absl::StatusOr<RdbValue> DecodeDumpPayload(absl::string_view payload);

// Redis's CRC-64 (Jones polynomial 0xad93d23594c935a9, reflected, init 0,
// no final xor), continuing from `crc`: crc64 of "123456789" from 0 is
// 0xe9c6d914c4b8d9ca.
uint64_t RedisCrc64(uint64_t crc, absl::string_view data);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_CODEC_RDB_PAYLOAD_H_
