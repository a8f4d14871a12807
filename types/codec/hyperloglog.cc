#include "types/codec/hyperloglog.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace trackdb::types {
namespace {

constexpr int kP = 14;
constexpr int kQ = 64 - kP;  // bits above the index
constexpr uint64_t kIndexMask = kHllRegisters - 1;
constexpr size_t kDenseBytes = kHllDenseSize - kHllHeaderSize;
constexpr uint8_t kDense = 0, kSparse = 1;
constexpr size_t kEncodingAt = 4, kCardAt = 8;
constexpr int kValMaxValue = 32, kValMaxLen = 4, kZeroMaxLen = 64;
constexpr int kXZeroMaxLen = 16384;
constexpr double kAlphaInf = 0.721347520444481703680;

bool IsZero(uint8_t b) { return (b & 0xc0) == 0; }
bool IsXZero(uint8_t b) { return (b & 0xc0) == 0x40; }
bool IsVal(uint8_t b) { return (b & 0x80) != 0; }
int ZeroLen(uint8_t b) { return (b & 0x3f) + 1; }
int XZeroLen(uint8_t b0, uint8_t b1) { return (((b0 & 0x3f) << 8) | b1) + 1; }
int ValValue(uint8_t b) { return ((b >> 2) & 0x1f) + 1; }
int ValLen(uint8_t b) { return (b & 0x3) + 1; }
uint8_t Val(int value, int len) {
  return static_cast<uint8_t>(0x80 | ((value - 1) << 2) | (len - 1));
}
uint8_t Zero(int len) { return static_cast<uint8_t>(len - 1); }
// Writes an XZERO run at `p`: two bytes.
void PutXZero(uint8_t* p, int len) {
  p[0] = static_cast<uint8_t>(((len - 1) >> 8) | 0x40);
  p[1] = static_cast<uint8_t>((len - 1) & 0xff);
}

uint8_t* Bytes(std::string* s) { return reinterpret_cast<uint8_t*>(s->data()); }
const uint8_t* Bytes(absl::string_view s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

// One sparse run: its register count, its value (0 for ZERO/XZERO) and its
// size in bytes.
struct Run {
  int span;
  int value;
  size_t bytes;
};
Run RunAt(const uint8_t* b, size_t p, size_t end) {
  if (IsZero(b[p])) return {ZeroLen(b[p]), 0, 1};
  if (IsVal(b[p])) return {ValLen(b[p]), ValValue(b[p]), 1};
  return {XZeroLen(b[p], p + 1 < end ? b[p + 1] : 0), 0, 2};
}

// The dense registers, packed six bits each from each byte's low bits.
int DenseGet(const uint8_t* regs, int i) {
  const size_t byte = static_cast<size_t>(i) * 6 / 8;
  const unsigned fb = (i * 6) & 7;
  const unsigned b0 = regs[byte];
  const unsigned b1 = byte + 1 < kDenseBytes ? regs[byte + 1] : 0;
  return static_cast<int>(((b0 >> fb) | (b1 << (8 - fb))) & 63);
}
void DensePut(uint8_t* regs, int i, unsigned v) {
  const size_t byte = static_cast<size_t>(i) * 6 / 8;
  const unsigned fb = (i * 6) & 7;
  regs[byte] = static_cast<uint8_t>((regs[byte] & ~(63u << fb)) | (v << fb));
  if (byte + 1 < kDenseBytes) {
    const unsigned fb8 = 8 - fb;
    regs[byte + 1] =
        static_cast<uint8_t>((regs[byte + 1] & ~(63u >> fb8)) | (v >> fb8));
  }
}
int DenseSet(uint8_t* regs, int index, uint8_t count) {
  if (count <= DenseGet(regs, index)) return 0;
  DensePut(regs, index, count);
  return 1;
}

// The register an element goes to and its run of zeros plus one.
int PatternLength(absl::string_view element, int* index) {
  uint64_t hash = MurmurHash64A(element, 0xadc83b19ULL);
  *index = static_cast<int>(hash & kIndexMask);
  hash >>= kP;
  hash |= uint64_t{1} << kQ;
  return __builtin_ctzll(hash) + 1;
}

// Calls visit(first, run) for each sparse run of `hll`, `first` the index
// of its first register; false (stopping before a run that would reach
// past them) when the runs do not cover exactly the 16,384 registers.
template <typename Visit>
bool ForEachRun(absl::string_view hll, Visit visit) {
  const uint8_t* b = Bytes(hll);
  int idx = 0;
  for (size_t p = kHllHeaderSize; p < hll.size();) {
    const Run run = RunAt(b, p, hll.size());
    if (run.span + idx > kHllRegisters) return false;
    visit(idx, run);
    idx += run.span;
    p += run.bytes;
  }
  return idx == kHllRegisters;
}

// The histogram of register values; false when sparse runs do not cover
// every register.
bool Histogram(absl::string_view hll, int histogram[64]) {
  const uint8_t* b = Bytes(hll);
  if (HllIsDense(hll)) {
    for (int i = 0; i < kHllRegisters; ++i) {
      ++histogram[DenseGet(b + kHllHeaderSize, i)];
    }
    return true;
  }
  return ForEachRun(hll, [histogram](int, const Run& run) {
    histogram[run.value] += run.span;
  });
}

double Sigma(double x) {
  if (x == 1.) return INFINITY;
  double z_prime;
  double y = 1;
  double z = x;
  do {
    x *= x;
    z_prime = z;
    z += x * y;
    y += y;
  } while (z_prime != z);
  return z;
}

double Tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double z_prime;
  double y = 1.0;
  double z = 1 - x;
  do {
    x = std::sqrt(x);
    z_prime = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (z_prime != z);
  return z / 3;
}

uint64_t Estimate(const int histogram[64]) {
  const double m = kHllRegisters;
  double z = m * Tau((m - histogram[kQ + 1]) / m);
  for (int j = kQ; j >= 1; --j) {
    z += histogram[j];
    z *= 0.5;
  }
  z += m * Sigma(histogram[0] / m);
  return static_cast<uint64_t>(
      std::llroundl(static_cast<long double>(kAlphaInf * m * m / z)));
}

// Where a sparse HLL's run covering `index` starts, in bytes and in
// registers, and the run before it.
struct Located {
  size_t at = 0;
  std::optional<size_t> prev;
  int first = 0;
  Run run{0, 0, 0};
};
std::optional<Located> Locate(const std::string& hll, int index) {
  const uint8_t* b = Bytes(hll);
  Located loc;
  loc.at = kHllHeaderSize;
  while (loc.at < hll.size()) {
    loc.run = RunAt(b, loc.at, hll.size());
    if (index <= loc.first + loc.run.span - 1) break;
    loc.prev = loc.at;
    loc.at += loc.run.bytes;
    loc.first += loc.run.span;
    if (loc.first > kHllRegisters) return std::nullopt;  // corrupt
  }
  if (loc.run.span == 0 || loc.at >= hll.size()) return std::nullopt;
  return loc;
}

// A zero run of `len` registers, as ZERO or XZERO, appended at seq[*n].
void PutZeros(uint8_t* seq, int* n, int len) {
  if (len > kZeroMaxLen) {
    PutXZero(seq + *n, len);
    *n += 2;
  } else {
    seq[(*n)++] = Zero(len);
  }
}

// The runs that replace `loc`'s when register `index` becomes `count`
// (at most XZERO VAL XZERO: five bytes); their length.
int SplitRun(const Located& loc, int index, uint8_t count, uint8_t* seq) {
  int n = 0;
  const int last = loc.first + loc.run.span - 1;
  const int value = loc.run.value;
  if (index != loc.first) {
    if (value == 0) {
      PutZeros(seq, &n, index - loc.first);
    } else {
      seq[n++] = Val(value, index - loc.first);
    }
  }
  seq[n++] = Val(count, 1);
  if (index != last) {
    if (value == 0) {
      PutZeros(seq, &n, last - index);
    } else {
      seq[n++] = Val(value, last - index);
    }
  }
  return n;
}

// Merges adjacent VAL runs of one value, scanning five runs from `from`.
void MergeValues(std::string* hll, size_t from) {
  size_t p = from;
  int scanlen = 5;
  while (p < hll->size() && scanlen-- != 0) {
    uint8_t* b = Bytes(hll);
    if (IsXZero(b[p])) {
      p += 2;
      continue;
    }
    if (IsZero(b[p])) {
      ++p;
      continue;
    }
    if (p + 1 < hll->size() && IsVal(b[p + 1]) &&
        ValValue(b[p]) == ValValue(b[p + 1])) {
      const int len = ValLen(b[p]) + ValLen(b[p + 1]);
      if (len <= kValMaxLen) {
        b[p + 1] = Val(ValValue(b[p]), len);
        hll->erase(p, 1);
        continue;  // try the merged run with the one on its right
      }
    }
    ++p;
  }
}

int Promote(std::string* hll, int index, uint8_t count) {
  if (!HllToDense(hll)) return -1;
  return DenseSet(Bytes(hll) + kHllHeaderSize, index, count);
}

int SparseSet(std::string* hll, int index, uint8_t count,
              size_t sparse_max_bytes) {
  if (count > kValMaxValue) return Promote(hll, index, count);
  const std::optional<Located> loc = Locate(*hll, index);
  if (!loc) return -1;
  uint8_t* b = Bytes(hll);
  const bool is_val = loc->run.value != 0;
  if (is_val && loc->run.value >= count) return 0;
  if (loc->run.span == 1 && loc->run.bytes == 1) {  // a VAL or ZERO of one
    b[loc->at] = Val(count, 1);
  } else {
    uint8_t seq[5];
    const int seqlen = SplitRun(*loc, index, count, seq);
    const int delta = seqlen - static_cast<int>(loc->run.bytes);
    if (delta > 0 && hll->size() + delta > sparse_max_bytes) {
      return Promote(hll, index, count);
    }
    hll->replace(loc->at, loc->run.bytes, reinterpret_cast<char*>(seq), seqlen);
  }
  MergeValues(hll, loc->prev.value_or(kHllHeaderSize));
  HllMarkStale(hll);
  return 1;
}

}  // namespace

bool IsHll(absl::string_view value) {
  if (value.size() < kHllHeaderSize) return false;
  if (value.substr(0, 4) != "HYLL") return false;
  const uint8_t encoding = Bytes(value)[kEncodingAt];
  if (encoding > kSparse) return false;
  return encoding != kDense || value.size() == kHllDenseSize;
}

bool HllIsDense(absl::string_view value) {
  return Bytes(value)[kEncodingAt] == kDense;
}

std::string NewHll() {
  std::string hll(kHllHeaderSize + 2, '\0');
  std::memcpy(hll.data(), "HYLL", 4);
  hll[kEncodingAt] = static_cast<char>(kSparse);
  PutXZero(Bytes(&hll) + kHllHeaderSize, kXZeroMaxLen);
  return hll;
}

uint64_t MurmurHash64A(absl::string_view data, uint64_t seed) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  const int r = 47;
  const size_t len = data.size();
  uint64_t h = seed ^ (static_cast<uint64_t>(static_cast<int>(len)) * m);
  const uint8_t* p = Bytes(data);
  const uint8_t* end = p + (len - (len & 7));
  for (; p != end; p += 8) {
    uint64_t k;
    std::memcpy(&k, p, 8);  // little-endian, as Redis reads it here
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const size_t tail = len & 7;
  if (tail > 0) {
    for (size_t i = tail; i > 0; --i)
      h ^= static_cast<uint64_t>(p[i - 1]) << (8 * (i - 1));
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

int HllAdd(std::string* hll, absl::string_view element,
           size_t sparse_max_bytes) {
  int index = 0;
  const int count = PatternLength(element, &index);
  return HllSet(hll, index, static_cast<uint8_t>(count), sparse_max_bytes);
}

int HllSet(std::string* hll, int index, uint8_t count,
           size_t sparse_max_bytes) {
  if (HllIsDense(*hll)) {
    return DenseSet(Bytes(hll) + kHllHeaderSize, index, count);
  }
  return SparseSet(hll, index, count, sparse_max_bytes);
}

void HllMarkStale(std::string* hll) { (*hll)[kCardAt + 7] |= '\x80'; }

std::optional<uint64_t> HllCountCaching(std::string* hll, bool* cached) {
  uint8_t* card = Bytes(hll) + kCardAt;
  *cached = false;
  if ((card[7] & 0x80) == 0) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | card[i];
    return v;
  }
  int histogram[64] = {0};
  if (!Histogram(*hll, histogram)) return std::nullopt;
  const uint64_t v = Estimate(histogram);
  for (int i = 0; i < 8; ++i) card[i] = static_cast<uint8_t>(v >> (8 * i));
  *cached = true;
  return v;
}

bool HllMergeInto(absl::string_view hll, HllRegisters* max) {
  const uint8_t* b = Bytes(hll);
  if (HllIsDense(hll)) {
    for (int i = 0; i < kHllRegisters; ++i) {
      const uint8_t v = static_cast<uint8_t>(DenseGet(b + kHllHeaderSize, i));
      if (v > (*max)[i]) (*max)[i] = v;
    }
    return true;
  }
  return ForEachRun(hll, [max](int first, const Run& run) {
    for (int i = first; i < first + run.span; ++i) {
      if (run.value > (*max)[i]) (*max)[i] = static_cast<uint8_t>(run.value);
    }
  });
}

uint64_t HllCountRegisters(const HllRegisters& registers) {
  int histogram[64] = {0};
  for (uint8_t v : registers) ++histogram[v & 63];
  return Estimate(histogram);
}

bool HllToDense(std::string* hll) {
  if (HllIsDense(*hll)) return true;
  std::string dense(kHllDenseSize, '\0');
  std::memcpy(dense.data(), hll->data(), kHllHeaderSize);
  dense[kEncodingAt] = static_cast<char>(kDense);
  uint8_t* regs = Bytes(&dense) + kHllHeaderSize;
  if (!ForEachRun(*hll, [regs](int first, const Run& run) {
        if (run.value == 0) return;
        for (int i = first; i < first + run.span; ++i) {
          DensePut(regs, i, run.value);
        }
      })) {
    return false;
  }
  *hll = std::move(dense);
  return true;
}

std::optional<HllRegisters> HllRegistersOf(absl::string_view hll) {
  HllRegisters registers{};
  if (!HllMergeInto(hll, &registers)) return std::nullopt;
  return registers;
}

std::string HllDecodeSparse(absl::string_view hll) {
  std::string out;
  const uint8_t* b = Bytes(hll);
  for (size_t p = kHllHeaderSize; p < hll.size();) {
    const Run run = RunAt(b, p, hll.size());
    if (!out.empty()) out += ' ';
    if (run.value != 0) {
      absl::StrAppend(&out, "v:", run.value, ",", run.span);
    } else {
      absl::StrAppend(&out, run.bytes == 2 ? "Z:" : "z:", run.span);
    }
    p += run.bytes;
  }
  return out;
}

}  // namespace trackdb::types
