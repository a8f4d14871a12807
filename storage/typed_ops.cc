// Redis hashes, sets, sorted sets and lists: transactions over the `types`
// column family (storage/format/typed_values.h, storage/format/typed_codec.h).
#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/track_store.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

// Versions are handed out in blocks: the floor stored in `default` is
// always above every version used, so a restart (which also starts at
// least at the clock's microseconds) never reuses one.
constexpr uint64_t kVersionBlock = 1ULL << 32;

uint64_t NowMicros() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
}

// Name's meta from its stored bytes; DATA_LOSS when they are not one.
absl::StatusOr<TypedMeta> DecodeMetaOf(absl::string_view name,
                                       absl::string_view encoded) {
  std::optional<TypedMeta> meta = DecodeTypedMeta(encoded);
  if (!meta) {
    return absl::DataLossError(
        absl::StrCat("corrupt typed value metadata for key '", name, "'"));
  }
  return *meta;
}

absl::Status ReadOnlyError() {
  return absl::FailedPreconditionError(kReadOnlyTxnStagedWrite);
}

}  // namespace

class TypedTxnImpl : public TypedTxn {
 public:
  // A `read_only` transaction fails if it stages a change or creates a
  // value (a version is handed out by writing its floor).
  TypedTxnImpl(TrackStore& store, int64_t now_ms,
               absl::Span<const std::string> replaceable, bool read_only)
      : store_(store),
        engine_(*store.engine_),
        cache_(*engine_.typed_cache),
        now_ms_(now_ms),
        replaceable_(replaceable),
        read_only_(read_only) {}

  int64_t now_ms() const override { return now_ms_; }

  // Asked once per name and transaction: a pipelined run of pops of an
  // absent key asks it for every call.
  absl::StatusOr<bool> HoldsStringOrCollection(
      absl::string_view name) override {
    if (auto it = holds_other_.find(name); it != holds_other_.end()) {
      return it->second;
    }
    const std::string names[] = {std::string(name)};
    auto strings = store_.LoadStrings(names);
    if (!strings.ok()) return strings.status();
    bool holds = Unexpired((*strings)[0], now_ms_).has_value();
    if (!holds) {
      absl::StatusOr<int64_t> size = store_.CollectionSize(name);
      if (!size.ok()) return size.status();
      holds = *size > 0;
    }
    holds_other_.emplace(name, holds);
    return holds;
  }

  absl::StatusOr<std::optional<TypedMeta>> Meta(
      absl::string_view name) override {
    if (auto it = metas_.find(name); it != metas_.end()) return it->second;
    if (auto it = read_metas_.find(name); it != read_metas_.end()) {
      return it->second;
    }
    absl::StatusOr<std::optional<std::string>> encoded =
        Read(TypedMetaKey(name));
    if (!encoded.ok()) return encoded.status();
    std::optional<TypedMeta> meta;
    if (*encoded) {
      absl::StatusOr<TypedMeta> decoded = DecodeMetaOf(name, **encoded);
      if (!decoded.ok()) return decoded.status();
      if (!decoded->expired_at(now_ms_)) meta = *decoded;
    }
    read_metas_.emplace(name, meta);
    return meta;
  }

  TypedMeta Create(ValueType type) override {
    TypedMeta meta;
    meta.type = type;
    meta.head = kListMiddle;
    if (read_only_) {
      failed_.Update(ReadOnlyError());
      return meta;
    }
    absl::StatusOr<uint64_t> version = store_.NextTypedVersion();
    if (version.ok()) {
      meta.version = *version;
    } else {
      failed_.Update(version.status());
    }
    return meta;
  }

  absl::StatusOr<std::optional<std::string>> Get(
      absl::string_view name, const TypedMeta& meta,
      absl::string_view subkey) override {
    std::string key = MemberKey(name, meta, subkey);
    if (auto it = members_.find(key); it != members_.end()) {
      return it->second.value;
    }
    // Never cached, so never filled (a write of one drops no entry).
    if (IsWalkedOnly(meta.type, subkey)) return ReadStored(key);
    if (auto it = fills_.find(key); it != fills_.end()) {
      read_keys_.insert(std::move(key));
      return it->second;
    }
    absl::StatusOr<std::optional<std::string>> value = Read(key, &fills_);
    read_keys_.insert(std::move(key));
    return value;
  }

