// The primary's side of replication (storage/replication/replication.h): its id, its
// WAL read as portable batches, and snapshots read a piece at a time.
#include "storage/replication/replication.h"

#include <random>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "rocksdb/transaction_log.h"
#include "rocksdb/write_batch.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/replication/portable_batch.h"
#include "storage/format/rocks_util.h"
#include "storage/format/typed_codec.h"

namespace trackdb::storage {
namespace {

constexpr char kReplidKey[] = "trackdb.repl.id";

bool IsReplicationKey(uint32_t cf, const rocksdb::Slice& key) {
  return cf == static_cast<uint32_t>(ColumnFamily::kDefault) &&
         key.starts_with(kReplicationKeyPrefix);
}

// Whether a record with `key` in family `cf` travels: never this node's
// replication state; with a filter, only keys of the names it keeps.
bool Travels(uint32_t cf, const rocksdb::Slice& key, const NameFilter& keep) {
  if (IsReplicationKey(cf, key)) return false;
  if (!keep) return true;
  const std::optional<absl::string_view> name =
      NameOfKey(static_cast<ColumnFamily>(cf), SliceView(key));
  return name && keep(*name);
}

// Rewrites one WAL batch with column families named by ColumnFamily and
// without this node's own replication keys.
class PortableEncoder : public rocksdb::WriteBatch::Handler {
 public:
  PortableEncoder(const Engine& engine, const NameFilter* keep) : keep_(keep) {
    for (size_t i = 0; i < engine.handles.size(); ++i) {
      ids_.push_back(engine.handles[i]->GetID());
    }
  }

  rocksdb::Status PutCF(uint32_t id, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    return Add(id, key, [&](rocksdb::ColumnFamilyHandle* cf) {
      return out_.Put(cf, key, value);
    });
  }
  rocksdb::Status DeleteCF(uint32_t id, const rocksdb::Slice& key) override {
    return Add(id, key, [&](rocksdb::ColumnFamilyHandle* cf) {
      return out_.Delete(cf, key);
    });
  }
  rocksdb::Status SingleDeleteCF(uint32_t id,
                                 const rocksdb::Slice& key) override {
    return DeleteCF(id, key);
  }
  rocksdb::Status DeleteRangeCF(uint32_t id, const rocksdb::Slice& begin,
                                const rocksdb::Slice& end) override {
    return Add(id, begin, [&](rocksdb::ColumnFamilyHandle* cf) {
      return out_.DeleteRange(cf, begin, end);
    });
  }
  rocksdb::Status MergeCF(uint32_t id, const rocksdb::Slice& key,
                          const rocksdb::Slice& value) override {
    return Add(id, key, [&](rocksdb::ColumnFamilyHandle* cf) {
      return out_.Merge(cf, key, value);
    });
  }

  rocksdb::WriteBatch& batch() { return out_; }

 private:
  template <typename Record>
  rocksdb::Status Add(uint32_t id, const rocksdb::Slice& key,
                      const Record& record) {
    for (uint32_t cf = 0; cf < ids_.size(); ++cf) {
      if (ids_[cf] != id) continue;
      if (!Travels(cf, key, *keep_)) return rocksdb::Status::OK();
      return record(PortableFamily(static_cast<ColumnFamily>(cf)));
    }
    return rocksdb::Status::Corruption(
        absl::StrCat("WAL record of unknown column family ", id));
  }

