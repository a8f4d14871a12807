// Open's upgrade of a schema 3 data dir: the history cells
// (storage/points/history_cells.h) built from every fix in `points`.
#include <memory>
#include <optional>
#include <string>

#include "storage/engine/engine.h"
#include "storage/points/history_cells.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/track_store.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

// Batches of this many cell keys: a big history is upgraded in bounded
// memory, and a crash midway leaves keys that the next Open writes again.
constexpr size_t kCellsPerBatch = 4096;

// The entity's part of a points key (varint32 length and name, which
// identifies the entity within its collection), or nullopt for a history
// cell key or a malformed key.
std::optional<absl::string_view> EntityOfPointKey(absl::string_view key) {
  uint32_t length = 0;
  if (!ReadVarint32(&key, &length) || key.size() < length) return std::nullopt;
  key.remove_prefix(length);  // the collection
  if (key.size() < 2 || key.substr(0, 2) == kHistoryCellsTag) {
    return std::nullopt;
  }
  if (key.size() < 9) return std::nullopt;
  return key.substr(0, key.size() - 8);
}

}  // namespace

absl::Status TrackStore::BuildHistoryCells() {
  rocksdb::ReadOptions read;
  read.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(
      engine_->db->NewIterator(read, engine_->points()));
  auto batch = std::make_unique<WriteBatchBuilder>(*engine_);
  std::string owner;  // collection prefix and entity part of the last fix
  std::optional<HistoryCell> last;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const absl::string_view key = SliceView(it->key());
    const std::optional<absl::string_view> entity = EntityOfPointKey(key);
    if (!entity) continue;
    const absl::string_view fix_owner(key.data(), entity->end() - key.data());
    if (fix_owner != owner) {
      owner.assign(fix_owner.data(), fix_owner.size());
      last.reset();
    }
    const std::optional<PointPosition> at =
        DecodePosition(SliceView(it->value()));
    if (!at) return absl::DataLossError("corrupt point value");
    const HistoryCell cell = HistoryCellOf(at->loc_time_ms, at->lat, at->lon);
    if (last == cell) continue;
    last = cell;
    // The collection prefix ends where the entity part begins.
    absl::string_view name = *entity;
    uint32_t length = 0;
    ReadVarint32(&name, &length);
    std::string cell_key(key.data(), entity->data() - key.data());
    cell_key += HistoryCellKeySuffix(cell.bucket, cell.cell, name);
    if (absl::Status s = batch->Put(ColumnFamily::kPoints, cell_key, "");
        !s.ok()) {
      return s;
    }
    if (batch->count() >= kCellsPerBatch) {
      if (absl::Status s = batch->Commit("building history cells"); !s.ok()) {
        return s;
      }
      batch = std::make_unique<WriteBatchBuilder>(*engine_);
    }
  }
  if (!it->status().ok()) return FromRocks(it->status(), "scanning points");
  if (absl::Status s =
          batch->Put(ColumnFamily::kDefault, kSchemaVersionKey, kSchemaVersion);
      !s.ok()) {
    return s;
  }
  return batch->Commit("building history cells");
}

}  // namespace trackdb::storage