  // One seek and `ahead` steps of the range's iterator, where a MultiGet
  // of the same keys looked each up in every memtable and file: a group of
  // pipelined LPOPs spent 10% less CPU.
  absl::StatusOr<std::optional<std::string>> GetReadingAhead(
      absl::string_view name, const TypedMeta& meta, absl::string_view subkey,
      bool reverse, size_t ahead) override {
    if (meta.type != ValueType::kList) {
      return absl::FailedPreconditionError(
          "GetReadingAhead reads a list's elements only");
    }
    std::string key = MemberKey(name, meta, subkey);
    if (members_.contains(key) || fills_.contains(key)) {
      return Get(name, meta, subkey);
    }
    std::optional<std::string> value;
    if (Cached(key, &value)) {
      read_keys_.insert(std::move(key));
      return value;
    }
    const std::string lower = TypedMembersPrefix(name, meta.version);
    rocksdb::Iterator* const it = IteratorOver(lower, PrefixEnd(lower));
    reverse ? it->SeekForPrev(key) : it->Seek(key);
    // The walk starts on `key` if it is stored.
    if (!it->Valid() || SliceView(it->key()) != key) {
      fills_.insert_or_assign(key, std::nullopt);
    }
    for (size_t i = 0; i <= ahead && it->Valid(); ++i) {
      // A member this transaction staged is still answered as staged: Get
      // looks at the staged members first.
      fills_.try_emplace(std::string(SliceView(it->key())),
                         std::string(SliceView(it->value())));
      reverse ? it->Prev() : it->Next();
    }
    if (!it->status().ok()) {
      return FromRocks(it->status(), "reading a typed value");
    }
    read_keys_.insert(key);
    return fills_.find(key)->second;
  }

  absl::StatusOr<std::vector<std::optional<std::string>>> GetMany(
      absl::string_view name, const TypedMeta& meta,
      absl::Span<const std::string> subkeys) override {
    std::vector<std::optional<std::string>> out(subkeys.size());
    std::vector<std::string> keys;
    std::vector<size_t> missed;
    // One key buffer, copied only for a miss: a read of a hundred cached
    // elements (LRANGE) should cost a hundred cache lookups and no more.
    std::string key = TypedMembersPrefix(name, meta.version);
    const size_t prefix_size = key.size();
    for (size_t i = 0; i < subkeys.size(); ++i) {
      if (IsWalkedOnly(meta.type, subkeys[i])) {  // read, never cached
        absl::StatusOr<std::optional<std::string>> value =
            Get(name, meta, subkeys[i]);
        if (!value.ok()) return value.status();
        out[i] = *std::move(value);
        continue;
      }
      key.resize(prefix_size);
      key.append(subkeys[i]);
      if (auto it = members_.empty() ? members_.end() : members_.find(key);
          it != members_.end()) {
        out[i] = it->second.value;
      } else if (auto read = fills_.empty() ? fills_.end() : fills_.find(key);
                 read != fills_.end()) {
        out[i] = read->second;
      } else if (!Cached(key, &out[i])) {
        keys.push_back(key);
        missed.push_back(i);
      }
    }
    if (keys.empty()) return out;
    // What it reads is kept for this transaction's later reads and cached
    // after its commit.
    std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
    std::vector<rocksdb::PinnableSlice> values(keys.size());
    std::vector<rocksdb::Status> statuses(keys.size());
    engine_.db->MultiGet(rocksdb::ReadOptions(), engine_.types(), keys.size(),
                         slices.data(), values.data(), statuses.data());
    for (size_t j = 0; j < keys.size(); ++j) {
      if (statuses[j].ok()) {
        out[missed[j]] = values[j].ToString();
      } else if (!statuses[j].IsNotFound()) {
        return FromRocks(statuses[j], "reading a typed value");
      }
      fills_.insert_or_assign(std::move(keys[j]), out[missed[j]]);
    }
    return out;
  }

