// RESTORE's decoder (types/codec/rdb_payload.h) on arbitrary payloads.
// A real CRC-64 is out of a fuzzer's reach, so by default the input is the
// RDB object alone (type byte and body) and the target appends a valid
// footer; two marker bytes, neither of them an object type, reach the
// footer checks instead:
//   0xff  the rest is a whole payload, footer included, used verbatim;
//   0xfe  the rest is the object and then a 2-byte little-endian RDB
//         version; the target appends the CRC, so bad versions are reached.
// Seeds in corpus/rdb_payload_fuzz/ are objects in the default shape.
//
// Checked:
//   - RedisCrc64 matches a bit-at-a-time CRC-64/Jones written here, and
//     continues from a previous CRC as if the pieces were one;
//   - a refusal is DataLoss(kDumpPayloadVersionOrChecksum) exactly when the
//     footer is wrong (short, version 0 or above 12, bad CRC), else
//     InvalidArgument(kBadDataFormat): RESTORE returns those words to the
//     client, and a caller tells the two apart by code;
//   - an accepted value is one Redis could hold: a non-empty collection,
//     no set member, hash field or zset member twice, no NaN score, and
//     nothing in the members its kind does not name (EncodeDumpPayload
//     would drop them silently);
//   - EncodeDumpPayload of it decodes to an equal value, and encodes again
//     to the same bytes: what RESTORE accepts, DUMP gives back.
// Memory: no allocation may follow a declared length or count. libFuzzer's
// malloc limit (run.sh's -rss_limit_mb, or a smaller -malloc_limit_mb in
// FUZZ_FLAGS) reports any single allocation above it as a crash.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "fuzz/fuzz_check.h"
#include "types/codec/rdb_payload.h"

namespace trackdb::fuzz {
namespace {

using types::RdbValue;
using Kind = types::RdbValue::Kind;

constexpr uint8_t kVerbatim = 0xff;
constexpr uint8_t kOwnVersion = 0xfe;
// What Redis 7.0 writes; any of 1..12 would do for the default shape.
constexpr uint16_t kFooterVersion = 10;
constexpr uint64_t kMaxRdbVersion = 12;
constexpr size_t kFooterSize = 10;

uint64_t LoadLittleEndian(absl::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) {
    v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return v;
}

void AppendLittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> 8 * i));
}

// CRC-64/Jones (reflected 0xad93d23594c935a9, init 0, no final xor) one
// bit at a time: independent of the codec's table, so a wrong table entry
// shows up here rather than as payloads Redis refuses.
uint64_t ReferenceCrc64(absl::string_view data) {
  constexpr uint64_t kReflectedJones = 0x95ac9329ac4bc9b5;
  uint64_t crc = 0;
  for (char c : data) {
    crc ^= static_cast<uint8_t>(c);
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) ? (crc >> 1) ^ kReflectedJones : crc >> 1;
    }
  }
  return crc;
}

// Whether DecodeDumpPayload must get past the footer, as its contract
// states it: at least 10 bytes, version 1..12, CRC over all before the CRC.
bool FooterIsValid(absl::string_view payload) {
  if (payload.size() < kFooterSize) return false;
  const size_t body = payload.size() - kFooterSize;
  const uint64_t version = LoadLittleEndian(payload.substr(body, 2));
  const uint64_t crc = LoadLittleEndian(payload.substr(body + 2));
  return version != 0 && version <= kMaxRdbVersion &&
         crc == ReferenceCrc64(payload.substr(0, body + 2));
}

// `object` followed by `version` and the CRC of both.
std::string WithFooter(absl::string_view object, uint16_t version) {
  std::string payload(object);
  AppendLittleEndian(version, 2, &payload);
  AppendLittleEndian(types::RedisCrc64(0, payload), 8, &payload);
  return payload;
}

// The payload this input stands for (see the top of the file).
std::string PayloadOf(absl::string_view input) {
  if (input.empty()) return WithFooter(input, kFooterVersion);
  const uint8_t marker = static_cast<uint8_t>(input[0]);
  if (marker == kVerbatim) return std::string(input.substr(1));
  if (marker == kOwnVersion) {
    // Zeros stand in for version bytes the input lacks.
    std::string payload(input.substr(1));
    if (payload.size() < 2) payload.resize(2, '\0');
    AppendLittleEndian(types::RedisCrc64(0, payload), 8, &payload);
    return payload;
  }
  return WithFooter(input, kFooterVersion);
}

// Only failure messages call it: FUZZ_CHECK evaluates them only then.
std::string Hex(absl::string_view bytes) {
  return absl::BytesToHexString(bytes);
}

uint64_t Bits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return bits;
}

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kString:
      return "string";
    case Kind::kList:
      return "list";
    case Kind::kSet:
      return "set";
    case Kind::kZset:
      return "zset";
    case Kind::kHash:
      return "hash";
  }
  return "unknown kind";
}

template <typename Items, typename KeyOf>
bool AllDistinct(const Items& items, KeyOf key_of) {
  absl::flat_hash_set<absl::string_view> seen;
  for (const auto& item : items) {
    if (!seen.insert(key_of(item)).second) return false;
  }
  return true;
}

