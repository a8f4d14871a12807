#ifndef TRACKDB_TYPES_KEY_TYPE_H_
#define TRACKDB_TYPES_KEY_TYPE_H_

// What a Redis key holds in trackdb, and the type checks and removal that
// commands apply to any key. A key is a string (the kv column family, with
// an optional expiry), a hash, list, set or sorted set (a typed value,
// storage/format/typed_values.h, with an optional expiry), a GEO key (a
// non-empty collection, which Redis calls a zset; geo_key.h), or nothing.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/track_store.h"

namespace trackdb::types {

enum class KeyType { kNone, kString, kGeo, kHash, kList, kSet, kZset };
KeyType KeyTypeOf(storage::ValueType t);
// What the key `name` holds (one type per name: the store refuses a
// second; should an older store hold two, a string wins, then a typed
// value).
absl::StatusOr<KeyType> TypeOf(storage::TrackStore& store,
                               absl::string_view name, int64_t now_ms);
// Redis's TYPE words: string, hash, list, set, zset (GEO keys too), none.
const char* TypeName(KeyType t);

// Whether the storage name `name` holds a GEO key (a non-empty collection).
absl::StatusOr<bool> IsGeoKey(storage::TrackStore& store,
                              absl::string_view name);

// Whether the storage name `name` holds something other than a string: a
// typed value or a GEO key (string commands answer WRONGTYPE then).
absl::StatusOr<bool> HoldsNonString(storage::TrackStore& store,
                                    absl::string_view name, int64_t now_ms);

// When what `name` holds besides a string (a typed value, else a GEO key)
// expires: Unix ms, 0 for never or nothing (SET ... KEEPTTL over it keeps
// it, as Redis's setKey keeps any key's TTL).
absl::StatusOr<int64_t> NonStringExpiry(storage::TrackStore& store,
                                        absl::string_view name, int64_t now_ms);

// Removes whatever key `name` holds (a string, typed value or GEO
// collection), as Redis's dbDelete. Returns whether something was removed.
absl::StatusOr<bool> DeleteAnyKey(storage::TrackStore& store,
                                  absl::string_view name, int64_t now_ms);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_KEY_TYPE_H_