  absl::Status Scan(
      absl::string_view name, const TypedMeta& meta, absl::string_view prefix,
      absl::string_view from, bool reverse,
      const std::function<bool(absl::string_view, absl::string_view)>& visit)
      override {
    const std::string lower = MemberKey(name, meta, prefix);
    const std::string upper = PrefixEnd(lower);
    rocksdb::Iterator* const it = IteratorOver(lower, upper);
    const std::string start = from.empty() ? "" : MemberKey(name, meta, from);
    SeekScanStart(it, start, reverse);
    StagedRange staged(members_, lower, upper, start, reverse);
    const size_t skip = lower.size() - prefix.size();
    // The stored and the staged members merged in key order; a staged
    // change hides the stored value of its key.
    while (it->Valid() || !staged.done()) {
      const int cmp = MergeOrder(*it, staged, reverse);
      if (cmp < 0) {
        if (!visit(SliceView(it->key()).substr(skip), SliceView(it->value()))) {
          break;
        }
        reverse ? it->Prev() : it->Next();
        continue;
      }
      if (cmp == 0) reverse ? it->Prev() : it->Next();
      const std::string& key = staged.key();
      const std::optional<std::string>& value = staged.value();
      staged.Advance();
      if (value && !visit(absl::string_view(key).substr(skip), *value)) break;
    }
    return FromRocks(it->status(), "scanning a typed value");
  }

  void Put(absl::string_view name, const TypedMeta& meta,
           absl::string_view subkey, absl::string_view value) override {
    members_[MemberKey(name, meta, subkey)] = {std::string(value),
                                               IsWalkedOnly(meta.type, subkey)};
  }
  void Delete(absl::string_view name, const TypedMeta& meta,
              absl::string_view subkey) override {
    members_[MemberKey(name, meta, subkey)] = {std::nullopt,
                                               IsWalkedOnly(meta.type, subkey)};
  }
  void SetMeta(absl::string_view name, const TypedMeta& meta) override {
    if (meta.size == 0) return DeleteMeta(name);
    metas_[std::string(name)] = meta;
  }
  void DeleteMeta(absl::string_view name) override {
    metas_[std::string(name)] = std::nullopt;
  }

