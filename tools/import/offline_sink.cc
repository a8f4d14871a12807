#include "tools/import/offline_sink.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace trackdb::import {

absl::StatusOr<std::unique_ptr<OfflineSink>> OfflineSink::Open(
    const std::string& data_dir, const v1::StorageConfig& config,
    const std::string& collection, storage::SstImportOptions options) {
  std::unique_ptr<OfflineSink> sink(new OfflineSink());
  sink->data_dir_ = data_dir;
  sink->config_ = config;
  auto store = storage::TrackStore::Open(data_dir, config);
  if (!store.ok()) return store.status();
  sink->store_ = *std::move(store);
  auto import =
      storage::SstImport::Start(sink->store_.get(), collection, options);
  if (!import.ok()) return import.status();
  sink->import_ = *std::move(import);
  return sink;
}

absl::Status OfflineSink::Add(const model::TrackPoint& point,
                              const RowOrigin& origin) {
  absl::Status s = import_->Add(point);
  if (s.ok()) return s;
  return absl::Status(s.code(),
                      absl::StrCat(Describe(origin), ": ", s.message()));
}

absl::Status OfflineSink::Finish(Progress* progress) {
  auto stats = import_->Finish(
      [progress](absl::string_view phase, uint64_t done, uint64_t total) {
        if (progress != nullptr) progress->Phase(phase, done, total);
      });
  import_.reset();  // removes its temp dir
  if (!stats.ok()) return stats.status();
  stats_ = *stats;
  if (progress != nullptr) progress->Phase("closing and reopening", 0, 0);
  if (absl::Status s = store_->Close(); !s.ok()) return s;
  store_.reset();
  const absl::Time start = absl::Now();
  auto reopened = storage::TrackStore::Open(data_dir_, config_);
  reopen_seconds_ = absl::ToDoubleSeconds(absl::Now() - start);
  if (!reopened.ok()) return reopened.status();
  return (*reopened)->Close();
}

std::vector<std::string> OfflineSink::Summary() const {
  const storage::SstImportStats& s = stats_;
  return {
      absl::StrFormat("offline: %d distinct points of %d entities into %s",
                      s.points_written, s.entities, data_dir_),
      absl::StrFormat(
          "latest: %d entities set, %d kept (the DB held a newer point)",
          s.latest_updated, s.latest_kept),
      absl::StrFormat("sort and SST files: %.2f s (%d spilled runs, %d files, "
                      "%.1f MiB); ingest: %.2f s; compaction: %.2f s; "
                      "chunking: %.2f s",
                      s.sort_seconds, s.spilled_runs, s.sst_files,
                      s.sst_bytes / double{1 << 20}, s.ingest_seconds,
                      s.compact_seconds, s.chunk_seconds),
      absl::StrFormat("reopen after the import: %.3f s", reopen_seconds_),
  };
}

}  // namespace trackdb::import
