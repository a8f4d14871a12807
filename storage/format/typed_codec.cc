#include "storage/format/typed_codec.h"

#include <cstring>

#include "storage/format/keys.h"

namespace trackdb::storage {
namespace {

void AppendFixed64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t ReadFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  }
  return v;
}

bool KnownType(char c) { return c == 'h' || c == 'l' || c == 's' || c == 'z'; }

constexpr size_t kMetaBytes = 1 + 3 * 8;

}  // namespace

const char* ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kHash:
      return "hash";
    case ValueType::kList:
      return "list";
    case ValueType::kSet:
      return "set";
    case ValueType::kZset:
      return "zset";
  }
  return "none";
}

std::string EncodeTypedMeta(const TypedMeta& meta) {
  std::string out;
  out.reserve(kMetaBytes + 8);
  out.push_back(static_cast<char>(meta.type));
  AppendFixed64(&out, static_cast<uint64_t>(meta.expire_at_ms));
  AppendFixed64(&out, meta.version);
  AppendFixed64(&out, meta.size);
  if (meta.type == ValueType::kList) AppendFixed64(&out, meta.head);
  if (meta.type == ValueType::kZset) out += meta.low;
  return out;
}

std::optional<TypedMeta> DecodeTypedMeta(absl::string_view encoded) {
  if (encoded.size() < kMetaBytes || !KnownType(encoded[0])) {
    return std::nullopt;
  }
  TypedMeta meta;
  meta.type = static_cast<ValueType>(encoded[0]);
  const size_t want = kMetaBytes + (meta.type == ValueType::kList ? 8 : 0);
  if (encoded.size() < want) return std::nullopt;
  if (encoded.size() > want && meta.type != ValueType::kZset) {
    return std::nullopt;
  }
  meta.expire_at_ms = static_cast<int64_t>(ReadFixed64(encoded.data() + 1));
  meta.version = ReadFixed64(encoded.data() + 9);
  meta.size = ReadFixed64(encoded.data() + 17);
  if (meta.type == ValueType::kList) {
    meta.head = ReadFixed64(encoded.data() + 25);
  }
  if (meta.type == ValueType::kZset)
    meta.low = std::string(encoded.substr(want));
  return meta;
}

std::string TypedMetaKey(absl::string_view name) {
  return CollectionPrefix(name);
}

std::string TypedMembersPrefix(absl::string_view name, uint64_t version) {
  std::string key = CollectionPrefix(name);
  AppendBigEndian64(&key, version);
  return key;
}

std::optional<TypedKeyParts> ParseTypedKey(absl::string_view key) {
  uint32_t len = 0;
  if (!ReadVarint32(&key, &len) || key.size() < len) return std::nullopt;
  TypedKeyParts parts;
  parts.name = key.substr(0, len);
  key.remove_prefix(len);
  if (key.empty()) {
    parts.is_meta = true;
    return parts;
  }
  if (key.size() < 8) return std::nullopt;
  parts.version = ReadBigEndian64(key);
  parts.subkey = key.substr(8);
  return parts;
}

std::string EncodeScore(double score) {
  if (score == 0) score = 0;  // -0 and 0 are one score
  uint64_t bits = 0;
  std::memcpy(&bits, &score, 8);
  // Positive numbers: set the sign bit so they sort above negatives;
  // negative numbers: flip every bit so larger magnitudes sort first.
  bits = (bits & (1ULL << 63)) ? ~bits : bits | (1ULL << 63);
  std::string out;
  AppendBigEndian64(&out, bits);
  return out;
}

double DecodeScore(absl::string_view encoded) {
  uint64_t bits = ReadBigEndian64(encoded);
  bits = (bits & (1ULL << 63)) ? bits & ~(1ULL << 63) : ~bits;
  double score = 0;
  std::memcpy(&score, &bits, 8);
  return score;
}

std::string ZsetMemberSubkey(absl::string_view member) {
  std::string out(1, kZsetMemberTag);
  out.append(member.data(), member.size());
  return out;
}

std::string ZsetScoreSubkey(double score, absl::string_view member) {
  std::string out(1, kZsetScoreTag);
  out += EncodeScore(score);
  out.append(member.data(), member.size());
  return out;
}

std::string ListSubkey(uint64_t index) {
  std::string out;
  AppendBigEndian64(&out, index);
  return out;
}

}  // namespace trackdb::storage
