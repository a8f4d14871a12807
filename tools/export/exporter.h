#ifndef TRACKDB_TOOLS_EXPORT_EXPORTER_H_
#define TRACKDB_TOOLS_EXPORT_EXPORTER_H_

// trackdb_export's work, over TrackService's gRPC API (so it runs against
// any trackd, with its users and TLS): what to export, read page by page,
// written by formats/track_writer.h as it comes.
//
//   one entity        its track in [from, to]
//   a collection      every entity's track (the entities listed by a
//                     search over the whole GEO range, ids only)
//   a search          the entities whose latest position is in a rectangle,
//                     circle or polygon: their positions, or their tracks
//
// Memory holds one page and, for a collection or a search's tracks, the
// list of entity ids.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "formats/track_writer.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb::export_tool {

struct ExportQuery {
  std::string collection;
  std::string entity;   // set: this entity's track only
  int64_t from_ms = 0;  // GetTrack's start_time_ms
  int64_t to_ms = 0;    // GetTrack's end_time_ms (0: no upper bound)
  // An area (at most one): the search's hits are exported.
  std::optional<v1::SearchBoundsRequest> bounds;
  std::optional<v1::SearchRadiusRequest> radius;
  std::optional<v1::SearchPolygonRequest> polygon;
  bool tracks = true;  // a search: each hit's track, or (false) its position
  uint32_t page_size = 1000;
};

struct ExportCounts {
  uint64_t entities = 0;  // tracks or positions written
  uint64_t fixes = 0;     // fixes and positions written
};

// Told after every page: what has been written, how many entities have
// been read (written or found empty in the range) of how many the export
// covers (0 while unknown: one entity's track, a search's positions).
using ExportProgress =
    std::function<void(const ExportCounts& written, uint64_t entities_read,
                       uint64_t entities_total)>;

// Runs `query` against `stub`, writing to `out` (which it Finish()es).
// The first failed call's status, naming the call; what was written before
// it stays written.
absl::StatusOr<ExportCounts> Export(v1::TrackService::StubInterface& stub,
                                    const ExportQuery& query,
                                    formats::TrackWriter& out,
                                    const ExportProgress& progress = nullptr);

}  // namespace trackdb::export_tool

#endif  // TRACKDB_TOOLS_EXPORT_EXPORTER_H_
