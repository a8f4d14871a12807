// trackdb_import: bulk import of track points from files into trackdb.
//
//   trackdb_import --collection=taxis --data_dir=data --format=tdrive
//       --utc_offset=+08:00 tdrive/taxi_log_2008_by_id
//   zcat points.ndjson.gz | trackdb_import --collection=fleet
//       --target=127.0.0.1:50051 --format=ndjson -
//
// Offline (--data_dir): into a data dir no trackd holds, through sorted SST
// files and one atomic ingestion, then a compaction (tools/import/
// offline_sink.h). Online (--target): AddPoints calls to a running trackd
// (tools/import/online_sink.h). Formats: tools/import/csv_reader.h and
// json_readers.h. Exit status 0 when everything was imported (or skipped
// with --skip_bad_rows), 1 on an error, 2 on bad flags.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "conf/config.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "service/grpc/client_channel.h"
#include "service/grpc/point_convert.h"
#include "tools/import/formats.h"
#include "tools/import/importer.h"
#include "tools/import/offline_sink.h"
#include "tools/import/online_sink.h"
#include "tools/import/progress.h"

ABSL_FLAG(std::string, collection, "", "Collection to import into (required).");
ABSL_FLAG(std::string, data_dir, "",
          "Offline import into this data dir (no trackd may hold it).");
ABSL_FLAG(std::string, target, "",
          "Online import: a running trackd's gRPC address, host:port.");
ABSL_FLAG(std::string, config, "",
          "trackd config (textproto): storage options for an offline import "
          "and the limits rows are validated against. Default: the "
          "workspace's conf/trackdb.textproto if present, else the built-in "
          "defaults (which that file spells out).");
ABSL_FLAG(std::string, format, "auto",
          "auto (by file name: .csv .plt .ndjson/.jsonl .geojson, optionally "
          ".gz), csv, tdrive, geolife, ndjson or geojson.");
ABSL_FLAG(std::string, columns, "",
          "csv: the column names when the file has no header line, e.g. "
          "'id,time,lon,lat' or 'entity_id,-,latitude,longitude,attr.color'.");
ABSL_FLAG(int, skip_lines, 0, "csv: lines to skip before the header/data.");
ABSL_FLAG(std::string, delimiter, ",", "csv: the field delimiter ('\\t' ok).");
ABSL_FLAG(std::string, entity, "",
          "csv, geolife: the entity of every row (instead of a column or the "
          "GeoLife path).");
ABSL_FLAG(std::string, geolife_entity, "user",
          "geolife: 'user' (Data/<user>/Trajectory/x.plt -> <user>) or "
          "'file' (<user>/x: one entity per trajectory file).");
ABSL_FLAG(std::string, id_property, "",
          "geojson: the property holding the entity (default: entity_id, "
          "then id, then the feature's id).");
ABSL_FLAG(std::string, time_property, "",
          "geojson: the property holding the time (default: loc_time_ms, "
          "then time, then timestamp).");
ABSL_FLAG(std::string, utc_offset, "Z",
          "The zone of ISO times written without one: Z (UTC, the default), "
          "+08:00 (e.g. T-Drive's Beijing time), -0500, ...");
ABSL_FLAG(std::string, time_unit, "auto",
          "Unix times: s, ms, or auto (>= 1e11 means ms).");
ABSL_FLAG(bool, skip_bad_rows, false,
          "Skip and count bad rows instead of stopping at the first.");
ABSL_FLAG(std::string, reject_file, "trackdb_import.rejects",
          "With --skip_bad_rows: where the first --max_rejects bad rows go, "
          "each after a '# file:line: reason' line ('' = nowhere).");
ABSL_FLAG(int, max_rejects, 100, "Bad rows written to --reject_file.");
ABSL_FLAG(int, batch_points, 1000,
          "online: points per AddPoints call (at most the config's "
          "limits.max_batch_points).");
ABSL_FLAG(int, in_flight, 4, "online: AddPoints calls outstanding at once.");
ABSL_FLAG(int, sort_memory_mb, 256,
          "offline: sort buffer; beyond it sorted runs spill to temp files.");
ABSL_FLAG(std::string, temp_dir, "",
          "offline: where spill and SST files go (default: inside --data_dir, "
          "so ingestion moves instead of copying).");
ABSL_FLAG(std::string, progress, "auto",
          "auto (a bar on a terminal, plain lines otherwise), bar, plain or "
          "none.");
ABSL_FLAG(int, progress_interval_s, 10,
          "Seconds between plain progress lines.");

