#include "formats/track_writer.h"

#include "absl/strings/match.h"
#include "formats/writers.h"

namespace trackdb::formats {

std::optional<Format> ParseFormat(absl::string_view name) {
  if (absl::EqualsIgnoreCase(name, "geojson")) return Format::kGeoJson;
  if (absl::EqualsIgnoreCase(name, "gpx")) return Format::kGpx;
  if (absl::EqualsIgnoreCase(name, "csv")) return Format::kCsv;
  return std::nullopt;
}

std::unique_ptr<TrackWriter> NewTrackWriter(Format format, std::ostream* out) {
  switch (format) {
    case Format::kGpx:
      return NewGpxWriter(out);
    case Format::kCsv:
      return NewCsvWriter(out);
    case Format::kGeoJson:
      break;
  }
  return NewGeoJsonWriter(out);
}

}  // namespace trackdb::formats
