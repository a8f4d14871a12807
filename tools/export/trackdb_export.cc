// trackdb_export: tracks and positions out of a running trackd, for looking
// at them: GeoJSON, GPX or CSV (formats/track_writer.h), with progress on
// stderr. tools/export/exporter.h says what each query exports.
//
//   trackdb_export --collection=fleet --entity=car7 --out=car7.gpx
//   trackdb_export --collection=fleet --from_ms=... --to_ms=...
//   --out=day.geojson
//   trackdb_export --collection=fleet --radius=39.9,116.4,500 --positions \
//       --format=csv
//
// The format comes from --format, else --out's extension, else GeoJSON.
// TLS and users as trackdb_doctor (service/grpc/client_channel.h).
// Exit status: 0 done, 1 bad flags, 2 a call failed (what was written
// before it stays in the output).

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "service/grpc/client_channel.h"
#include "tools/export/exporter.h"
#include "tools/import/progress.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "trackd's gRPC address");
ABSL_FLAG(std::string, collection, "", "the collection (a Redis GEO key)");
ABSL_FLAG(std::string, entity, "", "one entity's track only");
ABSL_FLAG(int64_t, from_ms, 0, "tracks from this loc_time (inclusive)");
ABSL_FLAG(int64_t, to_ms, 0, "tracks up to this loc_time (0: no end)");
ABSL_FLAG(std::string, bounds, "",
          "south,west,north,east: entities whose latest position is inside");
ABSL_FLAG(std::string, radius, "",
          "lat,lon,metres: entities whose latest position is within");
ABSL_FLAG(std::string, polygon, "",
          "lat,lon;lat,lon;...: entities whose latest position is inside");
ABSL_FLAG(bool, positions, false,
          "a search: write each entity's latest position, not its track");
ABSL_FLAG(std::string, format, "", "geojson, gpx or csv");
ABSL_FLAG(std::string, out, "", "output file (default: stdout)");
ABSL_FLAG(std::string, progress, "auto",
          "auto (a redrawn line on a terminal), plain (a line every 5 s) or "
          "none");
ABSL_FLAG(uint32_t, page_size, 1000, "points per call (at most 1000)");

