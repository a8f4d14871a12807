#ifndef TRACKDB_TOOLS_IMPORT_CSV_READER_H_
#define TRACKDB_TOOLS_IMPORT_CSV_READER_H_

// Delimited text: CSV with a header line or a column list (--columns), and
// two layouts built in:
//
//   T-Drive   1,2008-02-02 15:36:08,116.51172,39.92123
//             no header; id, datetime, longitude, latitude.
//   GeoLife   .plt files: 6 header lines, then
//             39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04
//             latitude, longitude, 0, altitude in feet (-777: unknown),
//             days since 1899-12-30, date, time. No entity column: the
//             entity comes from the file's path (formats.h).
//
// Column names (header or --columns; case-insensitive):
//   entity_id | entity | id                          the entity
//   loc_time_ms                                      time, Unix ms (or ISO)
//   time | timestamp | datetime | loc_time           time (timestamp.h)
//   date, time_of_day                                a split date and time
//   latitude | lat,  longitude | lon | lng | long
//   speed_kmh | speed,  direction | heading | bearing | course,
//   height_m | height | altitude | alt | elevation,  altitude_ft,
//   accuracy_m | accuracy                            optional; empty = none
//   attr.NAME                                        attribute NAME
//   - | ignore                                       skipped
//
// Fields may be quoted ("a,b", "say ""hi"""), but a quoted field cannot
// span lines. Blank lines are skipped.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/import/input_source.h"
#include "tools/import/point_reader.h"
#include "tools/import/timestamp.h"

namespace trackdb::import {

enum class Column {
  kIgnore,
  kEntity,
  kTime,
  kTimeMs,
  kDate,
  kTimeOfDay,
  kLat,
  kLon,
  kSpeed,
  kDirection,
  kHeight,
  kHeightFeet,
  kAccuracy,
  kAttribute,
};

struct CsvColumn {
  Column role = Column::kIgnore;
  std::string attribute;  // kAttribute's name
};

struct CsvLayout {
  std::vector<CsvColumn> columns;  // empty: read them from a header line
  int skip_lines = 0;              // lines before the header or data
  char delimiter = ',';
  std::string entity;  // every row's entity, when no column names it
};

// INVALID_ARGUMENT naming the unknown column.
absl::StatusOr<CsvColumn> ColumnFromName(absl::string_view name);
// A comma-separated column list, as --columns takes it.
absl::StatusOr<std::vector<CsvColumn>> ParseColumnList(absl::string_view spec);

CsvLayout TDriveLayout();
CsvLayout GeoLifeLayout(std::string entity);

// Splits one line into fields, unquoting quoted ones into *scratch (whose
// capacity it reserves so the views stay valid). INVALID_ARGUMENT on an
// unterminated quote.
absl::Status SplitCsvLine(absl::string_view line, char delimiter,
                          std::vector<absl::string_view>* fields,
                          std::string* scratch);

// Reads points from `in`, which must outlive the reader.
std::unique_ptr<PointReader> NewCsvReader(InputSource* in, CsvLayout layout,
                                          TimeOptions time);

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_CSV_READER_H_
