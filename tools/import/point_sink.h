#ifndef TRACKDB_TOOLS_IMPORT_POINT_SINK_H_
#define TRACKDB_TOOLS_IMPORT_POINT_SINK_H_

// Where trackdb_import puts valid points: a running trackd (online_sink.h)
// or a data dir (offline_sink.h).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "model/track_point.h"
#include "tools/import/progress.h"

namespace trackdb::import {

// Where a point came from, for messages: "<file>:<line>".
struct RowOrigin {
  // Outlives the sink's Finish(): ImportOptions::inputs holds it.
  const std::string* file = nullptr;
  int64_t line = 0;
};

std::string Describe(const RowOrigin& origin);

class PointSink {
 public:
  virtual ~PointSink() = default;
  // Takes one valid point. An error ends the import.
  virtual absl::Status Add(const model::TrackPoint& point,
                           const RowOrigin& origin) = 0;
  // Stores everything added, reporting later phases to `progress`.
  virtual absl::Status Finish(Progress* progress) = 0;
  // What was stored, for the final summary (lines without newlines).
  virtual std::vector<std::string> Summary() const = 0;
};

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_POINT_SINK_H_