  absl::Status RemoveOtherTypes(absl::string_view name) override {
    if (std::find(replaceable_.begin(), replaceable_.end(), name) ==
        replaceable_.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("'", name, "' is not replaceable in this transaction"));
    }
    const std::string names[] = {std::string(name)};
    auto strings = store_.LoadStrings(names);
    if (!strings.ok()) return strings.status();
    if ((*strings)[0].has_value()) removed_strings_.push_back(names[0]);
    if (store_.StoredCollectionSize(name) > 0) {
      removed_collections_.push_back(names[0]);
    }
    holds_other_.insert_or_assign(names[0], false);
    return absl::OkStatus();
  }

  absl::Status Commit() {
    if (!failed_.ok()) return failed_;
    if (metas_.empty() && members_.empty() && removed_strings_.empty() &&
        removed_collections_.empty()) {
      return absl::OkStatus();
    }
    if (read_only_) return ReadOnlyError();
    WriteBatchBuilder batch(engine_);
    for (const std::string& c : removed_collections_) batch.DeleteCollection(c);
    absl::Status s = StageMetaWrites(batch);
    s.Update(StageMemberWrites(batch));
    if (!s.ok()) return s;
    if (removed_strings_.empty()) return batch.Commit("writing a typed value");
    const std::optional<StringValue> absent;
    std::vector<TrackStore::StringChange> changes;
    for (const std::string& name : removed_strings_) {
      changes.push_back({name, &absent});
    }
    return store_.WriteStrings(changes, batch, "replacing a key");
  }

  // Adds the staged metas to `batch`; the first error, after trying all.
  absl::Status StageMetaWrites(WriteBatchBuilder& batch) {
    absl::Status s;
    for (const auto& [name, meta] : metas_) {
      // A meta is read by every command on its key: keep it cached.
      const std::string key = TypedMetaKey(name);
      s.Update(meta ? batch.PutCached(key, EncodeTypedMeta(*meta))
                    : batch.Delete(ColumnFamily::kTypes, key));
    }
    return s;
  }

  // Adds the staged members to `batch`; the first error, after trying all.
  absl::Status StageMemberWrites(WriteBatchBuilder& batch) {
    absl::Status s;
    for (const auto& [key, staged] : members_) {
      // Members of a value this transaction removed are garbage already.
      const std::optional<std::string>& value = staged.value;
      if (staged.walked_only) {
        s.Update(value ? batch.PutUncached(key, *value)
                       : batch.DeleteUncached(key));
      } else if (!value) {
        s.Update(batch.Delete(ColumnFamily::kTypes, key));
      } else if (read_keys_.contains(key)) {
        s.Update(batch.PutCached(key, *value));
      } else {
        s.Update(batch.Put(ColumnFamily::kTypes, key, *value));
      }
    }
    return s;
  }

  // Caches the members this transaction read from RocksDB and did not
  // write (what it wrote, its commit has cached or dropped). After the
  // commit, still holding the names' stripes (I8): a member read and then
  // deleted (a popped element) costs no cache insert.
  void FillCache() {
    for (const auto& [key, value] : fills_) {
      if (!members_.contains(key)) cache_.Put(key, value);
    }
    fills_.clear();
  }

 private:
  struct Staged {
    std::optional<std::string> value;  // nullopt: deleted
    // IsWalkedOnly: the key has no typed cache entry to drop.
    bool walked_only = false;
  };
  using Staging = absl::btree_map<std::string, Staged>;

  // The staged members with keys in [lower, upper) (upper empty: no end)
  // from `start` on (>= start, or with `reverse` <= start, going down; an
  // empty `start`: from the first, or the last). A transaction stages few
  // members, so the range is copied out as pointers.
  class StagedRange {
   public:
    StagedRange(const Staging& staged, const std::string& lower,
                const std::string& upper, const std::string& start,
                bool reverse) {
      const std::string& low = !reverse && start > lower ? start : lower;
      for (auto it = staged.lower_bound(low); it != staged.end(); ++it) {
        if (!upper.empty() && it->first >= upper) break;
        if (reverse && !start.empty() && it->first > start) break;
        entries_.push_back(&*it);
      }
      if (reverse) std::reverse(entries_.begin(), entries_.end());
    }
    bool done() const { return at_ == entries_.size(); }
    const std::string& key() const { return entries_[at_]->first; }
    const std::optional<std::string>& value() const {
      return entries_[at_]->second.value;
    }
    void Advance() { ++at_; }

   private:
    std::vector<const Staging::value_type*> entries_;
    size_t at_ = 0;
  };

  // Puts `it` on the first key of a scan from `start` (empty: from the
  // first key, or with `reverse` the last).
  static void SeekScanStart(rocksdb::Iterator* it, const std::string& start,
                            bool reverse) {
    if (reverse) {
      start.empty() ? it->SeekToLast() : it->SeekForPrev(start);
    } else if (start.empty()) {
      it->SeekToFirst();
    } else if (!it->Valid() || SliceView(it->key()) != start) {
      // A walk that stopped at `start` left the iterator on it, the first
      // key >= start: a run of pops from the low end (ZPOPMIN), each
      // starting where the last one stopped, seeks once, not per pop.
      it->Seek(start);
    }
  }

  // Which of a scan's merged members comes next: < 0 the stored one at
  // `it`, > 0 the staged one, 0 both (the staged change wins). One of them
  // is left.
  static int MergeOrder(const rocksdb::Iterator& it, const StagedRange& staged,
                        bool reverse) {
    if (!it.Valid()) return 1;
    if (staged.done()) return -1;
    const int cmp = SliceView(it.key()).compare(staged.key());
    return reverse ? -cmp : cmp;
  }

  // The typed cache's entry for `key`. A read-only transaction's reads are
  // the kind that repeat (LRANGE of a hot list on both event loops): they
  // may be answered by this thread's copy (TypedCache::LookupForRead).
  bool Cached(absl::string_view key, std::optional<std::string>* value) {
    return read_only_ ? cache_.LookupForRead(key, value)
                      : cache_.Lookup(key, value);
  }

  // A key of `types` as stored: from the typed cache, else from RocksDB.
  // What it read from RocksDB is cached at once, or with `deferred` added
  // there for FillCache (this transaction holds its name's stripe, I8).
  absl::StatusOr<std::optional<std::string>> Read(
      const std::string& key,
      absl::flat_hash_map<std::string, std::optional<std::string>>* deferred =
          nullptr) {
    std::optional<std::string> value;
    if (Cached(key, &value)) return value;
    absl::StatusOr<std::optional<std::string>> stored = ReadStored(key);
    if (!stored.ok()) return stored.status();
    value = *std::move(stored);
    if (deferred != nullptr) {
      deferred->insert_or_assign(key, value);
    } else {
      cache_.Put(key, value);
    }
    return value;
  }

  // A key of `types` as RocksDB holds it.
  absl::StatusOr<std::optional<std::string>> ReadStored(
      const std::string& key) {
    std::string stored;
    rocksdb::Status s =
        engine_.db->Get(rocksdb::ReadOptions(), engine_.types(), key, &stored);
    if (s.IsNotFound()) return std::nullopt;
    if (!s.ok()) return FromRocks(s, "reading a typed value");
    return stored;
  }

  // A RocksDB iterator over the stored keys in [lower, upper) (upper
  // empty: no end), kept for this transaction's later scans of the same
  // range: a group's pops of one key make one iterator, not one each, and
  // a seek near the last one stays in its block. Its view, the store as
  // it was when it was made, is the store this transaction reads: the
  // names' stripes keep every other writer out until it commits.
  rocksdb::Iterator* IteratorOver(const std::string& lower,
                                  const std::string& upper) {
    for (const std::unique_ptr<RangeIterator>& r : iterators_) {
      if (r->lower == lower && r->upper == upper) return r->it.get();
    }
    auto r = std::make_unique<RangeIterator>();
    r->lower = lower;
    r->upper = upper;
    r->lower_slice = r->lower;
    r->upper_slice = r->upper;
    rocksdb::ReadOptions read;
    read.iterate_lower_bound = &r->lower_slice;
    if (!r->upper.empty()) read.iterate_upper_bound = &r->upper_slice;
    r->it.reset(engine_.db->NewIterator(read, engine_.types()));
    iterators_.push_back(std::move(r));
    return iterators_.back()->it.get();
  }

  static std::string MemberKey(absl::string_view name, const TypedMeta& meta,
                               absl::string_view subkey) {
    std::string key = TypedMembersPrefix(name, meta.version);
    key.append(subkey.data(), subkey.size());
    return key;
  }

  TrackStore& store_;
  Engine& engine_;
  TypedCache& cache_;
  const int64_t now_ms_;
  absl::Status failed_;
  absl::flat_hash_map<std::string, std::optional<TypedMeta>> metas_;
  // Metas read and not staged, so that a group's calls on one key read it
  // once.
  absl::flat_hash_map<std::string, std::optional<TypedMeta>> read_metas_;
  // Members read one by one: the ones whose new values stay cached.
  absl::flat_hash_set<std::string> read_keys_;
  // Members read from RocksDB, for FillCache and for this transaction's
  // later reads of them.
  absl::flat_hash_map<std::string, std::optional<std::string>> fills_;
  Staging members_;
  absl::Span<const std::string> replaceable_;
  const bool read_only_;
  std::vector<std::string> removed_strings_;
  // HoldsStringOrCollection's answers, as this transaction leaves them.
  absl::flat_hash_map<std::string, bool> holds_other_;
  std::vector<std::string> removed_collections_;
  // IteratorOver's iterators; the bounds' slices point into their own
  // strings, so each lives at a fixed address.
  struct RangeIterator {
    std::string lower;
    std::string upper;
    rocksdb::Slice lower_slice;
    rocksdb::Slice upper_slice;
    std::unique_ptr<rocksdb::Iterator> it;
  };
  std::vector<std::unique_ptr<RangeIterator>> iterators_;
};

