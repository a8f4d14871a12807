#ifndef TRACKDB_STORAGE_IMPORT_EXTERNAL_SORT_H_
#define TRACKDB_STORAGE_IMPORT_EXTERNAL_SORT_H_

// Sorting (key, value) records by key with bounded memory, for the offline
// import (storage/import/sst_import.h), which turns the sorted stream into SST
// files. Touches no RocksDB: it lives in storage/ because SstImport sorts
// with it, and storage/ depends on nothing above it.
//
// Records are kept in memory until they take `memory_bytes`; then that run
// is sorted and spilled to a file in `temp_dir`. Finish() sorts the last run
// in memory and merges it with the spilled ones. Keys compare bytewise
// (RocksDB's default comparator). Of records with equal keys, the one added
// LAST is kept and the others are dropped, so the stream has strictly
// increasing keys, as SstFileWriter requires.
//
// Memory: about `memory_bytes` while adding (record bytes plus 28 bytes of
// overhead per record); while merging, the last run plus one read buffer per
// spilled run. Spill files are removed by Finish's stream or the destructor.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trackdb::storage {

struct ExternalSortOptions {
  std::string temp_dir;  // must exist; spill files are created in it
  size_t memory_bytes = size_t{256} << 20;
  std::string name = "sort";  // spill file names: <name>-<run>.run
};

// A sorted, duplicate-free stream of records.
class SortedStream {
 public:
  virtual ~SortedStream() = default;
  // Advances to the next record; false at the end or on error (see status).
  virtual bool Next() = 0;
  // The current record, valid until the next Next().
  virtual absl::string_view key() const = 0;
  virtual absl::string_view value() const = 0;
  virtual absl::Status status() const = 0;
};

class ExternalSorter {
 public:
  explicit ExternalSorter(ExternalSortOptions options);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  // Keys and values up to 4 GiB - 1 bytes each; the run buffer is at most
  // 4 GiB.
  absl::Status Add(absl::string_view key, absl::string_view value);

  // Ends adding. The stream owns the runs; the sorter must outlive it and
  // must not be added to afterwards.
  absl::StatusOr<std::unique_ptr<SortedStream>> Finish();

  uint64_t records_added() const { return records_added_; }
  int spilled_runs() const { return static_cast<int>(run_files_.size()); }
  uint64_t spilled_bytes() const { return spilled_bytes_; }

  // The index of one buffered record; public for the stream implementation.
  struct Entry {
    // The key's first 16 bytes, big-endian, zero-padded: most comparisons
    // end here without touching the buffer.
    uint64_t head[2];
    uint32_t offset;  // of the record in the buffer: it orders equal keys
    uint32_t key_size;
  };

 private:
  // Sorts entries_ by key and drops all but the last of equal keys.
  void SortBuffer();
  absl::Status SortAndSpill();

  ExternalSortOptions options_;
  // Records back to back: uint32 value size (native order), key, value,
  // in one mapping the size of the budget: pages are committed as records
  // fill them, nothing is copied as it grows, and transparent huge pages are
  // requested because reading the sorted run is random access.
  struct Buffer {
    char* data = nullptr;
    size_t size = 0;
    size_t capacity = 0;
  };
  absl::Status Reserve(size_t bytes);
  Buffer buffer_;
  std::vector<Entry> entries_;
  std::vector<std::string> run_files_;
  uint64_t records_added_ = 0;
  uint64_t spilled_bytes_ = 0;
  bool finished_ = false;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_IMPORT_EXTERNAL_SORT_H_