namespace trackdb::import {
namespace {

int Usage(const std::string& message) {
  std::fprintf(stderr, "trackdb_import: %s (--help lists the flags)\n",
               message.c_str());
  return 2;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "trackdb_import: error: %s\n",
               std::string(status.message()).c_str());
  return 1;
}

absl::StatusOr<v1::TrackdbConfig> LoadConfig() {
  std::string path = absl::GetFlag(FLAGS_config);
  if (path.empty()) {
    const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    const std::string shipped =
        absl::StrCat(ws != nullptr ? ws : ".", "/conf/trackdb.textproto");
    std::error_code error;
    if (std::filesystem::exists(shipped, error)) path = shipped;
  }
  v1::TrackdbConfig config;
  if (!path.empty()) {
    auto loaded = conf::LoadConfigFile(path);
    if (!loaded.ok()) return loaded.status();
    config = *loaded;
  }
  config = conf::WithDefaults(config);
  if (absl::Status s = conf::ValidateConfig(config); !s.ok()) return s;
  return config;
}

absl::StatusOr<ReaderOptions> BuildReaderOptions() {
  ReaderOptions r;
  auto offset = ParseUtcOffset(absl::GetFlag(FLAGS_utc_offset));
  if (!offset.ok()) return offset.status();
  r.time.utc_offset_minutes = *offset;
  auto unit = ParseTimeUnit(absl::GetFlag(FLAGS_time_unit));
  if (!unit.ok()) return unit.status();
  r.time.unit = *unit;
  if (!absl::GetFlag(FLAGS_columns).empty()) {
    auto columns = ParseColumnList(absl::GetFlag(FLAGS_columns));
    if (!columns.ok()) return columns.status();
    r.columns = *std::move(columns);
  }
  r.skip_lines = absl::GetFlag(FLAGS_skip_lines);
  std::string delimiter = absl::GetFlag(FLAGS_delimiter);
  if (delimiter == "\\t" || delimiter == "tab") delimiter = "\t";
  if (delimiter.size() != 1 || delimiter[0] == '"') {
    return absl::InvalidArgumentError(
        "--delimiter must be one character other than '\"'");
  }
  r.delimiter = delimiter[0];
  r.entity = absl::GetFlag(FLAGS_entity);
  const std::string geolife = absl::GetFlag(FLAGS_geolife_entity);
  if (geolife == "user") {
    r.geolife_entity = GeoLifeEntity::kUser;
  } else if (geolife == "file") {
    r.geolife_entity = GeoLifeEntity::kFile;
  } else {
    return absl::InvalidArgumentError("--geolife_entity must be user or file");
  }
  r.geojson.id_property = absl::GetFlag(FLAGS_id_property);
  r.geojson.time_property = absl::GetFlag(FLAGS_time_property);
  return r;
}

Progress::Style ProgressStyle() {
  const std::string p = absl::GetFlag(FLAGS_progress);
  if (p == "none") return Progress::Style::kNone;
  if (p == "plain") return Progress::Style::kPlain;
  if (p == "bar") return Progress::Style::kTerminal;
  return isatty(STDERR_FILENO) ? Progress::Style::kTerminal
                               : Progress::Style::kPlain;
}

// The flags that need neither the config nor the inputs: an error here is
// a usage error. Inputs, limits and the time come later.
absl::StatusOr<ImportOptions> ParseImportFlags(
    const std::vector<std::string>& args) {
  if (absl::Status s =
          service::ValidateCollectionField(absl::GetFlag(FLAGS_collection));
      !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--", s.message()));
  }
  if (absl::GetFlag(FLAGS_data_dir).empty() ==
      absl::GetFlag(FLAGS_target).empty()) {
    return absl::InvalidArgumentError(
        "give exactly one of --data_dir (offline) and --target (online)");
  }
  if (args.empty()) {
    return absl::InvalidArgumentError(
        "no inputs (files, directories, or - for stdin)");
  }
  ImportOptions options;
  auto format = ParseFormat(absl::GetFlag(FLAGS_format));
  if (!format.ok()) return format.status();
  options.format = *format;
  auto reader_options = BuildReaderOptions();
  if (!reader_options.ok()) return reader_options.status();
  options.reader = *std::move(reader_options);
  const std::string progress = absl::GetFlag(FLAGS_progress);
  if (progress != "auto" && progress != "none" && progress != "plain" &&
      progress != "bar") {
    return absl::InvalidArgumentError(
        "--progress must be auto, bar, plain or none");
  }
  options.skip_bad_rows = absl::GetFlag(FLAGS_skip_bad_rows);
  options.reject_file = absl::GetFlag(FLAGS_reject_file);
  options.max_rejects = absl::GetFlag(FLAGS_max_rejects);
  return options;
}

absl::StatusOr<std::unique_ptr<PointSink>> OpenOfflineSink(
    const std::string& data_dir, const v1::StorageConfig& storage,
    const std::string& collection) {
  storage::SstImportOptions sst;
  sst.temp_dir = absl::GetFlag(FLAGS_temp_dir);
  sst.sort_memory_bytes =
      static_cast<size_t>(std::max(1, absl::GetFlag(FLAGS_sort_memory_mb)))
      << 20;
  auto offline = OfflineSink::Open(data_dir, storage, collection, sst);
  if (!offline.ok()) return offline.status();
  return std::unique_ptr<PointSink>(*std::move(offline));
}

// The online flags; an error is a usage error. A batch may not exceed
// what the server accepts in one call, which the config's limits say.
absl::StatusOr<OnlineOptions> OnlineFlags(const std::string& collection,
                                          const v1::LimitsConfig& limits) {
  OnlineOptions online;
  online.collection = collection;
  online.batch_points = absl::GetFlag(FLAGS_batch_points);
  if (online.batch_points < 1 ||
      online.batch_points > static_cast<int>(limits.max_batch_points())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--batch_points must be in [1, ", limits.max_batch_points(), "]"));
  }
  online.in_flight = absl::GetFlag(FLAGS_in_flight);
  if (online.in_flight < 1) {
    return absl::InvalidArgumentError("--in_flight must be >= 1");
  }
  return online;
}

void PrintSummary(const ImportSummary& read, double seconds,
                  const std::string& collection, const ImportOptions& options,
                  const PointSink& sink) {
  std::fprintf(stderr,
               "trackdb_import: imported %llu points from %d file(s) (%.1f MiB "
               "read) into collection '%s' in %.2f s: %.0f points/s\n",
               static_cast<unsigned long long>(read.points), read.files,
               read.bytes / double{1 << 20}, collection.c_str(), seconds,
               seconds > 0 ? read.points / seconds : 0.0);
  if (read.bad_rows > 0) {
    std::fprintf(stderr,
                 "trackdb_import: skipped %llu bad rows; the first %llu are "
                 "in %s\n",
                 static_cast<unsigned long long>(read.bad_rows),
                 static_cast<unsigned long long>(read.rejects_written),
                 options.reject_file.empty() ? "(no reject file)"
                                             : options.reject_file.c_str());
  }
  for (const std::string& line : sink.Summary()) {
    std::fprintf(stderr, "trackdb_import: %s\n", line.c_str());
  }
}

// Reads every input into the sink, finishes it, and reports.
int Import(const ImportOptions& options, const std::string& collection,
           PointSink& sink) {
  const absl::Time start = absl::Now();
  Progress progress(ProgressStyle(), stderr,
                    absl::Seconds(absl::GetFlag(FLAGS_progress_interval_s)));
  auto read = ReadInputs(options, &sink, &progress);
  if (!read.ok()) {
    progress.Finish();
    return Fail(read.status());
  }
  absl::Status finished = sink.Finish(&progress);
  progress.Finish();
  if (!finished.ok()) return Fail(finished);
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  PrintSummary(*read, seconds, collection, options, sink);
  return 0;
}

int Run(const std::vector<std::string>& args) {
  // Under `bazel run`, paths are the user's: resolve them where the command
  // was typed.
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY")) {
    if (chdir(wd) != 0) return Fail(absl::InternalError("cannot chdir"));
  }
  auto options = ParseImportFlags(args);
  if (!options.ok()) return Usage(std::string(options.status().message()));
  auto config = LoadConfig();
  if (!config.ok()) return Fail(config.status());
  auto inputs = ExpandInputs(args, options->format);
  if (!inputs.ok()) return Fail(inputs.status());
  options->inputs = *std::move(inputs);
  options->limits = config->limits();
  options->now_ms = absl::ToUnixMillis(absl::Now());