namespace {

// Runs `body` in `txn`, commits what it staged if it returned OK, and
// caches what it read. The caller holds the names' stripes (shared or
// not, no writer beside it), so what it read is what is stored (I8).
absl::Status RunAndCommit(TypedTxnImpl& txn, const TypedUpdate& body) {
  absl::Status s = body(txn);
  if (s.ok()) s = txn.Commit();
  txn.FillCache();
  return s;
}

}  // namespace

absl::Status TrackStore::UpdateTyped(
    absl::Span<const std::string> names, int64_t now_ms,
    const TypedUpdate& update, absl::Span<const std::string> replaceable) {
  // Collection locks before stripes, as the whole-name operations take them.
  ExclusiveLocks collections(replaceable.empty()
                                 ? std::vector<absl::Mutex*>()
                                 : CollectionLocks(replaceable));
  EntityLocks::Held held = locks_.Lock(StringStripes(names));
  TypedTxnImpl txn(*this, now_ms, replaceable, /*read_only=*/false);
  return RunAndCommit(txn, update);
}

absl::Status TrackStore::ReadTyped(absl::Span<const std::string> names,
                                   int64_t now_ms, const TypedUpdate& read) {
  EntityLocks::Held held = locks_.Lock(StringStripes(names), /*shared=*/true);
  TypedTxnImpl txn(*this, now_ms, {}, /*read_only=*/true);
  return RunAndCommit(txn, read);
}

