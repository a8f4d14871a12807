#ifndef TRACKDB_STORAGE_IMPORT_SST_SINK_H_
#define TRACKDB_STORAGE_IMPORT_SST_SINK_H_

// One column family's sorted records into SST files cut at about a size,
// for the import's one ingestion (storage/import/sst_import.h).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"

namespace trackdb::storage {

class SstSink {
 public:
  // Files go in `dir`, named after the column family; `file_bytes` 0 is
  // the column family's target_file_size_base.
  SstSink(const Engine& engine, ColumnFamily cf, std::string dir,
          uint64_t file_bytes);

  // Keys must increase.
  absl::Status Put(const rocksdb::Slice& key, const rocksdb::Slice& value);
  absl::Status Delete(const rocksdb::Slice& key);
  // Ends the current file; the next Put starts another.
  absl::Status Cut();
  // Cuts when the current file has reached `factor` times its size.
  absl::Status MaybeCut(uint64_t factor = 1);

  const std::vector<std::string>& files() const { return files_; }
  uint64_t bytes() const { return bytes_; }
  rocksdb::ColumnFamilyHandle* handle() const { return handle_; }

 private:
  absl::Status EnsureOpen();
  absl::Status Check(const rocksdb::Status& s, absl::string_view what);

  rocksdb::Options options_;
  rocksdb::ColumnFamilyHandle* handle_;
  std::string name_;
  uint64_t file_bytes_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  std::vector<std::string> files_;
  uint64_t bytes_ = 0;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_IMPORT_SST_SINK_H_
