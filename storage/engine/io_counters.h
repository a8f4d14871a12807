#ifndef TRACKDB_STORAGE_ENGINE_IO_COUNTERS_H_
#define TRACKDB_STORAGE_ENGINE_IO_COUNTERS_H_

// What iostat shows of RocksDB's small flushes: write requests and bytes sent
// to disk. CountingFileSystem wraps RocksDB's file system and counts every
// write RocksDB hands the OS (each Append / PositionedAppend of a writable
// file after RocksDB's own buffering, i.e. a write(2)), by file kind, so
// bytes per write is iostat's average request size. Counters only grow.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "rocksdb/file_system.h"

namespace trackdb::storage {

enum class FileKind { kWal = 0, kSst = 1, kOther = 2 };
inline constexpr int kFileKinds = 3;

// The kind of a RocksDB file by its name: *.log is the WAL, *.sst a table,
// anything else (MANIFEST, OPTIONS, LOG, ...) other.
FileKind FileKindOf(const std::string& path);

struct IoTotals {
  uint64_t write_ops = 0;
  uint64_t write_bytes = 0;
  uint64_t syncs = 0;
};

class IoCounters {
 public:
  void AddWrite(FileKind kind, uint64_t bytes) {
    Slot& s = slots_[static_cast<int>(kind)];
    s.ops.fetch_add(1, std::memory_order_relaxed);
    s.bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  void AddSync(FileKind kind) {
    slots_[static_cast<int>(kind)].syncs.fetch_add(1,
                                                   std::memory_order_relaxed);
  }
  IoTotals Get(FileKind kind) const;
  IoTotals Total() const;

 private:
  struct Slot {
    std::atomic<uint64_t> ops{0};
    std::atomic<uint64_t> bytes{0};
    std::atomic<uint64_t> syncs{0};
  };
  std::array<Slot, kFileKinds> slots_;
};

// A file system that forwards everything to `target` and counts writes of
// the files it opens for writing into `counters`.
std::shared_ptr<rocksdb::FileSystem> NewCountingFileSystem(
    std::shared_ptr<rocksdb::FileSystem> target,
    std::shared_ptr<IoCounters> counters);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_IO_COUNTERS_H_
