// History retention (storage/retention.h): policies stored and loaded, and
// the expiry pass that removes entities whose latest point has expired.
#include <vector>

#include "absl/strings/str_cat.h"
#include "model/validate.h"
#include "storage/engine.h"
#include "storage/keys.h"
#include "storage/kv_expiry.h"
#include "storage/rocks_util.h"
#include "storage/track_store.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

// Entities expired per batch: bounds the batch and how long the
// collection's stripes are held.
constexpr size_t kExpiryBatchEntities = 512;

}  // namespace

absl::Status LoadRetention(Engine& engine) {
  const std::string begin(1, kRetentionTag);
  const std::string end = PrefixEnd(begin);
  rocksdb::ReadOptions read;
  rocksdb::Slice upper(end);
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      engine.db->NewIterator(read, engine.metadata()));
  for (it->Seek(begin); it->Valid(); it->Next()) {
    const std::optional<absl::string_view> collection =
        ParseRetentionKey(SliceView(it->key()));
    const std::optional<RetentionPolicy> policy =
        DecodeRetentionPolicy(SliceView(it->value()));
    if (!collection || !policy) {
      return absl::DataLossError("corrupt retention policy entry");
    }
    engine.options.retention->Set(*collection, *policy);
  }
  return FromRocks(it->status(), "loading retention policies");
}

absl::Status TrackStore::SetRetention(absl::string_view collection,
                                      const RetentionPolicy& policy) {
  if (absl::Status v =
          model::ValidateRetention(policy.max_age_ms, policy.expire_latest,
                                   "max_age_ms", "expire_latest");
      !v.ok()) {
    return v;
  }
  // Exclusive: two settings of one collection land in the order they
  // reach memory.
  absl::MutexLock collection_lock(&CollectionLock(collection));
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

RetentionPolicy TrackStore::GetRetention(absl::string_view collection) const {
  return engine_->options.retention->Get(collection);
}

RetentionCounters TrackStore::retention_counters() const {
  return engine_->options.retention->counters();
}

int64_t TrackStore::HistoryCutoff(absl::string_view collection,
                                  int64_t now_ms) const {
  const RetentionPolicies& policies = *engine_->options.retention;
  if (policies.empty()) return INT64_MIN;
  return HistoryCutoffMs(policies.Get(collection), now_ms);
}

absl::StatusOr<size_t> TrackStore::ExpireSome(
    absl::string_view collection, absl::Span<const std::string> entities,
    int64_t cutoff_ms) {
  absl::ReaderMutexLock collection_lock(&CollectionLock(collection));
  std::vector<size_t> stripes;
  std::vector<absl::string_view> names;
  for (const std::string& e : entities) {
    stripes.push_back(EntityLocks::StripeOf(collection, e));
    names.push_back(e);
  }
  EntityLocks::Held held = locks_.Lock(stripes);
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

absl::StatusOr<int64_t> TrackStore::ExpireEntities(int64_t now_ms) {
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
  return total;
}

}  // namespace trackdb::storage
