// RetentionStore (retention_store.h), and LoadRetention, which loads the
// policies on open.
#include "storage/retention_store.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "model/validate.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

// Entities expired per batch: bounds the batch and how long the
// collection's stripes are held.
constexpr size_t kExpiryBatchEntities = 512;

// Up to this many fixes leave as point deletions; more as one range
// deletion. RocksDB 7.8 (Debian 12) re-fragments every range tombstone in
// a memtable for each new iterator, so range-deleting one or two fixes of
// each of thousands of entities slows every read after it until a flush
// (a trimming pass over 2,000 entities, one iterator each: 0.64 ms per
// entity with a range deletion each, 0.14 ms with point deletions).
constexpr uint64_t kMaxPointDeletions = 64;

}  // namespace

absl::Status ForEachTagged(
    Engine& engine, char tag, absl::string_view what,
    const std::function<absl::Status(absl::string_view, absl::string_view)>&
        visit) {
  const std::string begin(1, tag);
  const std::string end = PrefixEnd(begin);
  rocksdb::ReadOptions read;
  rocksdb::Slice upper(end);
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      engine.db->NewIterator(read, engine.metadata()));
  for (it->Seek(begin); it->Valid(); it->Next()) {
    if (absl::Status s = visit(SliceView(it->key()), SliceView(it->value()));
        !s.ok()) {
      return s;
    }
  }
  return FromRocks(it->status(), absl::StrCat("loading ", what));
}

absl::Status LoadRetention(Engine& engine) {
  return ForEachTagged(
      engine, kRetentionTag, "retention policies",
      [&](absl::string_view key, absl::string_view value) {
        const std::optional<absl::string_view> collection =
            ParseRetentionKey(key);
        const std::optional<RetentionPolicy> policy =
            DecodeRetentionPolicy(value);
        if (!collection || !policy) {
          return absl::DataLossError("corrupt retention policy entry");
        }
        engine.options.retention->Set(*collection, *policy);
        return absl::OkStatus();
      });
}

absl::Status RetentionStore::Set(absl::string_view collection,
                                 const RetentionPolicy& policy) {
  if (absl::Status v =
          model::ValidateRetention(policy.max_age_ms, policy.expire_latest,
                                   "max_age_ms", "expire_latest");
      !v.ok()) {
    return v;
  }
  if (absl::Status v =
          model::ValidateRetentionPoints(policy.max_points, "max_points");
      !v.ok()) {
    return v;
  }
  // Exclusive: two settings of one collection land in the order they
  // reach memory.
  absl::MutexLock collection_lock(&collection_locks_->For(collection));
  WriteBatchBuilder batch(*engine_);
  const std::string key = RetentionKey(collection);
  absl::Status put = policy.keeps_everything()
                         ? batch.Delete(ColumnFamily::kDefault, key)
                         : batch.Put(ColumnFamily::kDefault, key,
                                     EncodeRetentionPolicy(policy));
  if (!put.ok()) return put;
  if (absl::Status w = batch.Commit("setting retention"); !w.ok()) return w;
  engine_->options.retention->Set(collection, policy);
  return absl::OkStatus();
}

RetentionPolicy RetentionStore::Get(absl::string_view collection) const {
  return engine_->options.retention->Get(collection);
}

RetentionCounters RetentionStore::counters() const {
  return engine_->options.retention->counters();
}

int64_t RetentionStore::HistoryCutoff(absl::string_view collection,
                                      int64_t now_ms) const {
  const RetentionPolicies& policies = *engine_->options.retention;
  if (policies.empty()) return INT64_MIN;
  return HistoryCutoffMs(policies.Get(collection), now_ms);
}