// What Redis could hold, and nothing beside it.
void CheckValue(const types::RdbValue& v, absl::string_view payload) {
  const bool list_like = v.kind == Kind::kList || v.kind == Kind::kSet;
  FUZZ_CHECK(v.kind == Kind::kString || v.string.empty())
      << KindName(v.kind) << " with a string: " << Hex(payload);
  FUZZ_CHECK(list_like || v.elements.empty())
      << KindName(v.kind) << " with elements: " << Hex(payload);
  FUZZ_CHECK(v.kind == Kind::kZset || v.zset.empty())
      << KindName(v.kind) << " with zset pairs: " << Hex(payload);
  FUZZ_CHECK(v.kind == Kind::kHash || v.hash.empty())
      << KindName(v.kind) << " with hash pairs: " << Hex(payload);
  switch (v.kind) {
    case Kind::kString:
      break;
    case Kind::kList:
      FUZZ_CHECK(!v.elements.empty()) << "empty list: " << Hex(payload);
      break;
    case Kind::kSet:
      FUZZ_CHECK(!v.elements.empty()) << "empty set: " << Hex(payload);
      FUZZ_CHECK(AllDistinct(
          v.elements,
          [](const std::string& s) { return absl::string_view(s); }))
          << "a set member twice: " << Hex(payload);
      break;
    case Kind::kZset:
      FUZZ_CHECK(!v.zset.empty()) << "empty zset: " << Hex(payload);
      FUZZ_CHECK(AllDistinct(
          v.zset, [](const auto& p) { return absl::string_view(p.first); }))
          << "a zset member twice: " << Hex(payload);
      for (const auto& [member, score] : v.zset) {
        FUZZ_CHECK(!std::isnan(score))
            << "NaN score of " << member << ": " << Hex(payload);
      }
      break;
    case Kind::kHash:
      FUZZ_CHECK(!v.hash.empty()) << "empty hash: " << Hex(payload);
      FUZZ_CHECK(AllDistinct(
          v.hash, [](const auto& p) { return absl::string_view(p.first); }))
          << "a hash field twice: " << Hex(payload);
      break;
    default:
      FUZZ_CHECK(false) << "kind " << static_cast<int>(v.kind) << ": "
                        << Hex(payload);
  }
}

// Field by field, scores by their bits: the codec keeps a double's bits
// (ZSET_2 stores them raw, and strtod reads "-0" as -0.0), so even -0 and
// 0 must come back as they went in.
bool SameValue(const types::RdbValue& a, const types::RdbValue& b) {
  if (a.kind != b.kind || a.string != b.string || a.elements != b.elements ||
      a.hash != b.hash || a.zset.size() != b.zset.size()) {
    return false;
  }
  for (size_t i = 0; i < a.zset.size(); ++i) {
    if (a.zset[i].first != b.zset[i].first ||
        Bits(a.zset[i].second) != Bits(b.zset[i].second)) {
      return false;
    }
  }
  return true;
}

void CheckRoundTrip(const types::RdbValue& v, absl::string_view payload) {
  const std::string encoded = types::EncodeDumpPayload(v);
  FUZZ_CHECK(FooterIsValid(encoded))
      << "encoded with a bad footer: " << Hex(encoded);
  const absl::StatusOr<types::RdbValue> back =
      types::DecodeDumpPayload(encoded);
  FUZZ_CHECK(back.ok()) << "its encoding is refused: " << back.status()
                        << "\ninput " << Hex(payload) << "\nencoded "
                        << Hex(encoded);
  FUZZ_CHECK(SameValue(v, *back))
      << "its encoding decodes to another value\ninput " << Hex(payload)
      << "\nencoded " << Hex(encoded);
  FUZZ_CHECK(types::EncodeDumpPayload(*back) == encoded)
      << "re-encoding differs: " << Hex(payload);
}

}  // namespace
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trackdb;
  using namespace trackdb::fuzz;
  const std::string payload =
      PayloadOf(absl::string_view(reinterpret_cast<const char*>(data), size));

  const absl::string_view covered =
      payload.size() >= 8
          ? absl::string_view(payload).substr(0, payload.size() - 8)
          : absl::string_view(payload);
  const uint64_t crc = types::RedisCrc64(0, covered);
  FUZZ_CHECK(crc == ReferenceCrc64(covered))
      << "CRC-64 differs from the bitwise reference on " << Hex(payload);
  // The header promises RedisCrc64 continues from a previous CRC.
  const size_t half = covered.size() / 2;
  FUZZ_CHECK(types::RedisCrc64(types::RedisCrc64(0, covered.substr(0, half)),
                               covered.substr(half)) == crc)
      << "CRC-64 does not continue across a split: " << Hex(payload);

  const bool footer_valid = FooterIsValid(payload);
  const absl::StatusOr<types::RdbValue> value =
      types::DecodeDumpPayload(payload);
  if (!value.ok()) {
    const absl::Status expected =
        footer_valid
            ? absl::InvalidArgumentError(types::kBadDataFormat)
            : absl::DataLossError(types::kDumpPayloadVersionOrChecksum);
    FUZZ_CHECK(value.status() == expected)
        << "refused with " << value.status() << ", expected " << expected
        << ": " << Hex(payload);
    return 0;
  }
  FUZZ_CHECK(footer_valid) << "accepted despite its footer: " << Hex(payload);
  CheckValue(*value, payload);
  CheckRoundTrip(*value, payload);
  return 0;
}
