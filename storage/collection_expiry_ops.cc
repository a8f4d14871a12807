// GEO keys' expiry (storage/collections/collection_expiry.h): set, read, and expired
// collections removed.
#include "absl/strings/str_cat.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/strings/kv_expiry.h"
#include "storage/format/rocks_util.h"
#include "storage/track_store.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {

absl::Status LoadCollectionExpiries(Engine& engine) {
  return ForEachTagged(
      engine, kCollectionExpiryTag, "collection expiries",
      [&](absl::string_view key, absl::string_view value) {
        const std::optional<absl::string_view> collection =
            ParseCollectionExpiryKey(key);
        if (!collection || value.size() != 8) {
          return absl::DataLossError("corrupt collection expiry entry");
        }
        engine.collection_expiries.Set(
            *collection, static_cast<int64_t>(ReadBigEndian64(value)));
        return absl::OkStatus();
      });
}

int64_t TrackStore::StoredCollectionSize(absl::string_view collection) {
  return engine_->latest_index.Size(collection);
}

absl::StatusOr<bool> TrackStore::SetCollectionExpiry(
    absl::string_view collection, int64_t at_ms) {
  absl::MutexLock lock(&CollectionLock(collection));
  if (StoredCollectionSize(collection) == 0 ||
      engine_->collection_expiries.Due(collection, SystemNowMs())) {
    return false;
  }
  if (engine_->collection_expiries.Get(collection) == at_ms) return true;
  WriteBatchBuilder batch(*engine_);
  batch.SetCollectionExpiry(collection, at_ms);
  if (absl::Status s = batch.Commit("setting a collection's expiry"); !s.ok()) {
    return s;
  }
  return true;
}

absl::StatusOr<bool> TrackStore::SetCollectionExpiryIf(
    absl::string_view collection, int64_t at_ms, int64_t now_ms,
    const std::function<bool(int64_t current)>& holds) {
  absl::MutexLock lock(&CollectionLock(collection));
  if (StoredCollectionSize(collection) == 0 ||
      engine_->collection_expiries.Due(collection, now_ms) ||
      !holds(engine_->collection_expiries.Get(collection))) {
    return false;
  }
  WriteBatchBuilder batch(*engine_);
  if (at_ms <= now_ms) {
    batch.DeleteCollection(collection);  // its expiry with it
  } else if (engine_->collection_expiries.Get(collection) != at_ms) {
    batch.SetCollectionExpiry(collection, at_ms);
  }
  if (absl::Status s = batch.Commit("setting a collection's expiry"); !s.ok()) {
    return s;
  }
  return true;
}

int64_t TrackStore::CollectionExpiry(absl::string_view collection) const {
  // An emptied collection is no key, and its expiry is stale (below).
  if (engine_->latest_index.Size(collection) == 0) return 0;
  return engine_->collection_expiries.Get(collection);
}

absl::Status TrackStore::ClearStaleCollectionExpiry(
    absl::string_view collection) {
  absl::MutexLock lock(&CollectionLock(collection));
  if (StoredCollectionSize(collection) > 0 ||
      engine_->collection_expiries.Get(collection) == 0) {
    return absl::OkStatus();
  }
  WriteBatchBuilder batch(*engine_);
  batch.SetCollectionExpiry(collection, 0);
  return batch.Commit("clearing a removed collection's expiry");
}

absl::StatusOr<bool> TrackStore::ExpireCollection(absl::string_view collection,
                                                  int64_t now_ms) {
  absl::MutexLock lock(&CollectionLock(collection));
  if (!engine_->collection_expiries.Due(collection, now_ms)) return false;
  WriteBatchBuilder batch(*engine_);
  batch.DeleteCollection(collection);  // its expiry with it
  if (absl::Status s = batch.Commit("expiring a collection"); !s.ok()) {
    return s;
  }
  return true;
}

absl::StatusOr<int64_t> TrackStore::ExpireCollections(int64_t now_ms) {
  int64_t removed = 0;
  for (const std::string& c : engine_->collection_expiries.AllDue(now_ms)) {
    absl::StatusOr<bool> gone = ExpireCollection(c, now_ms);
    if (!gone.ok()) return gone.status();
    removed += *gone ? 1 : 0;
  }
  return removed;
}

}  // namespace trackdb::storage
