#ifndef TRACKDB_FUZZ_FUZZ_INPUT_H_
#define TRACKDB_FUZZ_FUZZ_INPUT_H_

// Reads a fuzz input as a sequence of values, like LLVM's
// FuzzedDataProvider (which only clang ships; the corpus regression tests
// build with gcc too). Past the end every value is zero.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size)
      : data_(reinterpret_cast<const char*>(data)), size_(size) {}

  size_t remaining() const { return size_ - pos_; }

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }

  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | Byte();
    return v;
  }

  // Any double, NaN and infinities included: the raw bits of 8 bytes.
  double RawDouble() {
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = (bits << 8) | Byte();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    return d;
  }

  // A double in [lo, hi] from 4 bytes; one byte in 16 instead gives a raw
  // double (NaN, infinity, out of range), so both the valid space and the
  // edges are explored.
  double DoubleIn(double lo, double hi) {
    if ((Byte() & 0x0f) == 0) return RawDouble();
    return lo + (hi - lo) * (static_cast<double>(U32()) / 4294967295.0);
  }

  // Up to `max` bytes: a length byte, then that many bytes.
  std::string String(size_t max) {
    size_t n = Byte() % (max + 1);
    if (n > remaining()) n = remaining();
    std::string s(data_ + pos_, n);
    pos_ += n;
    return s;
  }

  absl::string_view Rest() {
    absl::string_view rest(data_ + pos_, size_ - pos_);
    pos_ = size_;
    return rest;
  }

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace trackdb::fuzz

#endif  // TRACKDB_FUZZ_FUZZ_INPUT_H_
