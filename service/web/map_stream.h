#ifndef TRACKDB_SERVICE_WEB_MAP_STREAM_H_
#define TRACKDB_SERVICE_WEB_MAP_STREAM_H_

// /api/stream?collection=C: a collection followed live, as server-sent
// events (EventSource in a browser, `curl -N` elsewhere):
//
//   event: snapshot   {"rows":[["id",lon,lat,time_ms],...],"sent_ms":T}:
//                     every entity; first, and again whenever the stream
//                     could not keep up or the collection was replaced
//   event: positions  {"set":[rows],"erase":["id",...],"sent_ms":T}: what
//                     moved since the last message (each entity once)
//   event: fence      a fence event as FENCE.EVENTS shows it (fence_json.h)
//
// Positions come from the latest index's feed (storage/points/latest_feed.h),
// not from reading the collection again: at most ten messages a second,
// whatever the rate of fixes. Fence events come from the collection's
// durable log, in offset order, from the moment the stream began.

#include <string>

#include "service/web/web_server.h"
#include "storage/track_store.h"

namespace trackdb::web {

WebAnswer StreamAnswer(storage::TrackStore& store, std::string collection);

}  // namespace trackdb::web

#endif  // TRACKDB_SERVICE_WEB_MAP_STREAM_H_
