#include "storage/engine/fault_file_system.h"

#include <utility>

#include "rocksdb/env.h"
#include "storage/engine/io_counters.h"

namespace trackdb::storage {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// The status a write gets under `fault`, as PosixFileSystem words it.
IOStatus FaultStatus(const DiskFaults& faults, const char* op) {
  switch (faults.Get()) {
    case DiskFaults::Fault::kNone:
      return IOStatus::OK();
    case DiskFaults::Fault::kNoSpace:
      return IOStatus::NoSpace(op, "No space left on device");
    case DiskFaults::Fault::kIoError:
      return IOStatus::IOError(op, "Input/output error");
  }
  return IOStatus::OK();
}

class FaultWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  FaultWritableFile(std::unique_ptr<rocksdb::FSWritableFile> target,
                    const DiskFaults* faults)
      : FSWritableFileOwnerWrapper(std::move(target)), faults_(faults) {}

  IOStatus Append(const Slice& data, const IOOptions& options,
                  IODebugContext* dbg) override {
    IOStatus s = FaultStatus(*faults_, "append");
    return s.ok() ? target()->Append(data, options, dbg) : s;
  }
  IOStatus Append(const Slice& data, const IOOptions& options,
                  const rocksdb::DataVerificationInfo& info,
                  IODebugContext* dbg) override {
    IOStatus s = FaultStatus(*faults_, "append");
    return s.ok() ? target()->Append(data, options, info, dbg) : s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset,
                            const IOOptions& options,
                            IODebugContext* dbg) override {
    IOStatus s = FaultStatus(*faults_, "append");
    return s.ok() ? target()->PositionedAppend(data, offset, options, dbg) : s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset,
                            const IOOptions& options,
                            const rocksdb::DataVerificationInfo& info,
                            IODebugContext* dbg) override {
    IOStatus s = FaultStatus(*faults_, "append");
    return s.ok() ? target()->PositionedAppend(data, offset, options, info, dbg)
                  : s;
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
    IOStatus s = FaultStatus(*faults_, "sync");
    return s.ok() ? target()->Sync(options, dbg) : s;
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    IOStatus s = FaultStatus(*faults_, "fsync");
    return s.ok() ? target()->Fsync(options, dbg) : s;
  }

 private:
  const DiskFaults* const faults_;
};

class FaultFileSystem : public rocksdb::FileSystemWrapper {
 public:
  FaultFileSystem(std::shared_ptr<rocksdb::FileSystem> target,
                  std::shared_ptr<DiskFaults> faults)
      : FileSystemWrapper(std::move(target)), faults_(std::move(faults)) {}

  const char* Name() const override { return "TrackdbFaultFileSystem"; }

  IOStatus NewWritableFile(const std::string& f,
                           const rocksdb::FileOptions& options,
                           std::unique_ptr<rocksdb::FSWritableFile>* r,
                           IODebugContext* dbg) override {
    IOStatus s = FaultStatus(*faults_, f.c_str());
    if (!s.ok()) return s;
    return Wrap(target()->NewWritableFile(f, options, r, dbg), r);
  }
  IOStatus ReopenWritableFile(const std::string& f,
                              const rocksdb::FileOptions& options,
                              std::unique_ptr<rocksdb::FSWritableFile>* r,
                              IODebugContext* dbg) override {
    IOStatus s = FaultStatus(*faults_, f.c_str());
    if (!s.ok()) return s;
    return Wrap(target()->ReopenWritableFile(f, options, r, dbg), r);
  }
  IOStatus ReuseWritableFile(const std::string& f, const std::string& old,
                             const rocksdb::FileOptions& options,
                             std::unique_ptr<rocksdb::FSWritableFile>* r,
                             IODebugContext* dbg) override {
    IOStatus s = FaultStatus(*faults_, f.c_str());
    if (!s.ok()) return s;
    return Wrap(target()->ReuseWritableFile(f, old, options, r, dbg), r);
  }
  // A full disk has no free space: RocksDB's SstFileManager polls this
  // before it tries to recover from a full disk.
  IOStatus GetFreeSpace(const std::string& path, const IOOptions& options,
                        uint64_t* free, IODebugContext* dbg) override {
    if (faults_->Get() == DiskFaults::Fault::kNoSpace) {
      *free = 0;
      return IOStatus::OK();
    }
    return target()->GetFreeSpace(path, options, free, dbg);
  }

 private:
  IOStatus Wrap(IOStatus s, std::unique_ptr<rocksdb::FSWritableFile>* r) {
    if (s.ok()) {
      *r = std::make_unique<FaultWritableFile>(std::move(*r), faults_.get());
    }
    return s;
  }

  std::shared_ptr<DiskFaults> faults_;
};

}  // namespace

std::shared_ptr<rocksdb::FileSystem> NewFaultFileSystem(
    std::shared_ptr<rocksdb::FileSystem> target,
    std::shared_ptr<DiskFaults> faults) {
  return std::make_shared<FaultFileSystem>(std::move(target),
                                           std::move(faults));
}

void UseDiskFaults(std::shared_ptr<DiskFaults> faults, StoreOptions& options) {
  options.env = rocksdb::NewCompositeEnv(NewFaultFileSystem(
      NewCountingFileSystem(rocksdb::FileSystem::Default(), options.io),
      std::move(faults)));
  options.db.env = options.env.get();
}

}  // namespace trackdb::storage
