#include "storage/fence_codec.h"

#include <cstdint>

#include "absl/base/casts.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"

namespace trackdb::storage {
namespace {

constexpr char kVersion = 1;

bool ReadByte(absl::string_view* in, uint8_t* b) {
  if (in->empty()) return false;
  *b = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  return true;
}

bool ReadInt64(absl::string_view* in, int64_t* v) {
  if (in->size() < 8) return false;
  *v = static_cast<int64_t>(ReadBigEndian64(*in));
  in->remove_prefix(8);
  return true;
}

bool ReadString(absl::string_view* in, std::string* out) {
  uint32_t len = 0;
  if (!ReadVarint32(in, &len) || in->size() < len) return false;
  out->assign(in->data(), len);
  in->remove_prefix(len);
  return true;
}

}  // namespace

std::string EncodeFenceState(const fence::EntityFenceState& s) {
  std::string out(1, kVersion);
  out.push_back(static_cast<char>((s.inside ? 1 : 0) | (s.last_inside ? 2 : 0) |
                                  (s.dwell_reported ? 4 : 0)));
  AppendBigEndian64(&out, static_cast<uint64_t>(s.stay_start_ms));
  AppendVarint32(&out, s.pending_fixes);
  AppendBigEndian64(&out, static_cast<uint64_t>(s.pending_since_ms));
  return out;
}

std::optional<fence::EntityFenceState> DecodeFenceState(absl::string_view in) {
  uint8_t version = 0, bits = 0;
  fence::EntityFenceState s;
  if (!ReadByte(&in, &version) || version != kVersion ||
      !ReadByte(&in, &bits) || !ReadInt64(&in, &s.stay_start_ms) ||
      !ReadVarint32(&in, &s.pending_fixes) ||
      !ReadInt64(&in, &s.pending_since_ms) || !in.empty()) {
    return std::nullopt;
  }
  s.inside = bits & 1;
  s.last_inside = bits & 2;
  s.dwell_reported = bits & 4;
  return s;
}

std::string EncodeFenceEvent(const FenceEventRecord& e) {
  std::string out(1, kVersion);
  out.push_back(static_cast<char>(e.kind));
  const bool nearby = !e.nearby.empty();
  out.push_back(static_cast<char>((e.late ? 1 : 0) | (nearby ? 2 : 0)));
  AppendBigEndian64(&out, static_cast<uint64_t>(e.dwell_ms));
  AppendBigEndian64(&out, static_cast<uint64_t>(e.logged_ms));
  AppendVarint32(&out, static_cast<uint32_t>(e.fence.size()));
  out += e.fence;
  AppendVarint32(&out, static_cast<uint32_t>(e.point.entity.size()));
  out += e.point.entity;
  if (nearby) {
    AppendVarint32(&out, static_cast<uint32_t>(e.nearby.size()));
    out += e.nearby;
    AppendBigEndian64(&out, absl::bit_cast<uint64_t>(e.nearby_distance_m));
  }
  out += EncodePointValue(e.point);
  return out;
}

absl::Status DecodeFenceEvent(absl::string_view in, FenceEventRecord* out) {
  uint8_t version = 0, kind = 0, bits = 0;
  if (!ReadByte(&in, &version) || version != kVersion ||
      !ReadByte(&in, &kind) || !v1::FenceEventKind_IsValid(kind) ||
      !ReadByte(&in, &bits) || !ReadInt64(&in, &out->dwell_ms) ||
      !ReadInt64(&in, &out->logged_ms) || !ReadString(&in, &out->fence) ||
      !ReadString(&in, &out->point.entity)) {
    return absl::DataLossError("corrupt fence event");
  }
  out->kind = static_cast<v1::FenceEventKind>(kind);
  out->late = bits & 1;
  if (bits & 2) {
    int64_t distance = 0;
    if (!ReadString(&in, &out->nearby) || out->nearby.empty() ||
        !ReadInt64(&in, &distance)) {
      return absl::DataLossError("corrupt fence event");
    }
    out->nearby_distance_m = absl::bit_cast<double>(distance);
  }
  return DecodePointValue(in, &out->point);
}

}  // namespace trackdb::storage
