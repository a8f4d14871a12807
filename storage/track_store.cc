#include "storage/track_store.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "storage/engine/engine.h"
#include "storage/engine/fault_file_system.h"
#include "storage/engine/store_events.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/strings/string_cache.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {

namespace {

// Opens RocksDB in `data_dir` with every column family of the engine's
// options. A data dir of schema 1 or 2 also holds the retired geo column
// family (storage/format/keys.h), which RocksDB opens only when it is named: it
// is opened too, and its handle left in *retired_geo for Open to drop.
absl::Status OpenDb(Engine& engine, const std::string& data_dir,
                    std::unique_ptr<rocksdb::ColumnFamilyHandle>* retired_geo) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families =
      engine.options.column_families;
  std::vector<std::string> existing;
  // Fails on a new data dir, which has no retired family.
  if (rocksdb::DB::ListColumnFamilies(engine.options.db, data_dir, &existing)
          .ok() &&
      std::find(existing.begin(), existing.end(), kRetiredGeoCf) !=
          existing.end()) {
    families.emplace_back(kRetiredGeoCf, rocksdb::ColumnFamilyOptions());
  }
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(engine.options.db, data_dir, families,
                                        &engine.handles, &db);
  if (!s.ok()) {
    if (s.IsIOError() && s.ToString().find("lock") != std::string::npos) {
      return absl::FailedPreconditionError(absl::StrCat(
          "data dir ", data_dir,
          " is in use by another process (another trackd?): ", s.ToString()));
    }
    return FromRocks(s, absl::StrCat("opening RocksDB in ", data_dir));
  }
  engine.db.reset(db);
  if (families.size() > engine.options.column_families.size()) {
    retired_geo->reset(engine.handles.back());
    engine.handles.pop_back();
  }
  return absl::OkStatus();
}

// RocksDB creates the data dir but not its parents.
absl::Status CreateDataDir(const std::string& data_dir) {
  std::error_code error;
  std::filesystem::create_directories(data_dir, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create data dir ", data_dir, ": ", error.message()));
  }
  return absl::OkStatus();
}

// The data dir's schema version; nullopt for a new dir, whose version is
// written first (it has nothing to upgrade).
absl::StatusOr<std::optional<std::string>> ReadSchemaVersion(rocksdb::DB* db) {
  std::string version;
  rocksdb::Status s =
      db->Get(rocksdb::ReadOptions(), kSchemaVersionKey, &version);
  if (s.IsNotFound()) {
    s = db->Put(rocksdb::WriteOptions(), kSchemaVersionKey, kSchemaVersion);
    if (!s.ok()) return FromRocks(s, "writing schema version");
    return std::nullopt;
  }
  if (!s.ok()) return FromRocks(s, "reading schema version");
  return version;
}

// Drops the retired geo family OpenDb opened, if it did. Only once the
// schema says 3 or later, so that a trackd that reads the geo family
// refuses the dir.
absl::Status DropRetiredGeo(
    rocksdb::DB* db, const std::unique_ptr<rocksdb::ColumnFamilyHandle>& geo) {
  if (geo == nullptr) return absl::OkStatus();
  rocksdb::Status s = db->DropColumnFamily(geo.get());
  if (!s.ok()) return FromRocks(s, "dropping the retired geo column family");
  return absl::OkStatus();
}

// The latest index, fences and retention rules, as stored.
absl::Status LoadIndexesAndRules(Engine& engine) {
  if (absl::Status l = LoadLatestIndex(engine, std::nullopt); !l.ok()) {
    return l;
  }
  if (absl::Status f = LoadFences(engine); !f.ok()) return f;
  return LoadRetention(engine);
}

}  // namespace

absl::StatusOr<std::unique_ptr<TrackStore>> TrackStore::Open(
    const std::string& data_dir, const v1::StorageConfig& config,
    std::shared_ptr<DiskFaults> faults) {
  auto options = BuildStoreOptions(config);
  if (!options.ok()) return options.status();
  if (faults) UseDiskFaults(std::move(faults), *options);
  if (absl::Status c = CreateDataDir(data_dir); !c.ok()) return c;
  std::unique_ptr<TrackStore> store(new TrackStore());
  store->engine_->options = *std::move(options);
  store->engine_->latest_index_charge = std::make_unique<CacheReservation>(
      store->engine_->options.block_cache, "latest_index");
  store->string_cache_ = std::make_unique<StringCache>(
      store->engine_->options.block_cache,
      store->engine_->options.config.string_cache_max_value_bytes());
  store->engine_->typed_cache = std::make_unique<TypedCache>(
      store->engine_->options.block_cache,
      store->engine_->options.config.string_cache_max_value_bytes());

  std::unique_ptr<rocksdb::ColumnFamilyHandle> retired_geo;
  if (absl::Status o = OpenDb(*store->engine_, data_dir, &retired_geo);
      !o.ok()) {
    return o;
  }
  rocksdb::DB* db = store->engine_->db.get();
  absl::StatusOr<std::optional<std::string>> version = ReadSchemaVersion(db);
  if (!version.ok()) return version.status();
  if (*version) {
    if (absl::Status u = store->Upgrade(data_dir, **std::move(version));
        !u.ok()) {
      return u;
    }
  }
  if (absl::Status g = DropRetiredGeo(db, retired_geo); !g.ok()) return g;
  if (absl::Status r = LoadIndexesAndRules(*store->engine_); !r.ok()) return r;
  if (absl::Status t = store->LoadTypedVersionFloor(); !t.ok()) return t;
  if (absl::Status e = LoadCollectionExpiries(*store->engine_); !e.ok()) {
    return e;
  }
  store->engine_->options.typed_gc->Attach(db, store->engine_->types());
  if (store->engine_->options.config.bulk_load()) {
    auto bulk = store->SetBulkLoad(true);
    if (!bulk.ok()) return bulk.status();
  }
  return store;
}

