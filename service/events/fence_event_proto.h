#ifndef TRACKDB_SERVICE_EVENTS_FENCE_EVENT_PROTO_H_
#define TRACKDB_SERVICE_EVENTS_FENCE_EVENT_PROTO_H_

// A fence event as both doors describe it: trackdb.v1.FenceEvent, streamed
// by FenceService.Watch and, in proto3's JSON mapping, returned by RESP's
// FENCE.EVENTS, so a consumer reads the same fields from either.

#include "absl/strings/string_view.h"
#include "storage/track_store.h"
#include "trackdb/v1/fence.pb.h"

namespace trackdb::service {

// `collection` as the caller names it (a RESP key, a gRPC collection).
void ToProtoEvent(absl::string_view collection,
                  const storage::FenceEventRecord& in, v1::FenceEvent* out);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_EVENTS_FENCE_EVENT_PROTO_H_
