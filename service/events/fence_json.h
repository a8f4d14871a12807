#ifndef TRACKDB_SERVICE_EVENTS_FENCE_JSON_H_
#define TRACKDB_SERVICE_EVENTS_FENCE_JSON_H_

// Fences and their events as the Redis door shows them: the gRPC messages
// (trackdb.v1.Fence, trackdb.v1.FenceEvent) in proto3's JSON mapping, so a
// consumer reads the same fields from FENCE.GET / FENCE.EVENTS / pub/sub
// as from gRPC. JSON strings are UTF-8: a key or member that is not is
// shown with each byte >= 0x80 as the Latin-1 character of its value
// ("\xff" -> "\u00ff"), so no byte is dropped.

#include <string>

#include "absl/strings/string_view.h"
#include "storage/track_store.h"
#include "trackdb/v1/fence.pb.h"

namespace trackdb::resp {

// `fence` with `key` (the client's name of its collection) as collection.
std::string FenceJson(absl::string_view key, v1::Fence fence);
std::string FenceEventJson(absl::string_view key,
                           const storage::FenceEventRecord& event);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_EVENTS_FENCE_JSON_H_
