#ifndef TRACKDB_TYPES_KEY_DUMP_H_
#define TRACKDB_TYPES_KEY_DUMP_H_

// A key's whole value as DUMP and MIGRATE serialize it (rdb_payload.h).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "storage/format/typed_values.h"
#include "storage/track_store.h"
#include "types/codec/rdb_payload.h"

namespace trackdb::types {

// `name`'s hash, set, list or sorted set, read in `txn`: a GEO key as the
// sorted set Redis would hold (its members' geohash scores), a sorted set
// in score order, a list head first. nullopt when it holds none of them (a
// string is read apart: a typed transaction holds its stripe).
absl::StatusOr<std::optional<RdbValue>> LoadTypedValue(
    storage::TrackStore& store, storage::TypedTxn& txn,
    const std::string& name);

// What a key holds, as DUMP, MIGRATE and WATCH read it.
struct DumpedKey {
  std::string payload;       // its value's DUMP payload
  int64_t expire_at_ms = 0;  // Unix ms, 0 for never
  // Its string, when it is one (MIGRATE removes it only if unchanged).
  std::optional<storage::StringValue> string;
};

// The key under the storage name `name` at `now_ms`: a string, else a
// hash, set, list, sorted set or GEO key read in one typed read. nullopt
// when it holds nothing.
absl::StatusOr<std::optional<DumpedKey>> DumpKey(storage::TrackStore& store,
                                                 const std::string& name,
                                                 int64_t now_ms);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_KEY_DUMP_H_
