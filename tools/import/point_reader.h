#ifndef TRACKDB_TOOLS_IMPORT_POINT_READER_H_
#define TRACKDB_TOOLS_IMPORT_POINT_READER_H_

// What every input format of trackdb_import turns its rows into.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "model/track_point.h"

namespace trackdb::import {

// A row that is not a point: where, why, and the text (for the reject
// file, cut at kMaxRejectTextBytes).
struct BadRow {
  int64_t line = 0;
  std::string reason;
  std::string text;
};

inline constexpr size_t kMaxRejectTextBytes = 4096;

class PointReader {
 public:
  enum class Result { kPoint, kBadRow, kEnd };

  virtual ~PointReader() = default;

  // The next point; or a bad row, after which the next call goes on with
  // the following row; or the end. A non-OK status is input that cannot be
  // read any further (I/O error, corrupt gzip, a CSV header or JSON
  // structure that makes no sense): the import stops whatever its bad-row
  // policy.
  virtual absl::StatusOr<Result> Next(model::TrackPoint* point,
                                      BadRow* bad) = 0;

  // The line and text of the row Next() last returned (for a point that
  // later fails validation), the text cut at kMaxRejectTextBytes.
  virtual int64_t row_line() const = 0;
  virtual std::string row_text() const = 0;
};

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_POINT_READER_H_
