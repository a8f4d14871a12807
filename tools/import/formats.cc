#include "tools/import/formats.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace trackdb::import {
namespace {

namespace fs = std::filesystem;

// Extensions a directory search accepts for a format.
std::vector<const char*> ExtensionsOf(Format format) {
  switch (format) {
    case Format::kCsv:
      return {".csv", ".txt"};
    case Format::kTDrive:
      return {".txt", ".csv"};
    case Format::kGeoLife:
      return {".plt"};
    case Format::kNdjson:
      return {".ndjson", ".jsonl", ".json"};
    case Format::kGeoJson:
      return {".geojson", ".json"};
    case Format::kAuto:
      return {".csv", ".plt", ".ndjson", ".jsonl", ".geojson"};
  }
  return {};
}

bool Fits(absl::string_view name, Format format) {
  absl::ConsumeSuffix(&name, ".gz");
  for (const char* ext : ExtensionsOf(format)) {
    if (absl::EndsWith(name, ext)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<Format> ParseFormat(absl::string_view name) {
  if (name == "auto") return Format::kAuto;
  if (name == "csv") return Format::kCsv;
  if (name == "tdrive") return Format::kTDrive;
  if (name == "geolife" || name == "plt") return Format::kGeoLife;
  if (name == "ndjson" || name == "jsonl") return Format::kNdjson;
  if (name == "geojson") return Format::kGeoJson;
  return absl::InvalidArgumentError(
      absl::StrCat("format '", name,
                   "' is not auto, csv, tdrive, geolife, ndjson or "
                   "geojson"));
}

const char* FormatName(Format format) {
  switch (format) {
    case Format::kAuto:
      return "auto";
    case Format::kCsv:
      return "csv";
    case Format::kTDrive:
      return "tdrive";
    case Format::kGeoLife:
      return "geolife";
    case Format::kNdjson:
      return "ndjson";
    case Format::kGeoJson:
      return "geojson";
  }
  return "?";
}

absl::StatusOr<Format> FormatOfPath(absl::string_view path) {
  absl::string_view name = path;
  absl::ConsumeSuffix(&name, ".gz");
  if (absl::EndsWith(name, ".csv")) return Format::kCsv;
  if (absl::EndsWith(name, ".plt")) return Format::kGeoLife;
  if (absl::EndsWith(name, ".ndjson") || absl::EndsWith(name, ".jsonl")) {
    return Format::kNdjson;
  }
  if (absl::EndsWith(name, ".geojson")) return Format::kGeoJson;
  return absl::InvalidArgumentError(absl::StrCat(
      "cannot tell the format of ", path == "-" ? "stdin" : path,
      " from its name: pass --format (csv, tdrive, geolife, ndjson, "
      "geojson)"));
}

absl::StatusOr<std::vector<std::string>> ExpandInputs(
    const std::vector<std::string>& args, Format format) {
  std::vector<std::string> files;
  for (const std::string& arg : args) {
    std::error_code error;
    if (arg == "-" || !fs::is_directory(arg, error)) {
      files.push_back(arg);
      continue;
    }
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(arg, error), end;
         !error && it != end; it.increment(error)) {
      if (it->is_regular_file(error) &&
          Fits(it->path().filename().string(), format)) {
        found.push_back(it->path().string());
      }
    }
    if (error) {
      return absl::NotFoundError(
          absl::StrCat("cannot list ", arg, ": ", error.message()));
    }
    if (found.empty()) {
      return absl::NotFoundError(
          absl::StrCat("no ", FormatName(format), " files in ", arg));
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::string GeoLifeEntityOf(absl::string_view path, GeoLifeEntity mode) {
  const fs::path p{std::string(path)};
  std::string stem = p.filename().string();
  absl::string_view s = stem;
  absl::ConsumeSuffix(&s, ".gz");
  absl::ConsumeSuffix(&s, ".plt");
  const std::string file(s);
  // Data/<user>/Trajectory/<file>.plt
  std::string user;
  if (p.parent_path().filename() == "Trajectory") {
    user = p.parent_path().parent_path().filename().string();
  }
  if (mode == GeoLifeEntity::kUser) return user.empty() ? file : user;
  return user.empty() ? file : absl::StrCat(user, "/", file);
}

absl::StatusOr<std::unique_ptr<PointReader>> NewReader(
    Format format, InputSource* in, const ReaderOptions& options,
    absl::string_view path) {
  CsvLayout layout;
  switch (format) {
    case Format::kAuto:
      return absl::InternalError("NewReader needs a resolved format");
    case Format::kCsv:
      layout.columns = options.columns;
      layout.skip_lines = options.skip_lines;
      layout.delimiter = options.delimiter;
      layout.entity = options.entity;
      break;
    case Format::kTDrive:
      layout = TDriveLayout();
      break;
    case Format::kGeoLife:
      if (options.entity.empty() && path == "-") {
        return absl::InvalidArgumentError(
            "GeoLife from stdin: name the entity with --entity");
      }
      layout = GeoLifeLayout(options.entity.empty()
                                 ? GeoLifeEntityOf(path, options.geolife_entity)
                                 : options.entity);
      break;
    case Format::kNdjson:
      return NewNdjsonReader(in, options.time);
    case Format::kGeoJson:
      return NewGeoJsonReader(in, options.time, options.geojson);
  }
  return NewCsvReader(in, std::move(layout), options.time);
}

}  // namespace trackdb::import
