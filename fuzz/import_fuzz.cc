// trackdb_import's row readers (tools/import/formats.h: CSV with a header,
// T-Drive, GeoLife, NDJSON, GeoJSON) on arbitrary input, each point then
// judged as the importer judges it (service/grpc/point_convert.h), plus the
// timestamp and --columns parsers they use.
//
// Input: a byte choosing the format, a byte choosing the time options,
// then the file's bytes (gzip magic included: InputSource sniffs it).
//
// Checked: nothing crashes; reading ends (kEnd or an error status) within
// one step per input byte or so; a bad row says why and cuts its text at
// kMaxRejectTextBytes; line numbers never go back.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "model/limits.h"
#include "service/grpc/point_convert.h"
#include "tools/import/csv_reader.h"
#include "tools/import/formats.h"
#include "tools/import/input_source.h"
#include "tools/import/timestamp.h"

namespace trackdb::fuzz {
namespace {

using import::BadRow;
using import::Format;
using import::PointReader;

constexpr Format kFormats[] = {Format::kCsv, Format::kTDrive, Format::kGeoLife,
                               Format::kNdjson, Format::kGeoJson};

import::ReaderOptions OptionsFrom(uint8_t b){import::ReaderOptions options;
static constexpr import::TimeUnit kUnits[] = {
    import::TimeUnit::kAuto, import::TimeUnit::kSeconds,
    import::TimeUnit::kMilliseconds, import::TimeUnit::kAuto};
options.time.unit = kUnits[b & 3];
options.time.utc_offset_minutes = (b & 4) ? 480 : 0;
if (b & 8) options.delimiter = ';';
if (b & 16) options.skip_lines = 1;
if (b & 32) options.entity = "fixed";
if (b & 64) options.geojson.id_property = "name";
return options;
}  // namespace

void ReadAll(PointReader& reader, size_t input_size) {
  const model::Limits limits;
  model::TrackPoint point;
  BadRow bad;
  int64_t last_line = 0;
  // Every step consumes a row of at least one byte, or ends.
  const size_t max_steps = input_size + 2;
  for (size_t step = 0;; ++step) {
    FUZZ_CHECK(step <= max_steps) << "no end after " << step << " rows";
    auto r = reader.Next(&point, &bad);
    if (!r.ok()) {
      FUZZ_CHECK(!r.status().message().empty()) << "an error without why";
      return;
    }
    if (*r == PointReader::Result::kEnd) return;
    FUZZ_CHECK(reader.row_line() >= last_line) << "line numbers went back";
    last_line = reader.row_line();
    FUZZ_CHECK(reader.row_text().size() <= import::kMaxRejectTextBytes);
    if (*r == PointReader::Result::kBadRow) {
      FUZZ_CHECK(!bad.reason.empty()) << "a bad row without a reason";
      FUZZ_CHECK(bad.text.size() <= import::kMaxRejectTextBytes);
      continue;
    }
    service::ValidateTrackPoint(point, "row", limits, /*now_ms=*/1.8e12)
        .IgnoreError();
  }
}

}  // namespace trackdb::fuzz
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trackdb;
  fuzz::FuzzInput in(data, size);
  const uint8_t which = in.Byte();
  const import::ReaderOptions options = fuzz::OptionsFrom(in.Byte());
  const absl::string_view text = in.Rest();
  if (which & 0x80) {
    // The small parsers on their own: a timestamp and a --columns list.
    import::ParseTimestampMs(text, options.time).IgnoreError();
    import::ParseColumnList(text).IgnoreError();
    import::ParseUtcOffset(text).IgnoreError();
    return 0;
  }
  const import::Format format = fuzz::kFormats[which % 5];
  auto source = import::InputSource::FromString(
      std::string(text), "Data/042/Trajectory/20081023025304.plt");
  auto reader = import::NewReader(format, source.get(), options,
                                  "Data/042/Trajectory/20081023025304.plt");
  if (!reader.ok()) return 0;
  fuzz::ReadAll(**reader, text.size());
  return 0;
}