  const NameFilter* keep_;
  std::vector<uint32_t> ids_;
  rocksdb::WriteBatch out_;
};

}  // namespace

uint64_t LatestSequence(TrackStore& store) {
  return store.engine().db->GetLatestSequenceNumber();
}

absl::StatusOr<std::string> NewPrimaryReplid(TrackStore& store) {
  std::random_device random;
  std::string bytes(20, '\0');
  for (char& c : bytes) c = static_cast<char>(random());
  const std::string replid = absl::BytesToHexString(bytes);
  Engine& engine = store.engine();
  rocksdb::WriteOptions write = engine.options.write;
  write.sync = !write.disableWAL;
  rocksdb::Status s =
      engine.db->Put(write, engine.metadata(), kReplidKey, replid);
  if (!s.ok()) return FromRocks(s, "writing the replication id");
  return replid;
}

absl::StatusOr<std::string> PrimaryReplid(TrackStore& store) {
  static absl::Mutex mu(absl::kConstInit);
  absl::MutexLock lock(&mu);
  Engine& engine = store.engine();
  std::string replid;
  rocksdb::Status s = engine.db->Get(rocksdb::ReadOptions(), engine.metadata(),
                                     kReplidKey, &replid);
  if (s.ok()) return replid;
  if (!s.IsNotFound()) return FromRocks(s, "reading the replication id");
  return NewPrimaryReplid(store);
}

absl::StatusOr<std::vector<ShippedBatch>> ReadUpdatesSince(
    TrackStore& store, uint64_t next, size_t max_bytes,
    const NameFilter& keep) {
  Engine& engine = store.engine();
  const uint64_t last = engine.db->GetLatestSequenceNumber();
  std::vector<ShippedBatch> out;
  if (next == last + 1) return out;
  const std::string gap = absl::StrCat("the WAL no longer holds sequence ",
                                       next, " (last: ", last, ")");
  if (next == 0 || next > last + 1) return absl::OutOfRangeError(gap);
  std::unique_ptr<rocksdb::TransactionLogIterator> it;
  rocksdb::Status s = engine.db->GetUpdatesSince(next, &it);
  if (s.IsNotFound()) return absl::OutOfRangeError(gap);
  if (!s.ok()) return FromRocks(s, "reading the WAL");
  size_t bytes = 0;
  uint64_t expected = next;
  while (it->Valid()) {
    rocksdb::BatchResult result = it->GetBatch();
    // A batch that does not start where the last ended: the WAL between
    // was purged or an ingestion took sequences around it.
    if (result.sequence != expected) {
      if (out.empty()) return absl::OutOfRangeError(gap);
      break;
    }
    PortableEncoder encoder(engine, &keep);
    s = result.writeBatchPtr->Iterate(&encoder);
    if (!s.ok()) return FromRocks(s, "reading a WAL batch");
    ShippedBatch batch;
    batch.sequence = result.sequence;
    batch.count = result.writeBatchPtr->Count();
    batch.data = encoder.batch().Data();
    batch.kept = encoder.batch().Count();
    expected = batch.sequence + batch.count;
    bytes += batch.data.size();
    out.push_back(std::move(batch));
    // The WAL may already hold a write group whose sequences are not
    // published yet (its memtable inserts are running). Reading it is
    // reading what readers cannot see yet, and Debian's RocksDB asserts
    // against it: the iterator moves on only to a published batch (a
    // group's sequences are published together, so its first is enough).
    if (bytes >= max_bytes || expected > engine.db->GetLatestSequenceNumber()) {
      break;
    }
    it->Next();
  }
  if (out.empty() && !it->status().ok()) {
    return absl::OutOfRangeError(
        absl::StrCat(gap, ": ", it->status().ToString()));
  }
  return out;
}

std::string EncodeRecords(absl::Span<const SnapshotRecord> records) {
  rocksdb::WriteBatch batch;
  for (const SnapshotRecord& r : records) {
    batch.Put(PortableFamily(r.cf), r.key, r.value).PermitUncheckedError();
  }
  return batch.Data();
}

bool WaitForSequence(TrackStore& store, uint64_t next, absl::Time deadline) {
  Engine& engine = store.engine();
  while (true) {
    const uint64_t seen = engine.commits.generation();
    if (engine.db->GetLatestSequenceNumber() >= next) return true;
    if (!engine.commits.WaitPast(seen, deadline)) {
      return engine.db->GetLatestSequenceNumber() >= next;
    }
  }
}

namespace {

class SnapshotReaderImpl : public SnapshotReader {
 public:
  SnapshotReaderImpl(Engine& engine, NameFilter keep)
      : engine_(engine),
        keep_(std::move(keep)),
        snapshot_(engine.db->GetSnapshot()) {}
  ~SnapshotReaderImpl() override {
    it_.reset();
    engine_.db->ReleaseSnapshot(snapshot_);
  }

  uint64_t sequence() const override { return snapshot_->GetSequenceNumber(); }

