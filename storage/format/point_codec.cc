#include "storage/format/point_codec.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "index/latlng.h"
#include "storage/format/keys.h"

namespace trackdb::storage {
namespace {

constexpr char kVersion = 1;
constexpr size_t kFixedSize = 1 + 8 + 8 + 8;  // version, time, lat, lon

void AppendDouble(std::string* out, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  AppendBigEndian64(out, bits);
}

double ReadDouble(absl::string_view in) {
  const uint64_t bits = ReadBigEndian64(in);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

absl::Status Corrupt(const char* what) {
  return absl::DataLossError(std::string("corrupt point value in storage: ") +
                             what);
}

}  // namespace

std::string EncodePointValue(const model::TrackPoint& p) {
  std::string out;
  out.reserve(kFixedSize + 1 + 1);
  out.push_back(kVersion);
  AppendBigEndian64(&out, static_cast<uint64_t>(p.loc_time_ms));
  AppendDouble(&out, p.lat);
  AppendDouble(&out, p.lon);
  const std::optional<double>* optionals[] = {&p.speed_kmh, &p.direction_deg,
                                              &p.height_m, &p.accuracy_m};
  char presence = 0;
  for (int i = 0; i < 4; ++i) {
    if (optionals[i]->has_value()) presence |= static_cast<char>(1 << i);
  }
  out.push_back(presence);
  for (const auto* o : optionals) {
    if (o->has_value()) AppendDouble(&out, **o);
  }
  AppendVarint32(&out, static_cast<uint32_t>(p.attributes.size()));
  for (const auto& [key, value] : p.attributes) {
    AppendVarint32(&out, static_cast<uint32_t>(key.size()));
    out.append(key);
    AppendVarint32(&out, static_cast<uint32_t>(value.size()));
    out.append(value);
  }
  return out;
}

std::optional<PointPosition> DecodePosition(absl::string_view value) {
  if (value.size() < kFixedSize || value[0] != kVersion) return std::nullopt;
  return PointPosition{static_cast<int64_t>(ReadBigEndian64(value.substr(1))),
                       ReadDouble(value.substr(9)),
                       ReadDouble(value.substr(17))};
}

absl::Status DecodePointValue(absl::string_view value, model::TrackPoint* p) {
  const std::optional<PointPosition> pos = DecodePosition(value);
  if (!pos) return Corrupt("bad header");
  p->loc_time_ms = pos->loc_time_ms;
  p->lat = pos->lat;
  p->lon = pos->lon;
  value.remove_prefix(kFixedSize);
  if (value.empty()) return Corrupt("no presence byte");
  const char presence = value.front();
  value.remove_prefix(1);
  std::optional<double>* optionals[] = {&p->speed_kmh, &p->direction_deg,
                                        &p->height_m, &p->accuracy_m};
  for (int i = 0; i < 4; ++i) {
    optionals[i]->reset();
    if (presence & (1 << i)) {
      if (value.size() < 8) return Corrupt("truncated optional field");
      *optionals[i] = ReadDouble(value);
      value.remove_prefix(8);
    }
  }
  uint32_t count;
  if (!ReadVarint32(&value, &count)) return Corrupt("bad attribute count");
  p->attributes.clear();
  for (uint32_t i = 0; i < count; ++i) {
    std::string key, val;
    if (!ReadLengthPrefixed(&value, &key) || !ReadLengthPrefixed(&value, &val)) {
      return Corrupt("truncated attribute");
    }
    p->attributes.emplace_back(std::move(key), std::move(val));
  }
  if (!value.empty()) return Corrupt("trailing bytes");
  return absl::OkStatus();
}

}  // namespace trackdb::storage