  const std::string collection = absl::GetFlag(FLAGS_collection);
  const std::string data_dir = absl::GetFlag(FLAGS_data_dir);
  std::unique_ptr<PointSink> sink;
  if (!data_dir.empty()) {
    auto offline = OpenOfflineSink(data_dir, config->storage(), collection);
    if (!offline.ok()) return Fail(offline.status());
    sink = *std::move(offline);
  } else {
    auto online = OnlineFlags(collection, config->limits());
    if (!online.ok()) return Usage(std::string(online.status().message()));
    auto channel = service::NewClientChannel(
        absl::GetFlag(FLAGS_target), service::ClientSecurityFromFlags());
    if (!channel.ok()) return Fail(channel.status());
    sink = std::make_unique<OnlineSink>(*channel, *online);
  }
  return Import(*options, collection, *sink);
}

}  // namespace
}  // namespace trackdb::import

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Bulk import of track points into trackdb.\n\n"
      "  trackdb_import --collection=C (--data_dir=DIR | --target=HOST:PORT) "
      "[flags] INPUT...\n\n"
      "INPUT: a file (plain or gzip), a directory (searched for the format's "
      "files), or - for stdin.");
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  std::vector<std::string> args(positional.begin() + 1, positional.end());
  return trackdb::import::Run(args);
}
