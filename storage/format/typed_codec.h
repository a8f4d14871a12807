#ifndef TRACKDB_STORAGE_FORMAT_TYPED_CODEC_H_
#define TRACKDB_STORAGE_FORMAT_TYPED_CODEC_H_

// Keys and values of the `types` column family: Redis hashes, sets, sorted
// sets and lists (storage/format/typed_values.h), stored as Kvrocks and Pika
// store them, one metadata key per name and one key per member, under a
// version:
//
//   meta    CollectionPrefix(name)
//           -> type | fixed64 LE expire_at_ms | fixed64 LE version |
//              fixed64 LE size | fixed64 LE head (lists only) |
//              low (sorted sets only: the rest of the value)
//   member  CollectionPrefix(name) | version (8 bytes, big-endian) | subkey
//           -> the member's value
//
// A name's keys are one contiguous range (its meta first), like a
// collection's in the other families: the unit a shard will own.
//
// The version is what makes removal O(1): deleting or expiring a value
// removes (or outdates) its meta key only. Members of any other version
// than their name's live meta are garbage, invisible to reads (which look
// under the live version only) and dropped by compaction
// (storage/typed/typed_gc.h). A new value of a name gets a version never used
// before in this data dir (TrackStore::NextTypedVersion), so garbage of an
// older value can never reappear in it.
//
// Subkeys by type (all byte strings; order is memcmp order):
//   hash  field -> value
//   set   member -> ""
//   zset  'm' | member -> EncodeScore(score)
//         's' | EncodeScore(score) | member -> ""   (the score order)
//   list  uint64 index, big-endian -> element; the elements are indexes
//         [head, head + size); a new list's head is kListMiddle.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::storage {

enum class ValueType : char {
  kHash = 'h',
  kList = 'l',
  kSet = 's',
  kZset = 'z',
};
// Redis's TYPE word for it: hash, list, set, zset.
const char* ValueTypeName(ValueType type);

struct TypedMeta {
  ValueType type = ValueType::kHash;
  int64_t expire_at_ms = 0;  // 0: never expires
  uint64_t version = 0;
  uint64_t size = 0;  // members (hash fields, set or zset members, elements)
  uint64_t head = 0;  // lists: the index of the first element
  // Sorted sets: every member's score subkey ('s' | score | member) is >=
  // low (empty: nothing known). Pops from the low end raise it, so the next
  // walk seeks past the deleted keys instead of stepping over each of
  // their tombstones (a queue drained by ZPOPMIN would cost O(N) a pop).
  std::string low;

  bool expired_at(int64_t now_ms) const {
    return expire_at_ms != 0 && expire_at_ms <= now_ms;
  }
  bool operator==(const TypedMeta& o) const {
    return type == o.type && expire_at_ms == o.expire_at_ms &&
           version == o.version && size == o.size && head == o.head &&
           low == o.low;
  }
};

inline constexpr uint64_t kListMiddle = 1ULL << 63;

std::string EncodeTypedMeta(const TypedMeta& meta);
// nullopt when `encoded` is not a meta value.
std::optional<TypedMeta> DecodeTypedMeta(absl::string_view encoded);

// Keys.
std::string TypedMetaKey(absl::string_view name);
// Every member key of one value: CollectionPrefix(name) | version.
std::string TypedMembersPrefix(absl::string_view name, uint64_t version);
struct TypedKeyParts {
  absl::string_view name;
  bool is_meta = false;
  uint64_t version = 0;      // members only
  absl::string_view subkey;  // members only
};
// Splits a key of the types family; nullopt if malformed.
std::optional<TypedKeyParts> ParseTypedKey(absl::string_view key);

// Sorted-set scores as 8 bytes whose memcmp order is the numeric order
// (-inf first, +inf last; -0 is stored as 0). NaN is never stored.
std::string EncodeScore(double score);
double DecodeScore(absl::string_view encoded);  // first 8 bytes
inline constexpr char kZsetMemberTag = 'm';
inline constexpr char kZsetScoreTag = 's';
std::string ZsetMemberSubkey(absl::string_view member);
std::string ZsetScoreSubkey(double score, absl::string_view member);
// Whether reads only ever walk a `type` value's `subkey` in order (a
// sorted set's score keys), never read it by key: the typed cache never
// holds such a key (storage/format/typed_values.h), so a write of one has no
// entry to drop.
inline bool IsWalkedOnly(ValueType type, absl::string_view subkey) {
  return type == ValueType::kZset && !subkey.empty() &&
         subkey[0] == kZsetScoreTag;
}
// A list element's subkey.
std::string ListSubkey(uint64_t index);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_TYPED_CODEC_H_
