#ifndef TRACKDB_TYPES_CODEC_OBJECT_ENCODING_H_
#define TRACKDB_TYPES_CODEC_OBJECT_ENCODING_H_

// What Redis 7.0's OBJECT ENCODING and OBJECT REFCOUNT answer for a value,
// decided by the value alone: the encoding Redis gives it when it builds
// the value afresh (RESTORE, a restart, DEBUG RELOAD). Redis also keeps an
// encoding a value grew out of: a hash that once held 513 fields stays a
// hashtable after HDEL shrinks it, and APPEND or SETRANGE leave a short
// string raw. trackdb keeps no such history, so it answers the fresh one.
//
// The limits are the defaults redis-server 7.0 is built with (Debian's
// redis.conf keeps them), which trackdb's CONFIG does not change.

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "types/codec/rdb_payload.h"

namespace trackdb::types {

inline constexpr size_t kHashMaxListpackEntries = 512;
inline constexpr size_t kHashMaxListpackValue = 64;
inline constexpr size_t kZsetMaxListpackEntries = 128;
inline constexpr size_t kZsetMaxListpackValue = 64;
inline constexpr size_t kSetMaxIntsetEntries = 512;
// Strings up to this long are one allocation with their object header.
inline constexpr size_t kEmbstrSizeLimit = 44;
// Integer strings in [0, this) share preallocated objects.
inline constexpr int64_t kSharedIntegers = 10000;
// The refcount Redis reports for a shared object (INT_MAX).
inline constexpr int64_t kSharedRefcount = 2147483647;

// Whether a hash field and its value are short enough for a listpack.
inline bool FitsHashListpack(absl::string_view field, absl::string_view value) {
  return field.size() <= kHashMaxListpackValue &&
         value.size() <= kHashMaxListpackValue;
}

// Whether a set member can be in an intset: Redis's string2ll accepts it.
bool FitsIntset(absl::string_view member);

// "int" for a strict decimal of at most 20 characters that fits int64
// (Redis's string2l), else "embstr" up to kEmbstrSizeLimit bytes, else
// "raw".
const char* StringEncoding(absl::string_view value);
// kSharedRefcount for an int-encoded string in [0, kSharedIntegers), else 1.
int64_t StringRefcount(absl::string_view value);

// The encoding of a hash, set, sorted set or list of `size` members when
// the size alone decides it ("quicklist" for any list, "hashtable" or
// "skiplist" past the entry limits); nullptr when the members decide.
const char* EncodingBySize(RdbValue::Kind kind, uint64_t size);
// The encoding of `value`, any kind.
const char* Encoding(const RdbValue& value);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_CODEC_OBJECT_ENCODING_H_
