#include "storage/track_store.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "storage/keys.h"
#include "storage/rocks_util.h"

namespace trackdb::storage {
namespace {}  // namespace

absl::StatusOr<std::unique_ptr<TrackStore>> TrackStore::Open(
    const std::string& data_dir, const v1::StorageConfig& config) {
  auto options = BuildStoreOptions(config);
  if (!options.ok()) return options.status();
  // RocksDB creates the data dir but not its parents.
  std::error_code error;
  std::filesystem::create_directories(data_dir, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create data dir ", data_dir, ": ", error.message()));
  }
  std::unique_ptr<TrackStore> store(new TrackStore());
  store->options_ = *std::move(options);
  store->string_cache_ = std::make_unique<StringCache>(
      store->options_.block_cache,
      store->options_.config.string_cache_max_value_bytes());

  rocksdb::DB* db = nullptr;
  rocksdb::Status s =
      rocksdb::DB::Open(store->options_.db, data_dir,
                        store->options_.column_families, &store->handles_, &db);
  if (!s.ok()) {
    if (s.IsIOError() && s.ToString().find("lock") != std::string::npos) {
      return absl::FailedPreconditionError(absl::StrCat(
          "data dir ", data_dir,
          " is in use by another process (another trackd?): ", s.ToString()));
    }
    return FromRocks(s, absl::StrCat("opening RocksDB in ", data_dir));
  }
  store->db_.reset(db);

  std::string version;
  s = db->Get(rocksdb::ReadOptions(), kSchemaVersionKey, &version);
  if (s.IsNotFound()) {
    s = db->Put(rocksdb::WriteOptions(), kSchemaVersionKey, kSchemaVersion);
    if (!s.ok()) return FromRocks(s, "writing schema version");
  } else if (!s.ok()) {
    return FromRocks(s, "reading schema version");
  } else if (version == kSchemaVersionWithoutRegistry) {
    if (absl::Status b = store->BuildRegistry(); !b.ok()) return b;
  } else if (version != kSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("data dir ", data_dir, " has schema version ", version,
                     "; this trackd reads version ", kSchemaVersion));
  }
  if (store->options_.config.bulk_load()) {
    auto bulk = store->SetBulkLoad(true);
    if (!bulk.ok()) return bulk.status();
  }
  return store;
}

TrackStore::~TrackStore() { Close().IgnoreError(); }

absl::Status TrackStore::Close() {
  if (!db_) return absl::OkStatus();
  absl::Status result;
  // Flush every memtable: without a WAL they are the only copy, and with
  // one, a reopen would otherwise replay up to db_write_buffer_size of log
  // (seconds for the default 512 MiB) before serving.
  rocksdb::FlushOptions flush;
  flush.wait = true;
  flush.allow_write_stall = true;
  result.Update(FromRocks(db_->Flush(flush, handles_), "flushing memtables"));
  if (!options_.write.disableWAL) {
    result.Update(FromRocks(db_->SyncWAL(), "syncing the WAL"));
  }
  for (rocksdb::ColumnFamilyHandle* h : handles_) {
    result.Update(FromRocks(db_->DestroyColumnFamilyHandle(h),
                            "closing a column family"));
  }
  handles_.clear();
  result.Update(FromRocks(db_->Close(), "closing RocksDB"));
  db_.reset();
  return result;
}

}  // namespace trackdb::storage