namespace trackdb::export_tool {
namespace {

int Usage(const std::string& why) {
  std::fprintf(stderr, "trackdb_export: %s\n", why.c_str());
  return 1;
}

// Comma-separated numbers, exactly `n` of them.
bool Numbers(absl::string_view text, size_t n, std::vector<double>* out) {
  out->clear();
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    double v = 0;
    if (!absl::SimpleAtod(part, &v)) return false;
    out->push_back(v);
  }
  return out->size() == n;
}

void SetLatLng(double lat, double lon, v1::LatLng* out) {
  out->set_latitude(lat);
  out->set_longitude(lon);
}

// The area flags into `query`; an error message, or empty.
std::string ParseArea(ExportQuery* query) {
  const std::string bounds = absl::GetFlag(FLAGS_bounds);
  const std::string radius = absl::GetFlag(FLAGS_radius);
  const std::string polygon = absl::GetFlag(FLAGS_polygon);
  if (!bounds.empty() + !radius.empty() + !polygon.empty() > 1) {
    return "give at most one of --bounds, --radius, --polygon";
  }
  std::vector<double> v;
  if (!bounds.empty()) {
    if (!Numbers(bounds, 4, &v)) return "--bounds is south,west,north,east";
    query->bounds.emplace().set_collection(query->collection);
    SetLatLng(v[0], v[1], query->bounds->mutable_south_west());
    SetLatLng(v[2], v[3], query->bounds->mutable_north_east());
  } else if (!radius.empty()) {
    if (!Numbers(radius, 3, &v)) return "--radius is lat,lon,metres";
    query->radius.emplace().set_collection(query->collection);
    SetLatLng(v[0], v[1], query->radius->mutable_center());
    query->radius->set_radius_m(v[2]);
  } else if (!polygon.empty()) {
    query->polygon.emplace().set_collection(query->collection);
    for (absl::string_view vertex : absl::StrSplit(polygon, ';')) {
      if (!Numbers(vertex, 2, &v)) return "--polygon is lat,lon;lat,lon;...";
      SetLatLng(v[0], v[1], query->polygon->add_vertices());
    }
  }
  return "";
}

std::optional<formats::Format> ChosenFormat(const std::string& out) {
  const std::string name = absl::GetFlag(FLAGS_format);
  if (!name.empty()) return formats::ParseFormat(name);
  for (const char* ext : {"gpx", "csv"}) {
    if (absl::EndsWithIgnoreCase(out, std::string(".") + ext)) {
      return formats::ParseFormat(ext);
    }
  }
  return formats::Format::kGeoJson;
}

import::Progress::Style ProgressStyle(){
    const std::string style = absl::GetFlag(FLAGS_progress);
if (style == "none") return import::Progress::Style::kNone;
if (style == "plain" || !isatty(STDERR_FILENO)) {
  return import::Progress::Style::kPlain;
}
return import::Progress::Style::kTerminal;
}  // namespace

int Run(const ExportQuery& query, formats::Format format) {
  auto channel = service::NewClientChannel(absl::GetFlag(FLAGS_target),
                                           service::ClientSecurityFromFlags());
  if (!channel.ok()) return Usage(std::string(channel.status().message()));
  auto stub = v1::TrackService::NewStub(*channel);
  const std::string path = absl::GetFlag(FLAGS_out);
  std::ofstream file;
  if (!path.empty()) {
    file.open(path, std::ios::binary | std::ios::trunc);
    if (!file) return Usage("cannot write " + path);
  }
  std::ostream& sink = path.empty() ? std::cout : file;
  std::unique_ptr<formats::TrackWriter> writer =
      formats::NewTrackWriter(format, &sink);
  import::Progress progress(ProgressStyle(), stderr, absl::Seconds(5),
                            "trackdb_export");
  const absl::Time start = absl::Now();
  absl::StatusOr<ExportCounts> done =
      Export(*stub, query, *writer,
             [&](const ExportCounts& written, uint64_t read, uint64_t total) {
               if (total > 0) {
                 progress.Phase("exporting entities", read, total);
               } else {
                 const std::streamoff bytes = sink.tellp();  // -1 on a pipe
                 progress.Reading(written.fixes, 0, bytes > 0 ? bytes : 0,
                                  std::nullopt);
               }
             });
  progress.Finish();
  sink.flush();
  if (!done.ok()) {
    std::fprintf(stderr, "trackdb_export: %s\n",
                 done.status().ToString().c_str());
    return 2;
  }
  std::fprintf(stderr, "trackdb_export: %llu entities, %llu fixes in %.1f s\n",
               static_cast<unsigned long long>(done->entities),
               static_cast<unsigned long long>(done->fixes),
               absl::ToDoubleSeconds(absl::Now() - start));
  return sink ? 0 : 2;
}

int Main() {
  ExportQuery query;
  query.collection = absl::GetFlag(FLAGS_collection);
  if (query.collection.empty()) return Usage("--collection is required");
  query.entity = absl::GetFlag(FLAGS_entity);
  query.from_ms = absl::GetFlag(FLAGS_from_ms);
  query.to_ms = absl::GetFlag(FLAGS_to_ms);
  query.tracks = !absl::GetFlag(FLAGS_positions);
  query.page_size = absl::GetFlag(FLAGS_page_size);
  if (std::string why = ParseArea(&query); !why.empty()) return Usage(why);
  const bool area = query.bounds || query.radius || query.polygon;
  if (!query.entity.empty() && area) {
    return Usage("--entity exports one track: give no area with it");
  }
  if (!query.tracks && !area) {
    return Usage("--positions needs an area (--bounds, --radius, --polygon)");
  }
  const std::optional<formats::Format> format =
      ChosenFormat(absl::GetFlag(FLAGS_out));
  if (!format) return Usage("--format is geojson, gpx or csv");
  return Run(query, *format);
}

}  // namespace trackdb::export_tool
}  // namespace trackdb::export_tool

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return trackdb::export_tool::Main();
}
