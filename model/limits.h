#ifndef TRACKDB_MODEL_LIMITS_H_
#define TRACKDB_MODEL_LIMITS_H_

// Every limit trackdb puts on what it is sent, in one table. The fixed ones
// are part of what a stored name or point is, so no configuration changes
// them; the configurable ones are LimitsConfig's (proto/trackdb/v1/
// config.proto), whose defaults are the values below. Every door (gRPC,
// RESP, the import tool, the conf loader) checks through model/validate.h,
// so the same input gets the same verdict whichever way it comes in.

#include <cstddef>
#include <cstdint>
#include <limits>

#include "trackdb/v1/config.pb.h"

namespace trackdb::model {

// Names. A collection is a gRPC collection or a Redis GEO key (the key as
// the client wrote it); an entity is a gRPC entity_id or a GEO member. Any
// bytes, the empty name included, as Redis allows.
inline constexpr size_t kMaxCollectionBytes = 1024;
inline constexpr size_t kMaxEntityIdBytes = 1024;
// A fence's name, unique in its collection: 1 to this many bytes.
inline constexpr size_t kMaxFenceNameBytes = 1024;

// Positions: Redis's GEO range (the Web Mercator square), so that every
// stored position has a geohash score and reads the same through GEOPOS,
// GEOSEARCH and gRPC.
inline constexpr double kMinLatitude = -85.05112878;
inline constexpr double kMaxLatitude = 85.05112878;
inline constexpr double kMinLongitude = -180;
inline constexpr double kMaxLongitude = 180;

// One page of GetTrack or a search: what one response may carry.
inline constexpr uint32_t kDefaultPageSize = 100;
inline constexpr uint32_t kMaxPageSize = 1000;

// AnalyzeTrack reads its range's fixes into memory (positions and
// quality, not attributes): at most this many.
inline constexpr size_t kMaxAnalyzedFixes = 500000;
// And bounds its stay search (analysis/track_analysis.h): a stay is a
// place, at most 10 km across, of at most a day.
inline constexpr double kMaxStayRadiusM = 10000;
inline constexpr int64_t kMaxStayMinMs = 86400000;

// A collection's history retention (storage/points/retention.h) keeps points for
// at most this long when it keeps them for a limited time: 1000 years,
// far from int64 milliseconds' range, so that now - max_age never wraps.
inline constexpr int64_t kMaxRetentionAgeMs = 1000LL * 366 * 86400000;
// And keeps at most this many fixes per entity when it limits their number.
inline constexpr int64_t kMaxRetentionPoints = 1000000000;

// A copy or rename of a collection is one write batch, held in memory: the
// default bound on its size, in MiB (storage.max_atomic_copy_mb).
inline constexpr uint64_t kDefaultMaxAtomicCopyMb = 256;

// How long, and how many of, a collection's fence events are kept
// (storage.fence_log_max_age_s, storage.fence_log_max_events): a week, as
// Kafka keeps a topic, and at most ten million events.
inline constexpr uint64_t kDefaultFenceLogMaxAgeS = 7 * 24 * 3600;
inline constexpr uint64_t kDefaultFenceLogMaxEvents = 10'000'000;

// The configurable limits, with their defaults.
struct Limits {
  // Points in one AddPoints call or one StreamPoints message.
  uint32_t max_batch_points = 10000;
  // Largest search radius, metres (any door: SearchRadius, GEOSEARCH
  // BYRADIUS). No limit by default, as Redis has none; an operator may set
  // one to bound what a search may cost.
  double max_radius_m = std::numeric_limits<double>::infinity();
  uint32_t max_polygon_vertices = 1000;
  // loc_time must lie in [min_loc_time_ms, now + max_future_ms]: earlier
  // or later is a clock or unit bug (seconds sent as milliseconds, say).
  int64_t min_loc_time_ms = 946684800000;  // 2000-01-01T00:00:00Z
  int64_t max_future_ms = 86400000;        // one day
  // Attributes of one point: how many, and the bytes of a key or value.
  uint32_t max_attributes = 32;
  uint32_t max_attribute_bytes = 256;
};

// `config`'s values, the defaults above where a field is unset.
Limits LimitsFrom(const v1::LimitsConfig& config);
// Every field set: explicit values kept, the others from the defaults.
v1::LimitsConfig WithLimitDefaults(const v1::LimitsConfig& config);

}  // namespace trackdb::model

#endif  // TRACKDB_MODEL_LIMITS_H_
