#ifndef TRACKDB_TYPES_CODEC_HYPERLOGLOG_H_
#define TRACKDB_TYPES_CODEC_HYPERLOGLOG_H_

// Redis 7.0's HyperLogLog, byte for byte: the string a PFADD leaves is the
// one redis-server leaves, so GET, DUMP/RESTORE and replication carry HLLs
// between the two. Pure functions over the string value; no I/O.
//
// The value is a 16-byte header ("HYLL", an encoding byte, three unused
// bytes, the cached cardinality as 8 little-endian bytes whose top bit set
// means stale) and then the registers: 16384 six-bit registers, either
// dense (12288 bytes, packed from each byte's low bits up) or sparse (runs:
// ZERO 00xxxxxx of 1..64 zero registers, XZERO 01xxxxxx yyyyyyyy of
// 1..16384, VAL 1vvvvvxx of 1..4 registers of value 1..32). A new HLL is
// sparse; it turns dense when a register needs a value over 32 or when a
// sparse update would grow it past `sparse_max_bytes`
// (hll-sparse-max-bytes). Each element hashes with MurmurHash64A (seed
// 0xadc83b19): the low 14 bits pick the register, the run of zeros above
// them plus one is its candidate value. The cardinality is Ertl's
// estimator over the register histogram, as Redis 7.0 computes it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::types {

inline constexpr int kHllRegisters = 16384;
inline constexpr size_t kHllHeaderSize = 16;
inline constexpr size_t kHllDenseSize = kHllHeaderSize + kHllRegisters * 6 / 8;
inline constexpr size_t kHllDefaultSparseMaxBytes = 3000;

// Redis's errors for a string that is no HLL, and for a sparse HLL whose
// runs do not cover exactly 16384 registers.
inline constexpr char kHllWrongTypeError[] =
    "-WRONGTYPE Key is not a valid HyperLogLog string value.";
inline constexpr char kHllCorruptError[] =
    "-INVALIDOBJ Corrupted HLL object detected";

// One register per byte: what PFCOUNT of several keys and PFMERGE merge
// into.
using HllRegisters = std::array<uint8_t, kHllRegisters>;

// isHLLObjectOrReply's test: the magic, a known encoding, and a dense
// value's exact size.
bool IsHll(absl::string_view value);
bool HllIsDense(absl::string_view value);

// An empty HLL, sparse, its cached cardinality 0 and valid.
std::string NewHll();

// MurmurHash64A as Redis's hyperloglog.c has it (little-endian reads).
uint64_t MurmurHash64A(absl::string_view data, uint64_t seed);

// PFADD of one element into `hll` (IsHll): 1 if a register grew, 0 if
// not, -1 if the sparse runs are corrupt. Leaves the cached cardinality
// as it was: the caller marks it stale once anything changed (MarkStale).
int HllAdd(std::string* hll, absl::string_view element,
           size_t sparse_max_bytes);
// hllSparseSet / hllDenseSet of register `index` to at least `count`.
int HllSet(std::string* hll, int index, uint8_t count, size_t sparse_max_bytes);
void HllMarkStale(std::string* hll);

// PFCOUNT of one key: the cached cardinality if valid, else the estimate,
// which is then cached in `hll` (`*cached` says so). nullopt: corrupt.
std::optional<uint64_t> HllCountCaching(std::string* hll, bool* cached);

// hllMerge: max[i] = MAX(max[i], register i of `hll`). False: corrupt.
bool HllMergeInto(absl::string_view hll, HllRegisters* max);
// The estimate for registers one a byte (PFCOUNT of several keys).
uint64_t HllCountRegisters(const HllRegisters& registers);

// hllSparseToDense (a dense `hll` is left as it is). False: corrupt,
// `hll` unchanged.
bool HllToDense(std::string* hll);

// PFDEBUG's views: every register, and a sparse HLL's runs as
// "z:<len> Z:<len> v:<value>,<len> ..."; nullopt when corrupt.
std::optional<HllRegisters> HllRegistersOf(absl::string_view hll);
std::string HllDecodeSparse(absl::string_view hll);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_CODEC_HYPERLOGLOG_H_
