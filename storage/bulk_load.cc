// TrackStore::SetBulkLoad: bulk-load mode switched on an open DB.

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "rocksdb/db.h"
#include "storage/engine/engine.h"
#include "storage/engine/options.h"
#include "storage/format/rocks_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

int L0Files(rocksdb::DB* db,
            const std::vector<rocksdb::ColumnFamilyHandle*>& cfs) {
  int total = 0;
  for (rocksdb::ColumnFamilyHandle* cf : cfs) {
    std::string value;
    if (db->GetProperty(cf, "rocksdb.num-files-at-level0", &value)) {
      total += std::atoi(value.c_str());
    }
  }
  return total;
}

}  // namespace

absl::StatusOr<TrackStore::BulkLoadChange> TrackStore::SetBulkLoad(bool on) {
  absl::MutexLock lock(&bulk_load_mu_);
  if (!engine_->db) return absl::FailedPreconditionError("the store is closed");
  BulkLoadChange change;
  change.was_on = bulk_load_.load();
  change.on = on;
  if (on) {
    if (absl::Status s = ApplyCfOptions(true); !s.ok()) return s;
    bulk_load_.store(true);
    return change;
  }
  // Off: one full compaction first (still without automatic compactions
  // competing for the L0 files), so that L0 is empty and every key is in the
  // bottom level; then the steady options.
  change.l0_files_before = L0Files(engine_->db.get(), engine_->handles);
  const auto start = std::chrono::steady_clock::now();
  rocksdb::CompactRangeOptions compact;
  compact.exclusive_manual_compaction = false;
  for (size_t i = 0; i < engine_->handles.size(); ++i) {
    rocksdb::Status s = engine_->db->CompactRange(compact, engine_->handles[i],
                                                  nullptr, nullptr);
    if (!s.ok()) {
      return FromRocks(s, absl::StrCat("compacting column family ",
                                       engine_->options.column_families[i].name,
                                       " after bulk load"));
    }
  }
  change.compaction_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (absl::Status s = ApplyCfOptions(false); !s.ok()) return s;
  bulk_load_.store(false);
  change.l0_files_after = L0Files(engine_->db.get(), engine_->handles);
  return change;
}

absl::Status TrackStore::ApplyCfOptions(bool bulk_load) {
  for (size_t i = 0; i < engine_->handles.size(); ++i) {
    const auto settings =
        bulk_load
            ? BulkLoadCfOptions()
            : SteadyCfOptions(engine_->options.column_families[i].options);
    rocksdb::Status s = engine_->db->SetOptions(engine_->handles[i], settings);
    if (!s.ok()) {
      return FromRocks(
          s, absl::StrCat("setting bulk-load ", bulk_load ? "on" : "off",
                          " options on column family ",
                          engine_->options.column_families[i].name));
    }
  }
  return absl::OkStatus();
}

}  // namespace trackdb::storage
