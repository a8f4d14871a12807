#ifndef TRACKDB_SERVICE_RESP_KEY_DUMP_H_
#define TRACKDB_SERVICE_RESP_KEY_DUMP_H_

// A key's whole value as DUMP and MIGRATE serialize it (rdb_payload.h).

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "service/resp/rdb_payload.h"
#include "storage/track_store.h"
#include "storage/typed_values.h"

namespace trackdb::resp {

// `name`'s hash, set, list or sorted set, read in `txn`: a GEO key as the
// sorted set Redis would hold (its members' geohash scores), a sorted set
// in score order, a list head first. nullopt when it holds none of them (a
// string is read apart: a typed transaction holds its stripe).
absl::StatusOr<std::optional<RdbValue>> LoadTypedValue(
    storage::TrackStore& store, storage::TypedTxn& txn,
    const std::string& name);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_KEY_DUMP_H_