bool TrackStore::TypedValuesKnownAbsent(absl::Span<const std::string> names) {
  for (const std::string& name : names) {
    std::optional<std::string> meta;
    // The per-thread copies: the guess is asked by every call on the key.
    if (!engine_->typed_cache->LookupForRead(TypedMetaKey(name), &meta) ||
        meta.has_value()) {
      return false;
    }
  }
  return !names.empty();
}

absl::StatusOr<std::optional<TypedMeta>> TrackStore::StoredTypedMeta(
    absl::string_view name) {
  const std::string key = TypedMetaKey(name);
  // A cached meta is the stored one (I8). Only a transaction fills the
  // cache: a caller here may not hold the name's stripe.
  std::optional<std::string> cached;
  absl::StatusOr<TypedMeta> meta;
  if (engine_->typed_cache->Lookup(key, &cached)) {
    if (!cached) return std::nullopt;
    meta = DecodeMetaOf(name, *cached);
  } else {
    rocksdb::PinnableSlice value;
    rocksdb::Status s =
        engine_->db->Get(rocksdb::ReadOptions(), engine_->types(), key, &value);
    if (s.IsNotFound()) return std::nullopt;
    if (!s.ok()) return FromRocks(s, "reading a typed value's metadata");
    meta = DecodeMetaOf(name, SliceView(value));
  }
  if (!meta.ok()) return meta.status();
  return *meta;
}

absl::StatusOr<std::optional<TypedMeta>> TrackStore::GetTypedMeta(
    absl::string_view name, int64_t now_ms) {
  absl::StatusOr<std::optional<TypedMeta>> meta = StoredTypedMeta(name);
  if (meta.ok() && *meta && (*meta)->expired_at(now_ms)) return std::nullopt;
  return meta;
}

