#ifndef TRACKDB_FORMATS_TRACK_WRITER_H_
#define TRACKDB_FORMATS_TRACK_WRITER_H_

// Tracks and positions written out for looking at them (a map, QGIS, a GPS
// tool, a spreadsheet), in one of three formats:
//
//   GeoJSON  a FeatureCollection (RFC 7946): a track is a LineString
//            Feature (a Point for a single fix) whose properties hold
//            entity_id, fixes, start_ms, end_ms and coordTimes (each
//            coordinate's time, ISO 8601, as togeojson writes them); a
//            position is a Point Feature with the fix's fields, its
//            attributes and, for radius searches, distance_m.
//   GPX 1.1  a position is a <wpt>, a track a <trk> of one <trkseg>, each
//            fix a <trkpt> with <ele> and <time>. GPX puts waypoints before
//            tracks: write positions first.
//   CSV      one row per fix or position, with a header (RFC 4180).
//
// Writers stream: a track's fixes go out as they come, so an export of
// millions of fixes holds at most one track's times (GeoJSON) in memory.
// Coordinates are WGS84 degrees, written so that they read back exactly.

#include <memory>
#include <optional>
#include <ostream>

#include "absl/strings/string_view.h"
#include "model/track_point.h"

namespace trackdb::formats {

enum class Format { kGeoJson, kGpx, kCsv };
// "geojson", "gpx" or "csv" (any case); nullopt otherwise.
std::optional<Format> ParseFormat(absl::string_view name);

class TrackWriter {
 public:
  virtual ~TrackWriter() = default;
  // One track: BeginTrack, its fixes in drawing order (oldest first, or as
  // a descending page gives them), EndTrack. A track with no fixes writes
  // nothing.
  virtual void BeginTrack(absl::string_view entity) = 0;
  virtual void Fix(const model::TrackPoint& fix) = 0;
  virtual void EndTrack() = 0;
  // One search result: an entity's position (its latest point), with its
  // distance from the search's centre when there is one.
  virtual void Position(const model::TrackPoint& point,
                        std::optional<double> distance_m) = 0;
  // Ends the document; nothing may be written after it.
  virtual void Finish() = 0;
};

std::unique_ptr<TrackWriter> NewTrackWriter(Format format, std::ostream* out);

}  // namespace trackdb::formats

#endif  // TRACKDB_FORMATS_TRACK_WRITER_H_
