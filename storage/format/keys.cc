#include "storage/format/keys.h"

#include <cstring>

#include "absl/strings/match.h"
#include "model/limits.h"

namespace trackdb::storage {
namespace {

constexpr uint64_t kSignBit = 1ULL << 63;

}  // namespace

void AppendVarint32(std::string* out, uint32_t v) { AppendVarint64(out, v); }

void AppendVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool ReadVarint32(absl::string_view* in, uint32_t* v) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

bool ReadVarint64(absl::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

bool ReadLengthPrefixed(absl::string_view* in, std::string* out) {
  uint32_t len;
  if (!ReadVarint32(in, &len) || in->size() < len) return false;
  out->assign(in->data(), len);
  in->remove_prefix(len);
  return true;
}

void AppendBigEndian64(std::string* out, uint64_t v) {
  // One append of 8 bytes: a push_back per byte checked the capacity 8
  // times (7% of LRANGE's CPU, which builds a key per element).
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(v >> (56 - 8 * i));
  out->append(bytes, 8);
}

uint64_t ReadBigEndian64(absl::string_view in) {
  // Through data(), not operator[]: Debian's Abseil is built hardened, so
  // each in[i] is a bounds check and the loop would not become one load.
  unsigned char b[8];
  std::memcpy(b, in.data(), 8);
  return (uint64_t{b[0]} << 56) | (uint64_t{b[1]} << 48) |
         (uint64_t{b[2]} << 40) | (uint64_t{b[3]} << 32) |
         (uint64_t{b[4]} << 24) | (uint64_t{b[5]} << 16) |
         (uint64_t{b[6]} << 8) | uint64_t{b[7]};
}

std::string CollectionPrefix(absl::string_view collection) {
  std::string key;
  AppendVarint32(&key, static_cast<uint32_t>(collection.size()));
  key.append(collection.data(), collection.size());
  return key;
}

std::string EntityPointsPrefix(absl::string_view collection,
                               absl::string_view entity) {
  std::string key = CollectionPrefix(collection);
  AppendVarint32(&key, static_cast<uint32_t>(entity.size()));
  key.append(entity.data(), entity.size());
  return key;
}

std::string PointKey(absl::string_view collection, absl::string_view entity,
                     int64_t loc_time_ms) {
  std::string key = EntityPointsPrefix(collection, entity);
  AppendKeyTime(&key, loc_time_ms);
  return key;
}

void AppendKeyTime(std::string* key, int64_t loc_time_ms) {
  AppendBigEndian64(key, static_cast<uint64_t>(loc_time_ms) ^ kSignBit);
}

std::string EntityTimeKey(absl::string_view entity_prefix,
                          int64_t loc_time_ms) {
  std::string key(entity_prefix);
  AppendKeyTime(&key, loc_time_ms);
  return key;
}

bool IsEntityTimeKey(absl::string_view key, absl::string_view entity_prefix) {
  return key.size() == entity_prefix.size() + 8 &&
         absl::StartsWith(key, entity_prefix);
}

int64_t PointKeyTime(absl::string_view key) {
  return static_cast<int64_t>(ReadBigEndian64(key.substr(key.size() - 8)) ^
                              kSignBit);
}

static_assert(model::kMaxEntityIdBytes < (1u << 14),
              "an entity's varint32 length must never begin with 0xff 0xff, "
              "the history cells' tag");

std::string HistoryCellsPrefix(absl::string_view collection) {
  std::string key = CollectionPrefix(collection);
  key.append(kHistoryCellsTag);
  return key;
}

namespace {

void AppendHistoryCell(std::string* key, int64_t bucket, uint64_t cell) {
  key->append(kHistoryCellsTag);
  AppendBigEndian64(key, static_cast<uint64_t>(bucket) ^ kSignBit);
  AppendBigEndian64(key, cell);
}

}  // namespace

std::string HistoryCellSeekKey(absl::string_view collection, int64_t bucket,
                               uint64_t cell) {
  std::string key = CollectionPrefix(collection);
  AppendHistoryCell(&key, bucket, cell);
  return key;
}

std::string HistoryCellKeySuffix(int64_t bucket, uint64_t cell,
                                 absl::string_view entity) {
  std::string key;
  AppendHistoryCell(&key, bucket, cell);
  key.append(entity.data(), entity.size());
  return key;
}

std::string HistoryCellKey(absl::string_view collection, int64_t bucket,
                           uint64_t cell, absl::string_view entity) {
  return CollectionPrefix(collection) +
         HistoryCellKeySuffix(bucket, cell, entity);
}

std::optional<HistoryCellKeyParts> ParseHistoryCellSuffix(
    absl::string_view suffix) {
  if (suffix.size() < 16) return std::nullopt;
  HistoryCellKeyParts parts;
  parts.bucket = static_cast<int64_t>(ReadBigEndian64(suffix) ^ kSignBit);
  parts.cell = ReadBigEndian64(suffix.substr(8));
  parts.entity = suffix.substr(16);
  return parts;
}

std::string LatestKey(absl::string_view collection, absl::string_view entity) {
  std::string key = CollectionPrefix(collection);
  key.append(entity.data(), entity.size());
  return key;
}

std::optional<LatestKeyParts> ParseLatestKey(absl::string_view key) {
  uint32_t len = 0;
  if (!ReadVarint32(&key, &len) || key.size() < len) return std::nullopt;
  return LatestKeyParts{key.substr(0, len), key.substr(len)};
}

std::string FencesPrefix(absl::string_view collection, char tag) {
  std::string key = CollectionPrefix(collection);
  key.push_back(tag);
  return key;
}

std::string FenceKey(absl::string_view collection, absl::string_view fence) {
  std::string key = FencesPrefix(collection, kFenceTag);
  key.append(fence.data(), fence.size());
  return key;
}

std::string FenceEventKey(absl::string_view collection, uint64_t offset) {
  std::string key = FencesPrefix(collection, kFenceEventTag);
  AppendBigEndian64(&key, offset);
  return key;
}

std::string EntityFenceStatesPrefix(absl::string_view collection,
                                    absl::string_view entity) {
  std::string key = FencesPrefix(collection, kFenceStateTag);
  AppendVarint32(&key, static_cast<uint32_t>(entity.size()));
  key.append(entity.data(), entity.size());
  return key;
}

std::string FenceStateKey(absl::string_view collection,
                          absl::string_view entity, absl::string_view fence) {
  std::string key = EntityFenceStatesPrefix(collection, entity);
  key.append(fence.data(), fence.size());
  return key;
}

std::optional<FenceStateKeyParts> ParseFenceStateKey(
    absl::string_view collection, absl::string_view key) {
  const std::string prefix = FencesPrefix(collection, kFenceStateTag);
  if (!absl::StartsWith(key, prefix)) return std::nullopt;
  key.remove_prefix(prefix.size());
  uint32_t len = 0;
  if (!ReadVarint32(&key, &len) || key.size() < len) return std::nullopt;
  return FenceStateKeyParts{key.substr(0, len), key.substr(len)};
}

std::string PrefixEnd(absl::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    unsigned char& last = reinterpret_cast<unsigned char&>(end.back());
    if (last != 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return end;
}

std::string RegistryKey(absl::string_view collection) {
  std::string key(1, kRegistryTag);
  key += CollectionPrefix(collection);
  return key;
}

namespace {
std::optional<absl::string_view> ParseTaggedCollection(absl::string_view key,
                                                       char tag) {
  if (key.empty() || key[0] != tag) return std::nullopt;
  key.remove_prefix(1);
  uint32_t len = 0;
  if (!ReadVarint32(&key, &len) || key.size() != len) return std::nullopt;
  return key;
}
}  // namespace

std::optional<absl::string_view> NameOfKey(ColumnFamily cf,
                                           absl::string_view key) {
  if (cf == ColumnFamily::kKv) return key;
  if (cf == ColumnFamily::kDefault) {
    for (char tag : {kRegistryTag, kCollectionExpiryTag, kRetentionTag}) {
      if (auto name = ParseTaggedCollection(key, tag)) return name;
    }
    return std::nullopt;
  }
  uint32_t len = 0;
  if (!ReadVarint32(&key, &len) || key.size() < len) return std::nullopt;
  return key.substr(0, len);
}

std::optional<absl::string_view> ParseRegistryKey(absl::string_view key) {
  return ParseTaggedCollection(key, kRegistryTag);
}

std::string CollectionExpiryKey(absl::string_view collection) {
  std::string key(1, kCollectionExpiryTag);
  key += CollectionPrefix(collection);
  return key;
}

std::optional<absl::string_view> ParseCollectionExpiryKey(
    absl::string_view key) {
  return ParseTaggedCollection(key, kCollectionExpiryTag);
}

std::string RetentionKey(absl::string_view collection) {
  std::string key(1, kRetentionTag);
  key += CollectionPrefix(collection);
  return key;
}

std::optional<absl::string_view> ParseRetentionKey(absl::string_view key) {
  return ParseTaggedCollection(key, kRetentionTag);
}

}  // namespace trackdb::storage
