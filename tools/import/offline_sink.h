#ifndef TRACKDB_TOOLS_IMPORT_OFFLINE_SINK_H_
#define TRACKDB_TOOLS_IMPORT_OFFLINE_SINK_H_

// Offline import: points go into a data dir that no trackd holds, through
// storage::SstImport (sorted SST files, one atomic ingestion, then a
// compaction of the collection). Nothing is written to the DB until every
// input has been read, so an import that stops at a bad row leaves the data
// dir as it was.
//
// Finish() closes the store and opens it once more, timing the reopen: the
// summary shows that the import left nothing (WAL, L0 files) that makes
// the next start slow.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/import/sst_import.h"
#include "storage/track_store.h"
#include "tools/import/point_sink.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::import {

class OfflineSink : public PointSink {
 public:
  // FAILED_PRECONDITION when a running trackd (or anything) holds the dir.
  static absl::StatusOr<std::unique_ptr<OfflineSink>> Open(
      const std::string& data_dir, const v1::StorageConfig& config,
      const std::string& collection, storage::SstImportOptions options);

  absl::Status Add(const model::TrackPoint& point,
                   const RowOrigin& origin) override;
  absl::Status Finish(Progress* progress) override;
  std::vector<std::string> Summary() const override;

  const storage::SstImportStats& stats() const { return stats_; }
  double reopen_seconds() const { return reopen_seconds_; }

 private:
  OfflineSink() = default;

  std::string data_dir_;
  v1::StorageConfig config_;
  std::unique_ptr<storage::TrackStore> store_;
  std::unique_ptr<storage::SstImport> import_;
  storage::SstImportStats stats_;
  double reopen_seconds_ = 0;
};

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_OFFLINE_SINK_H_
