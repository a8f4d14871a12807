#ifndef TRACKDB_STORAGE_ENGINE_FAULT_FILE_SYSTEM_H_
#define TRACKDB_STORAGE_ENGINE_FAULT_FILE_SYSTEM_H_

// The file system behind storage/engine/disk_faults.h: RocksDB's FileSystemWrapper
// (public API; Debian's librocksdb lacks RocksDB's own FaultInjectionTestFS)
// that fails writes while a fault is on, with the statuses the POSIX file
// system returns for ENOSPC and EIO, so RocksDB's error handling runs as
// it would on a real full or failing disk.

#include <memory>

#include "rocksdb/file_system.h"
#include "storage/engine/disk_faults.h"
#include "storage/engine/options.h"

namespace trackdb::storage {

std::shared_ptr<rocksdb::FileSystem> NewFaultFileSystem(
    std::shared_ptr<rocksdb::FileSystem> target,
    std::shared_ptr<DiskFaults> faults);

// Puts the fault file system under `options`' env (above its write
// counters), before the DB opens.
void UseDiskFaults(std::shared_ptr<DiskFaults> faults, StoreOptions& options);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENGINE_FAULT_FILE_SYSTEM_H_