// Each step leaves a version an older trackd recognises, so a crash
// between steps resumes at the next Open.
absl::Status TrackStore::Upgrade(const std::string& data_dir,
                                 std::string version) {
  rocksdb::DB* db = engine_->db.get();
  if (version == kSchemaVersionWithoutRegistry) {
    if (absl::Status b = BuildRegistry(); !b.ok()) return b;
    version = kSchemaVersionWithoutHistoryCells;
  } else if (version == kSchemaVersionWithGeo) {
    rocksdb::Status s = db->Put(rocksdb::WriteOptions(), kSchemaVersionKey,
                                kSchemaVersionWithoutHistoryCells);
    if (!s.ok()) return FromRocks(s, "writing schema version");
    version = kSchemaVersionWithoutHistoryCells;
  }
  if (version == kSchemaVersionWithoutHistoryCells) return BuildHistoryCells();
  // Version 4's histories are valid as they are (all in `points`); the
  // chunks column family exists now (Open creates missing ones), and the
  // version says so, so that a trackd without it refuses the dir.
  if (version == kSchemaVersionWithoutChunks) {
    rocksdb::Status s =
        db->Put(rocksdb::WriteOptions(), kSchemaVersionKey, kSchemaVersion);
    if (!s.ok()) return FromRocks(s, "writing schema version");
    return absl::OkStatus();
  }
  if (version == kSchemaVersion) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("data dir ", data_dir, " has schema version ", version,
                   "; this trackd reads version ", kSchemaVersion));
}

TrackStore::TrackStore()
    : engine_(std::make_unique<Engine>()),
      fences_(std::make_unique<FenceStore>(engine_.get(), &collection_locks_)),
      retention_(std::make_unique<RetentionStore>(engine_.get(),
                                                  &collection_locks_, &locks_)),
      chunker_(std::make_unique<HistoryChunker>(engine_.get(),
                                                &collection_locks_, &locks_)) {}

TrackStore::~TrackStore() { Close().IgnoreError(); }

const StoreOptions& TrackStore::options() const { return engine_->options; }

Activity TrackStore::activity() const { return engine_->activity.Read(); }

int64_t TrackStore::EntityCount() const {
  return engine_->latest_index.EntityCount();
}

LatestFeed& TrackStore::latest_feed() { return engine_->latest_index.feed(); }

namespace {
bool DiskFailing(const Engine& engine) {
  return engine.options.events && engine.options.events->disk_error().failing;
}
}  // namespace

absl::Status TrackStore::Flush() {
  if (!engine_->db) return absl::FailedPreconditionError("the store is closed");
  // Not after a disk error RocksDB has not recovered from: it refuses to
  // flush, and syncing a WAL whose write failed trips an assertion in
  // Debian's librocksdb.
  if (DiskFailing(*engine_)) {
    return absl::UnavailableError(
        "not flushing: the disk failed and the store has not recovered");
  }
  rocksdb::FlushOptions flush;
  flush.wait = true;
  flush.allow_write_stall = true;
  absl::Status result =
      FromRocks(engine_->db->Flush(flush, engine_->handles), "flushing memtables");
  if (!engine_->options.write.disableWAL) {
    result.Update(FromRocks(engine_->db->SyncWAL(), "syncing the WAL"));
  }
  return result;
}

absl::Status TrackStore::Close() {
  if (!engine_->db) return absl::OkStatus();
  absl::Status result;
  // Flush every memtable: without a WAL they are the only copy, and with
  // one, a reopen would otherwise replay up to db_write_buffer_size of log
  // (seconds for the default 512 MiB) before serving. Not after a disk
  // error (Flush says why): what the WAL holds from before the error is
  // replayed on reopening.
  if (!DiskFailing(*engine_)) result.Update(Flush());
  // The types filter reads through a handle about to be destroyed.
  if (engine_->options.typed_gc) engine_->options.typed_gc->Detach();
  for (rocksdb::ColumnFamilyHandle* h : engine_->handles) {
    result.Update(FromRocks(engine_->db->DestroyColumnFamilyHandle(h),
                            "closing a column family"));
  }
  engine_->handles.clear();
  result.Update(FromRocks(engine_->db->Close(), "closing RocksDB"));
  engine_->db.reset();
  return result;
}

}  // namespace trackdb::storage
