#ifndef TRACKDB_TYPES_CODEC_OBJECT_ENCODING_H_
#define TRACKDB_TYPES_CODEC_OBJECT_ENCODING_H_

// What Redis 7.0's OBJECT ENCODING and OBJECT REFCOUNT answer for a value,
// decided by the value alone: the encoding Redis gives it when it builds
// the value afresh (RESTORE, a restart, DEBUG RELOAD). Redis also keeps an
// encoding a value grew out of: a hash that once held 513 fields stays a
// hashtable after HDEL shrinks it, and APPEND or SETRANGE leave a short
// string raw. trackdb keeps no such history, so it answers the fresh one.
//
// The limits start as redis-server 7.0's defaults (Debian's redis.conf
// keeps them); CONFIG SET hash-max-listpack-entries and its kin change
// them for the whole process, as Redis's server settings are (a process
// serves one trackd).

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "types/codec/rdb_payload.h"

namespace trackdb::types {

// The encoding limits, live (CONFIG GET and SET); Redis 7.0's names.
struct EncodingLimits {
  std::atomic<uint64_t> hash_max_listpack_entries{512};
  std::atomic<uint64_t> hash_max_listpack_value{64};
  std::atomic<uint64_t> zset_max_listpack_entries{128};
  std::atomic<uint64_t> zset_max_listpack_value{64};
  std::atomic<uint64_t> set_max_intset_entries{512};
  // Not an object encoding's, but Redis's size limit of a sparse
  // HyperLogLog (hyperloglog.h), live as these are.
  std::atomic<uint64_t> hll_sparse_max_bytes{3000};
};
EncodingLimits& Limits();

inline uint64_t HashMaxListpackEntries() {
  return Limits().hash_max_listpack_entries.load(std::memory_order_relaxed);
}
inline uint64_t HashMaxListpackValue() {
  return Limits().hash_max_listpack_value.load(std::memory_order_relaxed);
}
inline uint64_t ZsetMaxListpackEntries() {
  return Limits().zset_max_listpack_entries.load(std::memory_order_relaxed);
}
inline uint64_t ZsetMaxListpackValue() {
  return Limits().zset_max_listpack_value.load(std::memory_order_relaxed);
}
inline uint64_t SetMaxIntsetEntries() {
  return Limits().set_max_intset_entries.load(std::memory_order_relaxed);
}
// Strings up to this long are one allocation with their object header.
inline constexpr size_t kEmbstrSizeLimit = 44;
// Integer strings in [0, this) share preallocated objects.
inline constexpr int64_t kSharedIntegers = 10000;
// The refcount Redis reports for a shared object (INT_MAX).
inline constexpr int64_t kSharedRefcount = 2147483647;

// Whether a hash field and its value are short enough for a listpack.
inline bool FitsHashListpack(absl::string_view field, absl::string_view value) {
  const uint64_t max = HashMaxListpackValue();
  return field.size() <= max && value.size() <= max;
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
