#include "storage/engine/io_counters.h"

#include <utility>

#include "absl/strings/match.h"

namespace trackdb::storage {
namespace {

class CountingWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  CountingWritableFile(std::unique_ptr<rocksdb::FSWritableFile> target,
                       FileKind kind, IoCounters* counters)
      : FSWritableFileOwnerWrapper(std::move(target)),
        kind_(kind),
        counters_(counters) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data,
                           const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    counters_->AddWrite(kind_, data.size());
    return target()->Append(data, options, dbg);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data,
                           const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    counters_->AddWrite(kind_, data.size());
    return target()->Append(data, options, info, dbg);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data,
                                     uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     rocksdb::IODebugContext* dbg) override {
    counters_->AddWrite(kind_, data.size());
    return target()->PositionedAppend(data, offset, options, dbg);
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data,
                                     uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     const rocksdb::DataVerificationInfo& info,
                                     rocksdb::IODebugContext* dbg) override {
    counters_->AddWrite(kind_, data.size());
    return target()->PositionedAppend(data, offset, options, info, dbg);
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options,
                         rocksdb::IODebugContext* dbg) override {
    counters_->AddSync(kind_);
    return target()->Sync(options, dbg);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    counters_->AddSync(kind_);
    return target()->Fsync(options, dbg);
  }

 private:
  const FileKind kind_;
  IoCounters* const counters_;
};

class CountingFileSystem : public rocksdb::FileSystemWrapper {
 public:
  CountingFileSystem(std::shared_ptr<rocksdb::FileSystem> target,
                     std::shared_ptr<IoCounters> counters)
      : FileSystemWrapper(std::move(target)), counters_(std::move(counters)) {}

  const char* Name() const override { return "TrackdbCountingFileSystem"; }

  rocksdb::IOStatus NewWritableFile(const std::string& f,
                                    const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* dbg) override {
    return Wrap(f, target()->NewWritableFile(f, options, r, dbg), r);
  }
  rocksdb::IOStatus ReopenWritableFile(
      const std::string& f, const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* r,
      rocksdb::IODebugContext* dbg) override {
    return Wrap(f, target()->ReopenWritableFile(f, options, r, dbg), r);
  }
  rocksdb::IOStatus ReuseWritableFile(
      const std::string& f, const std::string& old,
      const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* r,
      rocksdb::IODebugContext* dbg) override {
    return Wrap(f, target()->ReuseWritableFile(f, old, options, r, dbg), r);
  }

 private:
  rocksdb::IOStatus Wrap(const std::string& f, rocksdb::IOStatus s,
                         std::unique_ptr<rocksdb::FSWritableFile>* r) {
    if (s.ok()) {
      *r = std::make_unique<CountingWritableFile>(std::move(*r), FileKindOf(f),
                                                  counters_.get());
    }
    return s;
  }

  std::shared_ptr<IoCounters> counters_;
};

}  // namespace

FileKind FileKindOf(const std::string& path) {
  if (absl::EndsWith(path, ".log")) return FileKind::kWal;
  if (absl::EndsWith(path, ".sst")) return FileKind::kSst;
  return FileKind::kOther;
}

IoTotals IoCounters::Get(FileKind kind) const {
  const Slot& s = slots_[static_cast<int>(kind)];
  IoTotals t;
  t.write_ops = s.ops.load(std::memory_order_relaxed);
  t.write_bytes = s.bytes.load(std::memory_order_relaxed);
  t.syncs = s.syncs.load(std::memory_order_relaxed);
  return t;
}

IoTotals IoCounters::Total() const {
  IoTotals t;
  for (int k = 0; k < kFileKinds; ++k) {
    const IoTotals one = Get(static_cast<FileKind>(k));
    t.write_ops += one.write_ops;
    t.write_bytes += one.write_bytes;
    t.syncs += one.syncs;
  }
  return t;
}

std::shared_ptr<rocksdb::FileSystem> NewCountingFileSystem(
    std::shared_ptr<rocksdb::FileSystem> target,
    std::shared_ptr<IoCounters> counters) {
  return std::make_shared<CountingFileSystem>(std::move(target),
                                              std::move(counters));
}

}  // namespace trackdb::storage
