#ifndef TRACKDB_SERVICE_RESP_COLLECTION_COPY_H_
#define TRACKDB_SERVICE_RESP_COLLECTION_COPY_H_

// RENAME of a GEO key: trackdb cannot rename a collection in place (every
// key of it starts with its name), so it copies one.

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "storage/track_store.h"

namespace trackdb::resp {

// Writes every point of every entity of collection `src` (history
// included) into `dst` through AddPoints, an entity's points oldest first,
// so that `dst` ends with the same history and latest points. Points go in
// batches of up to `batch_points` (one AddPoints call, so one WriteBatch,
// each): a collection that fits in one batch appears in `dst` at once.
// Memory is bounded by a batch. `dst` should be empty; `src` is unchanged.
// Not atomic against concurrent writers of either collection.
absl::Status CopyCollection(storage::TrackStore& store, const std::string& src,
                            const std::string& dst,
                            size_t batch_points = 100000);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COLLECTION_COPY_H_
