#include "storage/format/chunk_codec.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "storage/format/keys.h"

namespace trackdb::storage {
namespace {

constexpr char kVersion = 1;
constexpr uint8_t kRawDoubles = 0xff;
constexpr int kMaxScale = 9;
constexpr double kPow10[kMaxScale + 1] = {1,   1e1, 1e2, 1e3, 1e4,
                                          1e5, 1e6, 1e7, 1e8, 1e9};
// Integers past 2^53 are not all doubles: a scaled value must stay below.
constexpr double kMaxScaled = 9007199254740992.0;

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}
// Differences and sums wrap (as unsigned arithmetic does), so that any
// times, and any bytes a corrupt value holds, stay defined behaviour; a
// wrapped difference sums back to the value it came from.
int64_t Minus(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
int64_t Plus(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}

// Most values in a chunk are deltas of one byte: those take the short way.
inline bool ReadSigned(absl::string_view* in, int64_t* v) {
  if (!in->empty() && static_cast<uint8_t>(in->front()) < 0x80) {
    *v = UnZigZag(static_cast<uint8_t>(in->front()));
    in->remove_prefix(1);
    return true;
  }
  uint64_t z;
  if (!ReadVarint64(in, &z)) return false;
  *v = UnZigZag(z);
  return true;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Each value times 10^scale as an integer, if every value comes back bit
// for bit from it.
bool Scaled(absl::Span<const double> values, int scale,
            std::vector<int64_t>* out) {
  out->clear();
  const double p = kPow10[scale];
  for (double v : values) {
    const double scaled = std::nearbyint(v * p);
    if (!(std::fabs(scaled) < kMaxScaled)) return false;  // NaN too
    const int64_t k = static_cast<int64_t>(scaled);
    if (!SameBits(static_cast<double>(k) / p, v)) return false;
    out->push_back(k);
  }
  return true;
}

// The integers as zigzag varints of their differences of `order` (1 or 2).
std::string Differences(const std::vector<int64_t>& ints, int order) {
  std::string out;
  int64_t prev = 0, prev_delta = 0;
  for (size_t i = 0; i < ints.size(); ++i) {
    const int64_t delta = Minus(ints[i], prev);
    AppendVarint64(
        &out, ZigZag(order == 2 && i > 0 ? Minus(delta, prev_delta) : delta));
    prev = ints[i];
    prev_delta = delta;
  }
  return out;
}

void AppendRawDouble(std::string* out, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  AppendBigEndian64(out, bits);
}

void AppendDoubles(std::string* out, absl::Span<const double> values) {
  std::vector<int64_t> ints;
  int scale = 0;
  while (scale <= kMaxScale && !Scaled(values, scale, &ints)) ++scale;
  if (scale > kMaxScale) {
    out->push_back(static_cast<char>(kRawDoubles));
    for (double v : values) AppendRawDouble(out, v);
    return;
  }
  std::string first = Differences(ints, 1);
  std::string second = Differences(ints, 2);
  const int order = second.size() < first.size() ? 2 : 1;
  out->push_back(static_cast<char>(scale | (order << 4)));
  out->append(order == 2 ? second : first);
}

using Doubles = ChunkColumns::Doubles;

bool ReadDoubles(absl::string_view* in, size_t n, Doubles* out) {
  if (in->empty()) return false;
  const uint8_t mode = static_cast<uint8_t>(in->front());
  in->remove_prefix(1);
  out->ints.clear();
  if (mode == kRawDoubles) {
    if (in->size() < 8 * n) return false;
    out->scale = -1;
    for (size_t i = 0; i < n; ++i, in->remove_prefix(8)) {
      out->ints.push_back(static_cast<int64_t>(ReadBigEndian64(*in)));
    }
    return true;
  }
  const int scale = mode & 0x0f, order = mode >> 4;
  if (scale > kMaxScale || (order != 1 && order != 2)) return false;
  out->scale = scale;
  out->ints.resize(n);
  int64_t value = 0, delta = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t d;
    if (!ReadSigned(in, &d)) return false;
    delta = order == 2 && i > 0 ? Plus(delta, d) : d;
    value = Plus(value, delta);
    out->ints[i] = value;
  }
  return true;
}

void AppendTimes(std::string* out, absl::Span<const model::TrackPoint> fixes) {
  int64_t prev_delta = 0;
  for (size_t i = 1; i < fixes.size(); ++i) {
    const int64_t delta = Minus(fixes[i].loc_time_ms, fixes[i - 1].loc_time_ms);
    AppendVarint64(out, ZigZag(i == 1 ? delta : Minus(delta, prev_delta)));
    prev_delta = delta;
  }
}

bool ReadTimes(absl::string_view* in, int64_t first, size_t n,
               std::vector<int64_t>* times) {
  int64_t t = first, delta = 0;
  times->clear();
  times->push_back(t);
  for (size_t i = 1; i < n; ++i) {
    int64_t d;
    if (!ReadSigned(in, &d)) return false;
    delta = i == 1 ? d : Plus(delta, d);
    t = Plus(t, delta);
    times->push_back(t);
  }
  return true;
}

std::optional<double> model::TrackPoint::*const kOptionals[] = {
    &model::TrackPoint::speed_kmh, &model::TrackPoint::direction_deg,
    &model::TrackPoint::height_m, &model::TrackPoint::accuracy_m};

void AppendOptional(std::string* out, absl::Span<const model::TrackPoint> fixes,
                    std::optional<double> model::TrackPoint::*field) {
  std::vector<double> present;
  std::string bitmap((fixes.size() + 7) / 8, '\0');
  for (size_t i = 0; i < fixes.size(); ++i) {
    if (!(fixes[i].*field).has_value()) continue;
    present.push_back(*(fixes[i].*field));
    bitmap[i / 8] = static_cast<char>(bitmap[i / 8] | (1 << (i % 8)));
  }
  if (present.empty()) {
    out->push_back(0);
    return;
  }
  if (present.size() == fixes.size()) {
    out->push_back(1);
  } else {
    out->push_back(2);
    out->append(bitmap);
  }
  AppendDoubles(out, present);
}

// One optional field's column: *values holds one value a fix (0 where
// *has says none); *has is left empty when every fix has one or none does
// (then *values is empty too).
bool ReadOptional(absl::string_view* in, size_t n, Doubles* values,
                  std::vector<uint8_t>* has) {
  if (in->empty()) return false;
  const char mode = in->front();
  in->remove_prefix(1);
  values->ints.clear();
  has->clear();
  if (mode == 0) return true;
  if (mode == 1) return ReadDoubles(in, n, values);
  if (mode != 2) return false;
  const size_t bytes = (n + 7) / 8;
  if (in->size() < bytes) return false;
  size_t count = 0;
  has->resize(n);
  for (size_t i = 0; i < n; ++i) {
    (*has)[i] = ((*in)[i / 8] >> (i % 8)) & 1;
    count += (*has)[i];
  }
  in->remove_prefix(bytes);
  if (!ReadDoubles(in, count, values)) return false;
  std::vector<int64_t>& ints = values->ints;
  ints.resize(n);
  for (size_t i = n, j = count; i-- > 0;) {  // spread, from the back
    ints[i] = (*has)[i] ? ints[--j] : 0;
  }
  return true;
}

void AppendString(std::string* out, absl::string_view s) {
  AppendVarint32(out, static_cast<uint32_t>(s.size()));
  out->append(s.data(), s.size());
}

void AppendAttributes(std::string* out,
                      absl::Span<const model::TrackPoint> fixes) {
  static const model::TrackPoint kNone;
  const model::TrackPoint* prev = &kNone;
  for (const model::TrackPoint& p : fixes) {
    if (p.attributes == prev->attributes) {
      out->push_back(0);
    } else {
      AppendVarint32(out, static_cast<uint32_t>(p.attributes.size() + 1));
      for (const auto& [key, value] : p.attributes) {
        AppendString(out, key);
        AppendString(out, value);
      }
    }
    prev = &p;
  }
}

// Each fix's attribute set as an index into *sets (0, the empty set: none;
// a fix that repeats the previous fix's attributes shares its index).
bool ReadAttributes(
    absl::string_view* in, size_t n, std::vector<uint32_t>* of,
    std::vector<std::vector<std::pair<std::string, std::string>>>* sets) {
  of->clear();
  sets->resize(1);
  (*sets)[0].clear();
  size_t used = 1;
  for (size_t i = 0; i < n; ++i) {
    uint32_t tag;
    if (!ReadVarint32(in, &tag)) return false;
    if (tag == 0) {
      of->push_back(i > 0 ? of->back() : 0);
      continue;
    }
    if (tag - 1 > in->size()) return false;
    if (used == sets->size()) sets->emplace_back();
    auto& set = (*sets)[used];
    set.resize(tag - 1);
    for (auto& [key, value] : set) {
      if (!ReadLengthPrefixed(in, &key) || !ReadLengthPrefixed(in, &value)) {
        return false;
      }
    }
    of->push_back(static_cast<uint32_t>(used++));
  }
  sets->resize(used);
  return true;
}

std::optional<ChunkSpan> ReadHeader(absl::string_view* in) {
  if (in->empty() || in->front() != kVersion) return std::nullopt;
  in->remove_prefix(1);
  uint32_t count;
  int64_t first, span;
  if (!ReadVarint32(in, &count) || count == 0 || !ReadSigned(in, &first) ||
      !ReadSigned(in, &span) || span < 0) {
    return std::nullopt;
  }
  return ChunkSpan{first, Plus(first, span), count};
}

absl::Status Corrupt(const char* what) {
  return absl::DataLossError(std::string("corrupt history chunk in storage: ") +
                             what);
}

}  // namespace

std::string EncodeChunk(absl::Span<const model::TrackPoint> fixes) {
  std::string out;
  out.push_back(kVersion);
  AppendVarint32(&out, static_cast<uint32_t>(fixes.size()));
  AppendVarint64(&out, ZigZag(fixes.front().loc_time_ms));
  AppendVarint64(
      &out, ZigZag(Minus(fixes.back().loc_time_ms, fixes.front().loc_time_ms)));
  AppendTimes(&out, fixes);
  std::vector<double> column;
  column.reserve(fixes.size());
  for (const model::TrackPoint& p : fixes) column.push_back(p.lat);
  AppendDoubles(&out, column);
  column.clear();
  for (const model::TrackPoint& p : fixes) column.push_back(p.lon);
  AppendDoubles(&out, column);
  for (auto field : kOptionals) AppendOptional(&out, fixes, field);
  AppendAttributes(&out, fixes);
  return out;
}

absl::Status ForEachChunk(
    absl::Span<const model::TrackPoint> fixes, size_t max,
    const std::function<absl::Status(absl::Span<const model::TrackPoint>)>&
        put) {
  const size_t pieces = (fixes.size() + max - 1) / max;
  for (size_t p = 0, begin = 0; p < pieces; ++p) {
    const size_t end = fixes.size() * (p + 1) / pieces;
    if (absl::Status s = put(fixes.subspan(begin, end - begin)); !s.ok()) {
      return s;
    }
    begin = end;
  }
  return absl::OkStatus();
}

std::optional<ChunkSpan> DecodeChunkSpan(absl::string_view value) {
  return ReadHeader(&value);
}

double ChunkColumns::Doubles::at(size_t i) const {
  if (scale < 0) {
    const uint64_t bits = static_cast<uint64_t>(ints[i]);
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  // The division the encoder checked each value against, bit for bit.
  return static_cast<double>(ints[i]) / kPow10[scale];
}

void ChunkColumns::Fill(size_t i, model::TrackPoint* p) const {
  p->loc_time_ms = times_[i];
  p->lat = lat_.at(i);
  p->lon = lon_.at(i);
  for (int f = 0; f < kOptionalFields; ++f) {
    std::optional<double>& field = p->*kOptionals[f];
    if (optional_[f].empty() || (!has_[f].empty() && !has_[f][i])) {
      field.reset();
    } else {
      field = optional_[f].at(i);
    }
  }
  p->attributes = attribute_sets_[attribute_of_[i]];
}

absl::Status DecodeChunkColumns(absl::string_view value, ChunkColumns* out) {
  const std::optional<ChunkSpan> span = ReadHeader(&value);
  if (!span) return Corrupt("bad header");
  const size_t n = span->count;
  if (n > value.size()) return Corrupt("count past the value");
  if (!ReadTimes(&value, span->first_ms, n, &out->times_)) {
    return Corrupt("truncated times");
  }
  if (out->times_.back() != span->last_ms) {
    return Corrupt("times do not end at the header's last");
  }
  if (!ReadDoubles(&value, n, &out->lat_) ||
      !ReadDoubles(&value, n, &out->lon_)) {
    return Corrupt("truncated position");
  }
  for (int f = 0; f < ChunkColumns::kOptionalFields; ++f) {
    if (!ReadOptional(&value, n, &out->optional_[f], &out->has_[f])) {
      return Corrupt("truncated optional field");
    }
  }
  if (!ReadAttributes(&value, n, &out->attribute_of_, &out->attribute_sets_)) {
    return Corrupt("truncated attributes");
  }
  if (!value.empty()) return Corrupt("trailing bytes");
  return absl::OkStatus();
}

absl::Status DecodeChunk(absl::string_view value,
                         std::vector<model::TrackPoint>* fixes) {
  ChunkColumns columns;
  if (absl::Status s = DecodeChunkColumns(value, &columns); !s.ok()) return s;
  const size_t base = fixes->size();
  fixes->resize(base + columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    columns.Fill(i, &(*fixes)[base + i]);
  }
  return absl::OkStatus();
}

}  // namespace trackdb::storage