  absl::StatusOr<std::vector<SnapshotRecord>> Next(size_t max_bytes) override {
    std::vector<SnapshotRecord> out;
    size_t bytes = 0;
    while (cf_ < kColumnFamilyCount && bytes < max_bytes) {
      if (!it_) {
        rocksdb::ReadOptions read;
        read.snapshot = snapshot_;
        read.fill_cache = false;
        it_.reset(engine_.db->NewIterator(read, engine_.handles[cf_]));
        it_->SeekToFirst();
      }
      if (!it_->Valid()) {
        if (!it_->status().ok()) {
          return FromRocks(it_->status(), "reading a snapshot");
        }
        it_.reset();
        ++cf_;
        continue;
      }
      if (Travels(cf_, it_->key(), keep_)) {
        SnapshotRecord r;
        r.cf = static_cast<ColumnFamily>(cf_);
        r.key.assign(it_->key().data(), it_->key().size());
        r.value.assign(it_->value().data(), it_->value().size());
        bytes += r.key.size() + r.value.size();
        out.push_back(std::move(r));
      }
      it_->Next();
    }
    return out;
  }

 private:
  Engine& engine_;
  const NameFilter keep_;
  const rocksdb::Snapshot* snapshot_;
  uint32_t cf_ = 0;
  std::unique_ptr<rocksdb::Iterator> it_;
};

// FNV-1a, 64 bits, from `seed`.
uint64_t Fnv(uint64_t h, absl::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

namespace {

// Whether a record of a snapshot, read in key order, holds something reads
// see. Keys of the `types` family that no read sees (an expired value's,
// and the members an O(1) delete or replacement left under an older
// version) are garbage that compaction drops on each node at its own
// pace: two equal stores may hold different amounts of it.
class VisibleTypedKeys {
 public:
  explicit VisibleTypedKeys(int64_t now_ms) : now_ms_(now_ms) {}

  bool Visible(const SnapshotRecord& r) {
    if (r.cf != ColumnFamily::kTypes) return true;
    const std::optional<TypedKeyParts> parts = ParseTypedKey(r.key);
    if (!parts) return true;
    if (parts->is_meta) {
      const std::optional<TypedMeta> meta = DecodeTypedMeta(r.value);
      live_name_.assign(parts->name.data(), parts->name.size());
      live_ = meta && !meta->expired_at(now_ms_);
      live_version_ = meta ? meta->version : 0;
      return live_ || !meta;
    }
    // A name's meta key sorts right before its members.
    return live_ && parts->name == live_name_ &&
           parts->version == live_version_;
  }

 private:
  const int64_t now_ms_;
  std::string live_name_;
  bool live_ = false;
  uint64_t live_version_ = 0;
};

}  // namespace

absl::StatusOr<std::string> StoreDigest(TrackStore& store) {
  absl::StatusOr<std::unique_ptr<SnapshotReader>> reader =
      SnapshotReader::Open(store);
  if (!reader.ok()) return reader.status();
  VisibleTypedKeys visible(absl::ToUnixMillis(absl::Now()));
  uint64_t a = 14695981039346656037ULL, b = 1099511628211ULL * 31;
  while (true) {
    absl::StatusOr<std::vector<SnapshotRecord>> records =
        (*reader)->Next(1 << 20);
    if (!records.ok()) return records.status();
    if (records->empty()) break;
    for (const SnapshotRecord& r : *records) {
      if (!visible.Visible(r)) continue;
      const std::string head = absl::StrCat(
          static_cast<int>(r.cf), ":", r.key.size(), ":", r.value.size(), ":");
      for (uint64_t* h : {&a, &b}) {
        *h = Fnv(Fnv(Fnv(*h, head), r.key), r.value);
      }
    }
  }
  return absl::StrCat(absl::Hex(a, absl::kZeroPad16),
                      absl::Hex(b, absl::kZeroPad16));
}

absl::StatusOr<std::unique_ptr<SnapshotReader>> SnapshotReader::Open(
    TrackStore& store, NameFilter keep) {
  return std::make_unique<SnapshotReaderImpl>(store.engine(), std::move(keep));
}

}  // namespace trackdb::storage
