#ifndef TRACKDB_STORAGE_ENGINE_DISK_FAULTS_H_
#define TRACKDB_STORAGE_ENGINE_DISK_FAULTS_H_

// Disk faults a test turns on and off in an open store, to see what clients
// get when the disk fills up or fails: while a fault is on, every write
// RocksDB makes to its files (creating one, appending, syncing) fails as a
// full disk (ENOSPC) or a failing one (EIO) would fail it, and a full disk
// reports no free space. Given to TrackStore::Open; a store opened without
// one (trackd's) has none. storage/engine/fault_file_system.h applies it.

#include <atomic>

namespace trackdb::storage {

class DiskFaults {
 public:
  enum class Fault { kNone, kNoSpace, kIoError };

  void Set(Fault fault) { fault_.store(fault); }
  Fault Get() const { return fault_.load(); }

 private:
  std::atomic<Fault> fault_{Fault::kNone};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_DISK_FAULTS_H_