absl::StatusOr<size_t> RetentionStore::ExpireSome(
    absl::string_view collection, absl::Span<const std::string> entities,
    int64_t cutoff_ms) {
  absl::ReaderMutexLock collection_lock(&collection_locks_->For(collection));
  std::vector<size_t> stripes;
  std::vector<absl::string_view> names;
  for (const std::string& e : entities) {
    stripes.push_back(EntityLocks::StripeOf(collection, e));
    names.push_back(e);
  }
  EntityLocks::Held held = entity_locks_->Lock(stripes);
  // Under the stripes the index is what `latest` holds (I6): an entity
  // written since it was picked is newer now and stays.
  const std::vector<std::optional<PointPosition>> latest =
      engine_->latest_index.Find(collection, names);
  WriteBatchBuilder batch(*engine_);
  size_t expired = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!latest[i] || latest[i]->loc_time_ms >= cutoff_ms) continue;
    batch.DeleteEntity(collection, names[i], latest[i]);
    ++expired;
  }
  if (absl::Status w = batch.Commit("expiring entities"); !w.ok()) return w;
  return expired;
}

absl::StatusOr<int64_t> RetentionStore::ExpireEntities(int64_t now_ms) {
  int64_t total = 0;
  for (const auto& [collection, policy] : engine_->options.retention->All()) {
    if (!policy.expire_latest) continue;
    const int64_t cutoff = HistoryCutoffMs(policy, now_ms);
    while (true) {
      const std::vector<std::string> old =
          engine_->latest_index.EntitiesOlderThan(collection, cutoff,
                                                  kExpiryBatchEntities);
      if (old.empty()) break;
      absl::StatusOr<size_t> expired = ExpireSome(collection, old, cutoff);
      if (!expired.ok()) return expired.status();
      total += static_cast<int64_t>(*expired);
      engine_->options.retention->CountExpiredEntities(*expired);
      // None expired: every pick was rewritten meanwhile; the next pass
      // looks again rather than spinning on a busy collection.
      if (*expired == 0 || old.size() < kExpiryBatchEntities) break;
    }
  }
  // Each expired entity left a range tombstone in the points memtable, and
  // RocksDB 7.8 re-fragments them all for every new iterator (every track
  // read) until a flush moves them into a file, where that is done once.
  if (total >= static_cast<int64_t>(kMaxPointDeletions)) {
    rocksdb::FlushOptions flush;
    flush.allow_write_stall = true;
    if (absl::Status f = FromRocks(engine_->db->Flush(flush, engine_->points()),
                                   "flushing points");
        !f.ok()) {
      return f;
    }
  }
  return total;
}

absl::StatusOr<RetentionStore::HistoryTrim> RetentionStore::TrimHistory(
    absl::string_view collection, absl::string_view entity, int64_t max_points,
    std::optional<int64_t> from_ms) {
  absl::ReaderMutexLock collection_lock(&collection_locks_->For(collection));
  EntityLocks::Held held =
      entity_locks_->Lock({EntityLocks::StripeOf(collection, entity)});
  return TrimEntityHistory(*engine_, collection, entity,
                           static_cast<uint64_t>(max_points), from_ms);
}

absl::StatusOr<int64_t> RetentionStore::TrimHistories() {
  RetentionPolicies& policies = *engine_->options.retention;
  int64_t total = 0;
  for (const auto& [collection, policy] : policies.All()) {
    if (policy.max_points == 0) continue;
    for (const auto& [entity, latest_ms] :
         engine_->latest_index.EntityTimes(collection)) {
      const std::optional<RetentionPolicies::TrimState> last =
          policies.TrimmedAt(collection, entity);
      if (last && last->latest_ms == latest_ms) continue;
      absl::StatusOr<HistoryTrim> trim = TrimHistory(
          collection, entity, policy.max_points,
          last ? std::optional<int64_t>(last->oldest_kept_ms) : std::nullopt);
      if (!trim.ok()) return trim.status();
      policies.SetTrimmedAt(collection, entity,
                            {latest_ms, trim->oldest_kept_ms});
      policies.CountTrimmedPoints(trim->removed);
      total += static_cast<int64_t>(trim->removed);
    }
  }
  return total;
}

}  // namespace trackdb::storage
