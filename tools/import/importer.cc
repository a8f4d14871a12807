#include "tools/import/importer.h"

#include <cstdio>
#include <deque>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "model/limits.h"
#include "service/grpc/point_convert.h"
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

// Hands batches of valid points to the sink on a thread of its own, so
// that parsing and the sink's work (encoding and sorting, or building
// requests) run on two cores. At most kQueued batches wait; batches and
// their points are reused, so their strings keep their capacity.
class SinkFeeder {
 public:
  static constexpr size_t kBatch = 4096;
  static constexpr size_t kQueued = 4;

  explicit SinkFeeder(PointSink* sink) : sink_(sink) {
    current_ = NewBatch();
    thread_ = std::thread([this] { Consume(); });
  }
  // Without Close(): the import failed; what still waits is dropped.
  ~SinkFeeder() {
    if (!thread_.joinable()) return;
    {
      absl::MutexLock lock(&mu_);
      closed_ = true;
      queue_.clear();
    }
    thread_.join();
  }

  // The slot the next point is read into; Commit() it if it is valid.
  model::TrackPoint* slot() { return &current_->points[current_->size]; }

  // Queues the point in slot(); the sink's error once it has failed.
  absl::Status Commit(const RowOrigin& origin) {
    current_->origins[current_->size++] = origin;
    if (current_->size < kBatch) return absl::OkStatus();
    return Push();
  }

  // Queues what is left, waits for the sink to take everything, and
  // returns the sink's first error.
  absl::Status Close() {
    if (!thread_.joinable()) return Error();
    absl::Status s = current_->size > 0 ? Push() : absl::OkStatus();
    {
      absl::MutexLock lock(&mu_);
      closed_ = true;
    }
    thread_.join();
    return s.ok() ? Error() : s;
  }

 private:
  struct Batch {
    std::vector<model::TrackPoint> points{kBatch};
    std::vector<RowOrigin> origins{kBatch};
    size_t size = 0;
  };

  std::unique_ptr<Batch> NewBatch() {
    absl::MutexLock lock(&mu_);
    if (free_.empty()) return std::make_unique<Batch>();
    std::unique_ptr<Batch> b = std::move(free_.back());
    free_.pop_back();
    b->size = 0;
    return b;
  }

  absl::Status Error() {
    absl::MutexLock lock(&mu_);
    return error_;
  }

  absl::Status Push() {
    {
      absl::MutexLock lock(&mu_);
      auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !error_.ok() || queue_.size() < kQueued;
      };
      mu_.Await(absl::Condition(&room));
      if (!error_.ok()) return error_;
      queue_.push_back(std::move(current_));
    }
    current_ = NewBatch();
    return absl::OkStatus();
  }

  void Consume() {
    while (true) {
      std::unique_ptr<Batch> batch;
      {
        absl::MutexLock lock(&mu_);
        auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return closed_ || !queue_.empty();
        };
        mu_.Await(absl::Condition(&ready));
        if (queue_.empty()) return;
        batch = std::move(queue_.front());
        queue_.pop_front();
      }
      absl::Status s;
      for (size_t i = 0; i < batch->size && s.ok(); ++i) {
        s = sink_->Add(batch->points[i], batch->origins[i]);
      }
      absl::MutexLock lock(&mu_);
      if (!s.ok() && error_.ok()) error_ = s;
      free_.push_back(std::move(batch));
    }
  }

  PointSink* sink_;
  std::unique_ptr<Batch> current_;  // the producer's
  std::thread thread_;
  absl::Mutex mu_;
  std::deque<std::unique_ptr<Batch>> queue_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Batch>> free_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
};

// Every input, opened before any work so that a missing file fails first,
// and their total size (for the ETA) when all are regular files.
struct OpenedInputs {
  std::vector<std::unique_ptr<InputSource>> sources;
  std::optional<uint64_t> total = 0;
};

absl::StatusOr<OpenedInputs> OpenInputs(const std::vector<std::string>& paths) {
  OpenedInputs out;
  for (const std::string& path : paths) {
    auto in = InputSource::Open(path);
    if (!in.ok()) return in.status();
    if ((*in)->size() && out.total) {
      *out.total += *(*in)->size();
    } else {
      out.total.reset();
    }
    out.sources.push_back(*std::move(in));
  }
  return out;
}

