// A replica's full sync as the difference between its keys and the
// primary's snapshot (storage/replication/replication.h): both come in (column family,
// key) order, so one walk of each finds what to put and what to delete,
// and only that is written, through the same apply as the WAL's batches.
#include <memory>
#include <utility>

#include "rocksdb/write_batch.h"
#include "storage/engine/engine.h"
#include "storage/replication/portable_batch.h"
#include "storage/replication/replica_apply.h"
#include "storage/replication/replication.h"
#include "storage/format/rocks_util.h"

namespace trackdb::storage {
namespace {

// Differences are written in pieces of about this size.
constexpr size_t kPieceBytes = 1 << 20;

class FullSyncImpl : public FullSync {
 public:
  explicit FullSyncImpl(TrackStore& store) : store_(store) {}

  absl::Status Absorb(absl::Span<const SnapshotRecord> records) override {
    for (const SnapshotRecord& r : records) {
      const uint32_t cf = static_cast<uint32_t>(r.cf);
      if (cf >= kColumnFamilyCount || cf < cf_) {
        return absl::InvalidArgumentError(
            "snapshot records out of column family order");
      }
      while (cf_ < cf) {
        if (absl::Status s = DeleteRestOfFamily(); !s.ok()) return s;
      }
      if (absl::Status s = OpenOwn(); !s.ok()) return s;
      // Own keys before the primary's next one: the primary has none.
      while (own_->Valid() && SliceView(own_->key()) < r.key) {
        if (absl::Status s = DeleteOwn(); !s.ok()) return s;
      }
      if (own_->Valid() && SliceView(own_->key()) == r.key) {
        const bool same = SliceView(own_->value()) == r.value;
        own_->Next();
        if (same) continue;
      }
      if (absl::Status s =
              Stage(piece_.Put(PortableFamily(r.cf), r.key, r.value));
          !s.ok()) {
        return s;
      }
    }
    return FlushIfFull(kPieceBytes);
  }

  absl::Status Finish(absl::string_view replid, uint64_t sequence) override {
    while (cf_ < kColumnFamilyCount) {
      if (absl::Status s = DeleteRestOfFamily(); !s.ok()) return s;
    }
    std::vector<std::string> last{piece_.Data()};
    piece_.Clear();
    return ApplyPortable(store_, last,
                         ReplicationMark{std::string(replid), sequence + 1},
                         false);
  }

  uint64_t changed() const override { return changed_; }

 private:
  absl::Status OpenOwn() {
    if (own_) return absl::OkStatus();
    Engine& engine = store_.engine();
    rocksdb::ReadOptions read;
    read.fill_cache = false;
    own_.reset(engine.db->NewIterator(read, engine.handles[cf_]));
    own_->SeekToFirst();
    return SkipOwnReplicationKeys();
  }

  // This node's replication state is not the primary's to replace.
  absl::Status SkipOwnReplicationKeys() {
    while (cf_ == 0 && own_->Valid() &&
           own_->key().starts_with(kReplicationKeyPrefix)) {
      own_->Next();
    }
    return FromRocks(own_->status(), "reading this replica's keys");
  }

  absl::Status DeleteOwn() {
    absl::Status s = Stage(piece_.Delete(
        PortableFamily(static_cast<ColumnFamily>(cf_)), own_->key()));
    own_->Next();
    if (!s.ok()) return s;
    if (absl::Status k = SkipOwnReplicationKeys(); !k.ok()) return k;
    return FlushIfFull(kPieceBytes);
  }

  // The primary has nothing more in this family.
  absl::Status DeleteRestOfFamily() {
    if (absl::Status s = OpenOwn(); !s.ok()) return s;
    while (own_->Valid()) {
      if (absl::Status s = DeleteOwn(); !s.ok()) return s;
    }
    if (absl::Status s =
            FromRocks(own_->status(), "reading this replica's keys");
        !s.ok()) {
      return s;
    }
    own_.reset();
    ++cf_;
    return absl::OkStatus();
  }

  absl::Status Stage(const rocksdb::Status& s) {
    ++changed_;
    return FromRocks(s, "staging a full sync's difference");
  }

  absl::Status FlushIfFull(size_t bytes) {
    if (piece_.GetDataSize() < bytes || piece_.Count() == 0) {
      return absl::OkStatus();
    }
    std::vector<std::string> piece{piece_.Data()};
    piece_.Clear();
    return ApplyPortable(store_, piece, std::nullopt, false);
  }

  TrackStore& store_;
  uint32_t cf_ = 0;
  std::unique_ptr<rocksdb::Iterator> own_;
  rocksdb::WriteBatch piece_;
  uint64_t changed_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<FullSync>> FullSync::Begin(TrackStore& store) {
  // Cleared first: an interrupted full sync must not pass for a partial
  // one after a restart.
  if (absl::Status s = ApplyPortable(store, {}, std::nullopt, true); !s.ok()) {
    return s;
  }
  return std::make_unique<FullSyncImpl>(store);
}

}  // namespace trackdb::storage
