#include "storage/import/sst_sink.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "storage/format/rocks_util.h"

namespace trackdb::storage {
namespace {

const rocksdb::ColumnFamilyDescriptor& CfOptions(const Engine& engine,
                                                 ColumnFamily cf) {
  return engine.options.column_families[static_cast<size_t>(cf)];
}

}  // namespace

SstSink::SstSink(const Engine& engine, ColumnFamily cf, std::string dir,
                 uint64_t file_bytes)
    : options_(engine.options.db, CfOptions(engine, cf).options),
      handle_(engine.cf(cf)),
      name_(std::move(dir) + "/" + CfOptions(engine, cf).name),
      file_bytes_(file_bytes != 0 ? file_bytes
                                  : options_.target_file_size_base) {}

absl::Status SstSink::Put(const rocksdb::Slice& key,
                          const rocksdb::Slice& value) {
  if (absl::Status s = EnsureOpen(); !s.ok()) return s;
  return Check(writer_->Put(key, value), "adding to");
}

absl::Status SstSink::Delete(const rocksdb::Slice& key) {
  if (absl::Status s = EnsureOpen(); !s.ok()) return s;
  return Check(writer_->Delete(key), "adding to");
}

absl::Status SstSink::Cut() {
  if (!writer_) return absl::OkStatus();
  rocksdb::ExternalSstFileInfo info;
  absl::Status s = Check(writer_->Finish(&info), "finishing");
  writer_.reset();
  bytes_ += info.file_size;
  return s;
}

absl::Status SstSink::MaybeCut(uint64_t factor) {
  if (writer_ && writer_->FileSize() >= factor * file_bytes_) return Cut();
  return absl::OkStatus();
}

absl::Status SstSink::EnsureOpen() {
  if (writer_) return absl::OkStatus();
  // No page-cache eviction: the files are ingested and read back at once.
  writer_ = std::make_unique<rocksdb::SstFileWriter>(
      rocksdb::EnvOptions(), options_, handle_,
      /*invalidate_page_cache=*/false);
  files_.push_back(absl::StrCat(name_, "-", files_.size(), ".sst"));
  return Check(writer_->Open(files_.back()), "creating");
}

absl::Status SstSink::Check(const rocksdb::Status& s, absl::string_view what) {
  return FromRocks(s, absl::StrCat(what, " SST file ", files_.back()));
}

}  // namespace trackdb::storage
