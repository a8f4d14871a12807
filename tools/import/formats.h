#ifndef TRACKDB_TOOLS_IMPORT_FORMATS_H_
#define TRACKDB_TOOLS_IMPORT_FORMATS_H_

// Input formats of trackdb_import, which files a directory argument means,
// and the reader for one input.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/import/csv_reader.h"
#include "tools/import/input_source.h"
#include "tools/import/json_readers.h"
#include "tools/import/point_reader.h"
#include "tools/import/timestamp.h"

namespace trackdb::import {

enum class Format { kAuto, kCsv, kTDrive, kGeoLife, kNdjson, kGeoJson };

// auto, csv, tdrive, geolife (or plt), ndjson (or jsonl), geojson.
absl::StatusOr<Format> ParseFormat(absl::string_view name);
const char* FormatName(Format format);

// The format of a file by its name (a trailing .gz ignored): .csv, .plt,
// .ndjson/.jsonl, .geojson. INVALID_ARGUMENT asking for --format otherwise.
absl::StatusOr<Format> FormatOfPath(absl::string_view path);

// How a GeoLife file's entity is named: its user (Data/<user>/Trajectory/
// x.plt -> "<user>"), or the file (one entity per trajectory: "<user>/x").
enum class GeoLifeEntity { kUser, kFile };

struct ReaderOptions {
  TimeOptions time;
  // csv: the columns when there is no header line (--columns), lines to
  // skip first, the delimiter.
  std::vector<CsvColumn> columns;
  int skip_lines = 0;
  char delimiter = ',';
  // csv, tdrive, geolife: every row's entity (--entity), instead of a
  // column or the path.
  std::string entity;
  GeoLifeEntity geolife_entity = GeoLifeEntity::kUser;
  GeoJsonOptions geojson;
};

// The files the arguments name, in order: a file as it is, "-" for stdin,
// and a directory as every file below it whose name fits `format` (with or
// without .gz; for kAuto, any name FormatOfPath knows), sorted by path.
absl::StatusOr<std::vector<std::string>> ExpandInputs(
    const std::vector<std::string>& args, Format format);

// The entity of a GeoLife .plt file at `path`.
std::string GeoLifeEntityOf(absl::string_view path, GeoLifeEntity mode);

// The reader of one input; `in` must outlive it. `format` must not be kAuto
// (resolve it with FormatOfPath first).
absl::StatusOr<std::unique_ptr<PointReader>> NewReader(
    Format format, InputSource* in, const ReaderOptions& options,
    absl::string_view path);

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_FORMATS_H_
