#include "tools/import/importer.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "service/point_convert.h"
#include "tools/import/input_source.h"

namespace trackdb::import {
namespace {

// Writes the first rejects; closes the file when done.
class RejectFile {
 public:
  explicit RejectFile(const ImportOptions& options)
      : path_(options.reject_file), max_(options.max_rejects) {}
  ~RejectFile() {
    if (file_ != nullptr) std::fclose(file_);
  }

  absl::Status Write(const std::string& where, const BadRow& bad) {
    if (path_.empty() || written_ >= static_cast<uint64_t>(max_)) {
      return absl::OkStatus();
    }
    if (file_ == nullptr) {
      file_ = std::fopen(path_.c_str(), "w");
      if (file_ == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat("cannot create reject file ", path_));
      }
    }
    std::fprintf(file_, "# %s: %s\n%s\n", where.c_str(), bad.reason.c_str(),
                 bad.text.c_str());
    ++written_;
    return absl::OkStatus();
  }
  uint64_t written() const { return written_; }

 private:
  std::string path_;
  int max_;
  std::FILE* file_ = nullptr;
  uint64_t written_ = 0;
};

}  // namespace

absl::StatusOr<ImportSummary> ReadInputs(const ImportOptions& options,
                                         PointSink* sink, Progress* progress) {
  ImportSummary summary;
  const absl::Time start = absl::Now();
  // Open every input first: a missing file fails before any work, and the
  // total size (for the ETA) is known when all are regular files.
  std::vector<std::unique_ptr<InputSource>> sources;
  std::optional<uint64_t> total = 0;
  for (const std::string& path : options.inputs) {
    auto in = InputSource::Open(path);
    if (!in.ok()) return in.status();
    if ((*in)->size() && total) {
      *total += *(*in)->size();
    } else {
      total.reset();
    }
    sources.push_back(*std::move(in));
  }

  RejectFile rejects(options);
  storage::TrackPoint point;
  BadRow bad;
  uint64_t bytes_before = 0;
  for (size_t f = 0; f < sources.size(); ++f) {
    InputSource* in = sources[f].get();
    const std::string& name = options.inputs[f];
    Format format = options.format;
    if (format == Format::kAuto) {
      auto by_name = FormatOfPath(name);
      if (!by_name.ok()) return by_name.status();
      format = *by_name;
    }
    auto reader = NewReader(format, in, options.reader, name);
    if (!reader.ok()) return reader.status();
    ++summary.files;
    uint64_t count = 0;
    while (true) {
      auto result = (*reader)->Next(&point, &bad);
      if (!result.ok()) return result.status();
      if (*result == PointReader::Result::kEnd) break;
      if (*result == PointReader::Result::kPoint) {
        absl::Status valid = service::ValidateTrackPoint(
            point, "point", options.limits, options.now_ms);
        if (valid.ok()) {
          if (absl::Status s =
                  sink->Add(point, RowOrigin{&name, (*reader)->row_line()});
              !s.ok()) {
            return s;
          }
          ++summary.points;
        } else {
          bad.line = (*reader)->row_line();
          bad.reason = std::string(valid.message());
          bad.text = (*reader)->row_text();
          *result = PointReader::Result::kBadRow;
        }
      }
      if (*result == PointReader::Result::kBadRow) {
        const std::string where = absl::StrCat(in->name(), ":", bad.line);
        if (!options.skip_bad_rows) {
          return absl::InvalidArgumentError(
              absl::StrCat(where, ": ", bad.reason,
                           " (--skip_bad_rows skips and counts such rows)"));
        }
        ++summary.bad_rows;
        if (absl::Status s = rejects.Write(where, bad); !s.ok()) return s;
      }
      if (++count % 4096 == 0 && progress != nullptr) {
        progress->Reading(summary.points, summary.bad_rows,
                          bytes_before + in->bytes_read(), total);
      }
    }
    bytes_before += in->bytes_read();
    sources[f].reset();  // closes the file
  }
  summary.bytes = bytes_before;
  summary.rejects_written = rejects.written();
  summary.read_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  if (progress != nullptr) {
    progress->Reading(summary.points, summary.bad_rows, summary.bytes, total);
  }
  return summary;
}

}  // namespace trackdb::import
