#include "index/geohash.h"

#include <cmath>

namespace trackdb::index {
namespace {

// Spreads the low 32 bits of v into the even bit positions.
uint64_t SpreadBits(uint64_t v) {
  v = (v | (v << 16)) & 0x0000FFFF0000FFFFULL;
  v = (v | (v << 8)) & 0x00FF00FF00FF00FFULL;
  v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  v = (v | (v << 2)) & 0x3333333333333333ULL;
  v = (v | (v << 1)) & 0x5555555555555555ULL;
  return v;
}

// The inverse of SpreadBits: gathers the even bits into the low 32.
uint32_t GatherBits(uint64_t v) {
  v &= 0x5555555555555555ULL;
  v = (v | (v >> 1)) & 0x3333333333333333ULL;
  v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  v = (v | (v >> 4)) & 0x00FF00FF00FF00FFULL;
  v = (v | (v >> 8)) & 0x0000FFFF0000FFFFULL;
  v = (v | (v >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(v);
}

std::optional<GeohashBits> EncodeInRanges(const LatLng& p, int step,
                                          double lat_min, double lat_max) {
  if (step < 1 || step > 32) return std::nullopt;
  // NaN fails every comparison, so test for the valid range, not the invalid.
  if (!(p.lon >= kRedisLonMin && p.lon <= kRedisLonMax && p.lat >= lat_min &&
        p.lat <= lat_max)) {
    return std::nullopt;
  }
  const double scale = static_cast<double>(1ULL << step);
  const double lat_offset = (p.lat - lat_min) / (lat_max - lat_min) * scale;
  const double lon_offset =
      (p.lon - kRedisLonMin) / (kRedisLonMax - kRedisLonMin) * scale;
  // Truncation to uint32, as Redis's interleave64(uint32_t, uint32_t) does.
  // At the top of a range the offset is 2^step: at step 32 that does not
  // fit a uint32 (undefined behaviour in a direct cast), so truncate
  // through uint64, which wraps it to 0 as x86 does for Redis's C cast.
  const uint32_t ilat =
      static_cast<uint32_t>(static_cast<uint64_t>(lat_offset));
  const uint32_t ilon =
      static_cast<uint32_t>(static_cast<uint64_t>(lon_offset));
  return GeohashBits{SpreadBits(ilat) | (SpreadBits(ilon) << 1), step};
}

// Moves the cell one step along the odd (longitude) or even (latitude) bits,
// wrapping within the step's width, as Redis's geohash_move_x/_y do.
void Move(GeohashBits* hash, int d, bool along_lon) {
  if (d == 0) return;
  const uint64_t odd = 0xaaaaaaaaaaaaaaaaULL;
  const uint64_t even = 0x5555555555555555ULL;
  const uint64_t moving_mask = along_lon ? odd : even;
  uint64_t moving = hash->bits & moving_mask;
  const uint64_t fixed = hash->bits & ~moving_mask;
  const int shift = 64 - hash->step * 2;
  // zz has every bit of the other axis set, so the carry ripples through it.
  const uint64_t zz = (along_lon ? even : odd) >> shift;
  if (d > 0) {
    moving = moving + (zz + 1);
  } else {
    moving = moving | zz;
    moving = moving - (zz + 1);
  }
  moving &= moving_mask >> shift;
  hash->bits = moving | fixed;
}

}  // namespace

std::optional<GeohashBits> GeohashEncode(const LatLng& p, int step) {
  return EncodeInRanges(p, step, kRedisLatMin, kRedisLatMax);
}

std::optional<uint64_t> RedisGeoScore(const LatLng& p) {
  auto hash = GeohashEncode(p, kRedisGeoStep);
  if (!hash) return std::nullopt;
  return hash->bits;
}

GeohashArea GeohashDecodeArea(const GeohashBits& hash) {
  const uint32_t ilat = GatherBits(hash.bits);
  const uint32_t ilon = GatherBits(hash.bits >> 1);
  const double cells = static_cast<double>(1ULL << hash.step);
  const double lat_scale = kRedisLatMax - kRedisLatMin;
  const double lon_scale = kRedisLonMax - kRedisLonMin;
  GeohashArea area;
  area.lat_min = kRedisLatMin + (ilat * 1.0 / cells) * lat_scale;
  // + 1.0, not + 1: the top cell's index at step 32 is UINT32_MAX, and
  // Redis adds 1 in 64 bits.
  area.lat_max = kRedisLatMin + ((ilat + 1.0) / cells) * lat_scale;
  area.lon_min = kRedisLonMin + (ilon * 1.0 / cells) * lon_scale;
  area.lon_max = kRedisLonMin + ((ilon + 1.0) / cells) * lon_scale;
  return area;
}

LatLng GeohashDecodeCentre(const GeohashBits& hash) {
  const GeohashArea area = GeohashDecodeArea(hash);
  LatLng c{(area.lat_min + area.lat_max) / 2,
           (area.lon_min + area.lon_max) / 2};
  c.lat = std::fmin(std::fmax(c.lat, kRedisLatMin), kRedisLatMax);
  c.lon = std::fmin(std::fmax(c.lon, kRedisLonMin), kRedisLonMax);
  return c;
}

LatLng RedisGeoScoreToLatLng(uint64_t score) {
  return GeohashDecodeCentre(GeohashBits{score, kRedisGeoStep});
}

std::string RedisGeohashString(uint64_t score) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  const LatLng centre = RedisGeoScoreToLatLng(score);
  // Standard geohash ranges: latitude [-90, 90].
  const std::optional<GeohashBits> hash =
      EncodeInRanges(centre, kRedisGeoStep, -90, 90);
  const uint64_t bits = hash ? hash->bits : 0;
  std::string out(11, '0');
  for (int i = 0; i < 10; ++i) {
    out[i] = kAlphabet[(bits >> (52 - (i + 1) * 5)) & 0x1f];
  }
  // Character 11 would need bits 53..55, which a 52-bit hash lacks: Redis
  // emits '0' for it, and so do we (out[10] stays '0').
  return out;
}

std::array<GeohashBits, 8> GeohashNeighbors(const GeohashBits& hash) {
  static constexpr int kMoves[8][2] = {
      // {d_lon, d_lat} in GeohashDirection order.
      {0, 1}, {1, 0}, {-1, 0}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1},
  };
  std::array<GeohashBits, 8> out;
  for (int i = 0; i < 8; ++i) {
    out[i] = hash;
    Move(&out[i], kMoves[i][0], /*along_lon=*/true);
    Move(&out[i], kMoves[i][1], /*along_lon=*/false);
  }
  return out;
}

}  // namespace trackdb::index