// The reader of the input's format, guessed from its name unless given.
absl::StatusOr<std::unique_ptr<PointReader>> OpenReader(
    const ImportOptions& options, const std::string& name, InputSource* in) {
  Format format = options.format;
  if (format == Format::kAuto) {
    auto by_name = FormatOfPath(name);
    if (!by_name.ok()) return by_name.status();
    format = *by_name;
  }
  return NewReader(format, in, options.reader, name);
}

// A point the server would refuse is a bad row like one that does not
// parse, so that --skip_bad_rows covers both.
PointReader::Result ValidatePoint(const model::TrackPoint& point,
                                  const model::Limits& limits, int64_t now_ms,
                                  const PointReader& reader, BadRow* bad) {
  absl::Status valid =
      service::ValidateTrackPoint(point, "point", limits, now_ms);
  if (valid.ok()) return PointReader::Result::kPoint;
  bad->line = reader.row_line();
  bad->reason = std::string(valid.message());
  bad->text = reader.row_text();
  return PointReader::Result::kBadRow;
}

// Fails the import on a bad row unless told to skip such rows; a skipped
// one is counted and written to the reject file.
absl::Status SkipBadRow(const ImportOptions& options, const InputSource& in,
                        const BadRow& bad, RejectFile& rejects,
                        ImportSummary& summary) {
  const std::string where = absl::StrCat(in.name(), ":", bad.line);
  if (!options.skip_bad_rows) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", bad.reason,
                     " (--skip_bad_rows skips and counts such rows)"));
  }
  ++summary.bad_rows;
  return rejects.Write(where, bad);
}

}  // namespace

absl::StatusOr<ImportSummary> ReadInputs(const ImportOptions& options,
                                         PointSink* sink, Progress* progress) {
  ImportSummary summary;
  const absl::Time start = absl::Now();
  absl::StatusOr<OpenedInputs> inputs = OpenInputs(options.inputs);
  if (!inputs.ok()) return inputs.status();
  std::vector<std::unique_ptr<InputSource>>& sources = inputs->sources;
  const std::optional<uint64_t> total = inputs->total;

  RejectFile rejects(options);
  SinkFeeder feeder(sink);
  const model::Limits limits = model::LimitsFrom(options.limits);
  BadRow bad;
  uint64_t bytes_before = 0;
  for (size_t f = 0; f < sources.size(); ++f) {
    InputSource* in = sources[f].get();
    const std::string& name = options.inputs[f];
    auto reader = OpenReader(options, name, in);
    if (!reader.ok()) return reader.status();
    ++summary.files;
    uint64_t count = 0;
    while (true) {
      model::TrackPoint* point = feeder.slot();
      auto result = (*reader)->Next(point, &bad);
      if (!result.ok()) return result.status();
      if (*result == PointReader::Result::kEnd) break;
      if (*result == PointReader::Result::kPoint) {
        *result = ValidatePoint(*point, limits, options.now_ms, **reader, &bad);
      }
      if (*result == PointReader::Result::kPoint) {
        absl::Status s = feeder.Commit(RowOrigin{&name, (*reader)->row_line()});
        if (!s.ok()) return s;
        ++summary.points;
      } else {
        absl::Status s = SkipBadRow(options, *in, bad, rejects, summary);
        if (!s.ok()) return s;
      }
      if (++count % 4096 == 0 && progress != nullptr) {
        progress->Reading(summary.points, summary.bad_rows,
                          bytes_before + in->bytes_read(), total);
      }
    }
    bytes_before += in->bytes_read();
    sources[f].reset();  // closes the file
  }
  if (absl::Status s = feeder.Close(); !s.ok()) return s;
  summary.bytes = bytes_before;
  summary.rejects_written = rejects.written();
  summary.read_seconds = absl::ToDoubleSeconds(absl::Now() - start);
  if (progress != nullptr) {
    progress->Reading(summary.points, summary.bad_rows, summary.bytes, total);
  }
  return summary;
}

}  // namespace trackdb::import
