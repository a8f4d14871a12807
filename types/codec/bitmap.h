#ifndef TRACKDB_TYPES_CODEC_BITMAP_H_
#define TRACKDB_TYPES_CODEC_BITMAP_H_

// Redis's bitmaps over a string's bytes, as pure functions: bit 0 is the
// most significant bit of byte 0 (SETBIT k 0 1 makes "\x80"), a string is
// zero-padded as far as a write reaches, and bits past its end read 0.
// The commands (service/resp/commands/bitmap_commands.cc) parse, check and
// reply; these compute what Redis 7.0's bitops.c computes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace trackdb::types {

// The bit at `offset` (0 past the end).
int GetBit(absl::string_view s, uint64_t offset);
// Sets the bit at `offset` to `on` (0 or 1), growing `s` with zero bytes
// to reach it; the bit it had.
int SetBit(std::string* s, uint64_t offset, int on);

// A range of bits, both ends included, inside the string: BITCOUNT's and
// BITPOS's start/end after Redis's conversion of negative indexes (in
// bytes, or in bits with BIT). nullopt: the range is empty. BITCOUNT (only)
// takes two negative ends with start > end as empty before converting
// them (`negative_pair_empty`).
struct BitRange {
  uint64_t first_bit;
  uint64_t last_bit;
};
std::optional<BitRange> NormalizeRange(int64_t start, int64_t end,
                                       uint64_t size, bool in_bits,
                                       bool negative_pair_empty);

// Set bits in `range`.
int64_t CountBits(absl::string_view s, const BitRange& range);
// The first bit equal to `bit` in `range`, or -1.
int64_t FindBit(absl::string_view s, int bit, const BitRange& range);

enum class BitOperation { kAnd, kOr, kXor, kNot };
// BITOP over `sources` (missing keys as empty strings): as long as the
// longest, shorter ones zero-padded.
std::string ApplyBitOp(BitOperation op,
                       const std::vector<absl::string_view>& sources);

// BITFIELD's integers: `bits` (1..64 signed, 1..63 unsigned) at bit
// `offset`, most significant first.
struct BitfieldType {
  bool is_signed;
  int bits;
};
enum class Overflow { kWrap, kSat, kFail };
int64_t GetBitfield(absl::string_view s, uint64_t offset, BitfieldType type);
// Writes the low `type.bits` bits of `value` at `offset` (s long enough).
void SetBitfield(std::string* s, uint64_t offset, BitfieldType type,
                 uint64_t value);
// `value` + `increment` as the field holds it under `overflow`: nullopt
// when it overflows under kFail. (SET is an increment of 0 from the value
// to store.)
std::optional<int64_t> AddToBitfield(int64_t value, int64_t increment,
                                     BitfieldType type, Overflow overflow);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_CODEC_BITMAP_H_