absl::Status TrackStore::ScanTyped(
    const std::optional<std::string>& after, int64_t now_ms,
    const std::function<bool(absl::string_view, const TypedMeta&)>& visit) {
  std::unique_ptr<rocksdb::Iterator> it(
      engine_->db->NewIterator(rocksdb::ReadOptions(), engine_->types()));
  // Each name's keys are one range, its meta first: after visiting a meta,
  // skip its members with one seek.
  std::string seek = after ? PrefixEnd(TypedMetaKey(*after)) : std::string();
  for (seek.empty() && !after ? it->SeekToFirst() : it->Seek(seek); it->Valid();
       it->Seek(seek)) {
    const std::optional<TypedKeyParts> parts =
        ParseTypedKey(SliceView(it->key()));
    if (!parts) return absl::DataLossError("malformed key in types");
    seek = PrefixEnd(TypedMetaKey(parts->name));
    if (!parts->is_meta) continue;  // garbage of a removed value
    absl::StatusOr<TypedMeta> meta =
        DecodeMetaOf(parts->name, SliceView(it->value()));
    if (!meta.ok()) return meta.status();
    if (meta->expired_at(now_ms)) continue;
    if (!visit(parts->name, *meta)) break;
    if (seek.empty()) break;
  }
  return FromRocks(it->status(), "scanning typed values");
}

absl::StatusOr<uint64_t> TrackStore::NextTypedVersion() {
  absl::MutexLock l(&typed_version_mu_);
  if (next_typed_version_ >= typed_version_floor_) {
    if (absl::Status r = engine_->RefuseOnReplica("reserving typed versions");
        !r.ok()) {
      return r;
    }
    const uint64_t floor = next_typed_version_ + kVersionBlock;
    std::string value;
    AppendBigEndian64(&value, floor);
    rocksdb::Status s =
        engine_->db->Put(engine_->options.write, engine_->metadata(),
                         kTypedVersionFloorKey, value);
    if (!s.ok()) return FromRocks(s, "reserving typed value versions");
    typed_version_floor_ = floor;
  }
  return next_typed_version_++;
}

absl::Status TrackStore::LoadTypedVersionFloor() {
  std::string value;
  rocksdb::Status s =
      engine_->db->Get(rocksdb::ReadOptions(), engine_->metadata(),
                       kTypedVersionFloorKey, &value);
  uint64_t floor = 0;
  if (s.ok() && value.size() == 8) {
    floor = ReadBigEndian64(value);
  } else if (!s.ok() && !s.IsNotFound()) {
    return FromRocks(s, "reading the typed version floor");
  }
  absl::MutexLock l(&typed_version_mu_);
  // The floor is reserved on first use, so nothing is written until then.
  next_typed_version_ = std::max(floor, NowMicros());
  typed_version_floor_ = floor;
  return absl::OkStatus();
}

absl::Status TrackStore::CopyTypedValue(absl::string_view src,
                                        absl::string_view dst,
                                        const TypedMeta& meta, size_t max_bytes,
                                        WriteBatchBuilder& batch) {
  absl::StatusOr<uint64_t> version = NextTypedVersion();
  if (!version.ok()) return version.status();
  TypedMeta copy = meta;
  copy.version = *version;
  const std::string from = TypedMembersPrefix(src, meta.version);
  const std::string to = TypedMembersPrefix(dst, copy.version);
  const std::string end = PrefixEnd(from);
  rocksdb::ReadOptions read;
  rocksdb::Slice upper(end);
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      engine_->db->NewIterator(read, engine_->types()));
  size_t bytes = 0;
  for (it->Seek(from); it->Valid(); it->Next()) {
    const absl::string_view subkey = SliceView(it->key()).substr(from.size());
    bytes += to.size() + subkey.size() + it->value().size();
    if (bytes > max_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("key '", src, "' is over ", max_bytes,
                       " bytes, more than one atomic copy may hold"));
    }
    if (absl::Status s =
            batch.PutUncached(absl::StrCat(to, subkey), SliceView(it->value()));
        !s.ok()) {
      return s;
    }
  }
  if (!it->status().ok()) return FromRocks(it->status(), "copying a value");
  return batch.Put(ColumnFamily::kTypes, TypedMetaKey(dst),
                   EncodeTypedMeta(copy));
}

}  // namespace trackdb::storage
