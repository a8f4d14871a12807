// The primary's side of replication (storage/replication.h): its id, its
// WAL read as portable batches, and snapshots read a piece at a time.
#include "storage/replication.h"

#include <random>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "rocksdb/transaction_log.h"
#include "rocksdb/write_batch.h"
#include "storage/engine.h"
#include "storage/keys.h"
#include "storage/portable_batch.h"
#include "storage/rocks_util.h"

namespace trackdb::storage {
namespace {

constexpr char kReplidKey[] = "trackdb.repl.id";

bool IsReplicationKey(uint32_t cf, const rocksdb::Slice& key) {
  return cf == static_cast<uint32_t>(ColumnFamily::kDefault) &&
         key.starts_with(kReplicationKeyPrefix);
}

// Rewrites one WAL batch with column families named by ColumnFamily and
// without this node's own replication keys.
class PortableEncoder : public rocksdb::WriteBatch::Handler {
 public:
  explicit PortableEncoder(const Engine& engine) {
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
      if (IsReplicationKey(cf, key)) return rocksdb::Status::OK();
      return record(PortableFamily(static_cast<ColumnFamily>(cf)));
    }
    return rocksdb::Status::Corruption(
        absl::StrCat("WAL record of unknown column family ", id));
  }

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

absl::StatusOr<std::vector<ShippedBatch>> ReadUpdatesSince(TrackStore& store,
                                                           uint64_t next,
                                                           size_t max_bytes) {
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
  for (; it->Valid() && bytes < max_bytes; it->Next()) {
    rocksdb::BatchResult result = it->GetBatch();
    // A batch that does not start where the last ended: the WAL between
    // was purged or an ingestion took sequences around it.
    if (result.sequence != expected) {
      if (out.empty()) return absl::OutOfRangeError(gap);
      break;
    }
    PortableEncoder encoder(engine);
    s = result.writeBatchPtr->Iterate(&encoder);
    if (!s.ok()) return FromRocks(s, "reading a WAL batch");
    ShippedBatch batch;
    batch.sequence = result.sequence;
    batch.count = result.writeBatchPtr->Count();
    batch.data = encoder.batch().Data();
    expected = batch.sequence + batch.count;
    bytes += batch.data.size();
    out.push_back(std::move(batch));
  }
  if (out.empty() && !it->status().ok()) {
    return absl::OutOfRangeError(
        absl::StrCat(gap, ": ", it->status().ToString()));
  }
  return out;
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
  explicit SnapshotReaderImpl(Engine& engine)
      : engine_(engine), snapshot_(engine.db->GetSnapshot()) {}
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
      if (!IsReplicationKey(cf_, it_->key())) {
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

absl::StatusOr<std::string> StoreDigest(TrackStore& store) {
  absl::StatusOr<std::unique_ptr<SnapshotReader>> reader =
      SnapshotReader::Open(store);
  if (!reader.ok()) return reader.status();
  uint64_t a = 14695981039346656037ULL, b = 1099511628211ULL * 31;
  while (true) {
    absl::StatusOr<std::vector<SnapshotRecord>> records =
        (*reader)->Next(1 << 20);
    if (!records.ok()) return records.status();
    if (records->empty()) break;
    for (const SnapshotRecord& r : *records) {
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
    TrackStore& store) {
  return std::make_unique<SnapshotReaderImpl>(store.engine());
}

}  // namespace trackdb::storage
