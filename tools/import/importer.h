#ifndef TRACKDB_TOOLS_IMPORT_IMPORTER_H_
#define TRACKDB_TOOLS_IMPORT_IMPORTER_H_

// The import loop: every input, row by row, through its format's reader and
// trackd's validation (service/grpc/point_convert.h), into a sink.
//
// Bad rows (unparseable, or refused by the validation trackd applies): by
// default the import stops at the first, with INVALID_ARGUMENT
// "<file>:<line>: <reason>". With skip_bad_rows it counts them and goes on,
// writing the first max_rejects to reject_file as
//   # <file>:<line>: <reason>
//   <the row as read>
// so `grep -v '^#'` gives back the rejected rows.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/import/formats.h"
#include "tools/import/point_sink.h"
#include "tools/import/progress.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::import {

struct ImportOptions {
  std::vector<std::string> inputs;  // files or "-", after ExpandInputs
  Format format = Format::kAuto;    // kAuto: per file, by its name
  ReaderOptions reader;
  v1::LimitsConfig limits;  // with defaults filled in
  int64_t now_ms = 0;       // for limits.max_future_ms
  bool skip_bad_rows = false;
  std::string reject_file;  // "" = none
  int max_rejects = 100;
};

struct ImportSummary {
  uint64_t points = 0;    // valid points handed to the sink
  uint64_t bad_rows = 0;  // skipped
  uint64_t rejects_written = 0;
  uint64_t bytes = 0;  // read from the inputs (compressed bytes for .gz)
  int files = 0;
  double read_seconds = 0;
};

// Reads every input into `sink` (without finishing it). The sink's Add()
// runs on a thread of its own while this one parses (one at a time, in
// input order).  Returns early with the first error of either.
absl::StatusOr<ImportSummary> ReadInputs(const ImportOptions& options,
                                         PointSink* sink, Progress* progress);

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_IMPORTER_H_
