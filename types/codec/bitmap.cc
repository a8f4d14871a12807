#include "types/codec/bitmap.h"

#include <algorithm>
#include <limits>

namespace trackdb::types {
namespace {

unsigned char ByteAt(absl::string_view s, uint64_t i) {
  return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
}

// Redis's checkUnsignedBitfieldOverflow: 0, or the field's value under
// `overflow` (wrapped or saturated) when value + incr leaves the range.
std::optional<uint64_t> UnsignedResult(uint64_t value, int64_t incr, int bits,
                                       Overflow overflow, bool* overflowed) {
  const uint64_t max = (uint64_t{1} << bits) - 1;
  const int64_t max_incr = static_cast<int64_t>(max - value);
  // As Redis (unsigned, so 2^63 has a negation), read as signed.
  const int64_t min_incr = static_cast<int64_t>(uint64_t{0} - value);
  const bool up = value > max || (incr > 0 && incr > max_incr);
  const bool down = !up && incr < 0 && incr < min_incr;
  *overflowed = up || down;
  if (!*overflowed) return value + static_cast<uint64_t>(incr);
  if (overflow == Overflow::kFail) return std::nullopt;
  if (overflow == Overflow::kSat) return up ? max : 0;
  return (value + static_cast<uint64_t>(incr)) & max;
}

// Which way value + incr leaves a signed field of `bits`: 1 above, -1
// below, 0 not (Redis's checkSignedBitfieldOverflow's tests).
int SignedOverflowSide(int64_t value, int64_t incr, int bits) {
  const int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max()
                                 : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  // As Redis: they may wrap, and are used only where they cannot have.
  const int64_t max_incr = static_cast<int64_t>(static_cast<uint64_t>(max) -
                                                static_cast<uint64_t>(value));
  const int64_t min_incr = static_cast<int64_t>(static_cast<uint64_t>(min) -
                                                static_cast<uint64_t>(value));
  if (value > max || (bits != 64 && incr > max_incr) ||
      (value >= 0 && incr > 0 && incr > max_incr)) {
    return 1;
  }
  if (value < min || (bits != 64 && incr < min_incr) ||
      (value < 0 && incr < 0 && incr < min_incr)) {
    return -1;
  }
  return 0;
}

// The signed field's value under `overflow`, as Redis computes it.
std::optional<int64_t> SignedResult(int64_t value, int64_t incr, int bits,
                                    Overflow overflow) {
  const int side = SignedOverflowSide(value, incr, bits);
  uint64_t sum = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
  if (side == 0) return static_cast<int64_t>(sum);
  if (overflow == Overflow::kFail) return std::nullopt;
  if (overflow == Overflow::kSat) {
    const int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max()
                                   : (int64_t{1} << (bits - 1)) - 1;
    return side > 0 ? max : -max - 1;
  }
  if (bits < 64) {
    const uint64_t mask = ~uint64_t{0} << bits;
    sum = (sum & (uint64_t{1} << (bits - 1))) ? (sum | mask) : (sum & ~mask);
  }
  return static_cast<int64_t>(sum);
}

}  // namespace

int GetBit(absl::string_view s, uint64_t offset) {
  return (ByteAt(s, offset >> 3) >> (7 - (offset & 7))) & 1;
}

int SetBit(std::string* s, uint64_t offset, int on) {
  const uint64_t byte = offset >> 3;
  if (s->size() <= byte) s->resize(byte + 1, '\0');
  const int shift = 7 - static_cast<int>(offset & 7);
  unsigned char b = static_cast<unsigned char>((*s)[byte]);
  const int old = (b >> shift) & 1;
  b = static_cast<unsigned char>((b & ~(1 << shift)) | ((on & 1) << shift));
  (*s)[byte] = static_cast<char>(b);
  return old;
}

std::optional<BitRange> NormalizeRange(int64_t start, int64_t end,
                                       uint64_t size, bool in_bits,
                                       bool negative_pair_empty) {
  const int64_t total =
      static_cast<int64_t>(in_bits ? size * 8 : size);  // size < 2^60
  if (negative_pair_empty && start < 0 && end < 0 && start > end) {
    return std::nullopt;
  }
  if (start < 0) start += total;
  if (end < 0) end += total;
  start = std::max<int64_t>(start, 0);
  end = std::max<int64_t>(end, 0);
  end = std::min(end, total - 1);
  if (start > end) return std::nullopt;
  if (in_bits) {
    return BitRange{static_cast<uint64_t>(start), static_cast<uint64_t>(end)};
  }
  return BitRange{static_cast<uint64_t>(start) * 8,
                  static_cast<uint64_t>(end) * 8 + 7};
}

int64_t CountBits(absl::string_view s, const BitRange& range) {
  int64_t count = 0;
  uint64_t i = range.first_bit;
  for (; i <= range.last_bit && (i & 7) != 0; ++i) count += GetBit(s, i);
  for (; i + 7 <= range.last_bit; i += 8) {
    count += __builtin_popcount(ByteAt(s, i >> 3));
  }
  for (; i <= range.last_bit; ++i) count += GetBit(s, i);
  return count;
}

int64_t FindBit(absl::string_view s, int bit, const BitRange& range) {
  uint64_t i = range.first_bit;
  const unsigned char skip = bit ? 0x00 : 0xff;  // bytes without one
  while (i <= range.last_bit) {
    if ((i & 7) == 0 && i + 7 <= range.last_bit && ByteAt(s, i >> 3) == skip) {
      i += 8;
      continue;
    }
    if (GetBit(s, i) == bit) return static_cast<int64_t>(i);
    ++i;
  }
  return -1;
}

std::string ApplyBitOp(BitOperation op,
                       const std::vector<absl::string_view>& sources) {
  size_t size = 0;
  for (absl::string_view s : sources) size = std::max(size, s.size());
  std::string out(size, '\0');
  for (size_t i = 0; i < size; ++i) {
    unsigned char b = ByteAt(sources[0], i);
    if (op == BitOperation::kNot) b = static_cast<unsigned char>(~b);
    for (size_t j = 1; j < sources.size(); ++j) {
      const unsigned char c = ByteAt(sources[j], i);
      if (op == BitOperation::kAnd) b &= c;
      if (op == BitOperation::kOr) b |= c;
      if (op == BitOperation::kXor) b ^= c;
    }
    out[i] = static_cast<char>(b);
  }
  return out;
}

int64_t GetBitfield(absl::string_view s, uint64_t offset, BitfieldType type) {
  uint64_t value = 0;
  for (int j = 0; j < type.bits; ++j) {
    value = (value << 1) | static_cast<uint64_t>(GetBit(s, offset + j));
  }
  if (type.is_signed && type.bits < 64 &&
      (value & (uint64_t{1} << (type.bits - 1)))) {
    value |= ~uint64_t{0} << type.bits;
  }
  return static_cast<int64_t>(value);
}

void SetBitfield(std::string* s, uint64_t offset, BitfieldType type,
                 uint64_t value) {
  for (int j = 0; j < type.bits; ++j) {
    const int bit = static_cast<int>((value >> (type.bits - 1 - j)) & 1);
    SetBit(s, offset + j, bit);
  }
}

std::optional<int64_t> AddToBitfield(int64_t value, int64_t increment,
                                     BitfieldType type, Overflow overflow) {
  if (type.is_signed) {
    return SignedResult(value, increment, type.bits, overflow);
  }
  bool overflowed = false;
  std::optional<uint64_t> r =
      UnsignedResult(static_cast<uint64_t>(value), increment, type.bits,
                     overflow, &overflowed);
  if (!r) return std::nullopt;
  return static_cast<int64_t>(*r);
}

}  // namespace trackdb::types
