#ifndef TRACKDB_SERVICE_WEB_MAP_API_H_
#define TRACKDB_SERVICE_WEB_MAP_API_H_

// The map page's JSON API, usable with curl (all GET; times are Unix ms;
// a collection is its storage name: a gRPC collection, or a Redis key of
// database 0):
//
//   /api/collections                      [{name, entities}], UTF-8 names
//   /api/latest?collection=C[&format=rows]
//       every entity's latest position: GeoJSON FeatureCollection, or
//       {"rows":[["id",lon,lat,time_ms],...]}
//   /api/track?collection=C&entity=E[&from=&to=&tolerance_m=]
//       GeoJSON: the track as a LineString simplified by Douglas-Peucker
//       (tolerance_m, default 5; 0 keeps every fix), its stays as Points,
//       and "analysis": distance, trips, stays (AnalyzeTrack's rules)
//   /api/fences?collection=C              {"fences":[Fence as proto JSON]}
//   /api/search?collection=C&(bbox=W,S,E,N|circle=lon,lat,radius_m)
//       [&from=&to=&limit=&page_token=]
//       who was there in that time: one row per entity (first and last
//       fix inside, and how many), SearchHistory's per-entity page
//   /api/stream?collection=C              server-sent events (map_stream.h)
//
// A bad parameter answers 400 {"error":"..."} naming it.

#include "service/web/web_server.h"
#include "storage/track_store.h"

namespace trackdb::web {

// The answer to `request` if its path is one of the API's, else nullopt.
// `store` outlives every answer, streams included.
std::optional<WebAnswer> AnswerApi(storage::TrackStore& store,
                                   const http::HttpRequest& request);

}  // namespace trackdb::web

#endif  // TRACKDB_SERVICE_WEB_MAP_API_H_
