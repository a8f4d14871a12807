#ifndef TRACKDB_STORAGE_POINTS_LATEST_INDEX_H_
#define TRACKDB_STORAGE_POINTS_LATEST_INDEX_H_

// The latest position of every entity, in memory: the spatial index that
// searches walk and the "stored latest" that a write compares against, so
// that neither reads RocksDB.
//
// It is derived from the `latest` column family and never persisted: Open
// builds it from a scan of `latest` (storage/track_store.cc), and every
// change to `latest` reaches it through the write funnel's WriteBatchBuilder,
// which applies its batch's index changes after the batch is written and
// before the writer lets go of its locks (storage/write_funnel.h, I6). So a
// write is acknowledged only once the index shows it, and a crash loses
// nothing the index held that `latest` does not.
//
// Per collection: a hash map entity -> (position, cell) and an ordered set
// of (cell, entity), cell = index::CellIdOf(lat, lon), an S2 leaf cell id,
// so a region query is a few ordered range walks (index/covering.h).
// Collections are independent (each has its own lock), which is also the
// unit a shard will own.
//
// Thread-safe. A reader sees each collection's changes whole per call:
// Apply of one batch's changes to one collection holds its lock throughout.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "index/covering.h"
#include "storage/format/point_codec.h"
#include "storage/points/latest_feed.h"

namespace trackdb::storage {

class LatestIndex {
 public:
  // One change to the index, as the write funnel records them.
  struct Change {
    enum class Kind {
      kSet,             // entity's latest is `position`
      kErase,           // entity has no latest point
      kDropCollection,  // collection has no entities
      kCopyCollection,  // collection becomes a copy of `source`
    };
    Kind kind;
    std::string collection;
    std::string entity;  // kSet, kErase
    PointPosition position{};
    std::string source;  // kCopyCollection
  };

  struct Hit {
    std::string entity;
    PointPosition position;
  };

  LatestIndex() = default;
  LatestIndex(const LatestIndex&) = delete;
  LatestIndex& operator=(const LatestIndex&) = delete;

  // Applies `changes` in order.
  void Apply(absl::Span<const Change> changes);
  // Sets one entity's position (Open's rebuild and tests).
  void Set(absl::string_view collection, absl::string_view entity,
           const PointPosition& position);

  // Each entity's indexed position, in order; nullopt where it has none.
  std::vector<std::optional<PointPosition>> Find(
      absl::string_view collection,
      absl::Span<const absl::string_view> entities) const;

  // Appends to `out`, in (cell, entity) order, every entity of `collection`
  // whose cell lies in one of `ranges` (sorted, disjoint) and whose position
  // `keep` accepts; returns how many entries it examined. One consistent view
  // of the collection.
  uint64_t Scan(absl::string_view collection,
                absl::Span<const index::CellRange> ranges,
                const std::function<bool(const PointPosition&)>& keep,
                std::vector<Hit>* out) const;

  // Entities indexed in `collection`.
  int64_t Size(absl::string_view collection) const;
  // Up to `max` entities of `collection` whose position is older than
  // `cutoff_ms`, in no particular order (retention's expiry pass).
  std::vector<std::string> EntitiesOlderThan(absl::string_view collection,
                                             int64_t cutoff_ms,
                                             size_t max) const;
  // Every entity of `collection` with its position's loc_time, in no
  // particular order (retention's trimming pass).
  std::vector<std::pair<std::string, int64_t>> EntityTimes(
      absl::string_view collection) const;
  // Every (collection, entity, position), for checks: collections in name
  // order, entities in name order.
  void ForEach(const std::function<void(absl::string_view collection,
                                        absl::string_view entity,
                                        const PointPosition&)>& visit) const;
  // What the index holds in memory, approximately (entries, names, tree
  // nodes): the figure charged to the memory budget.
  int64_t ApproximateBytes() const { return bytes_.load(); }
  // Entities in every collection.
  int64_t EntityCount() const { return entities_.load(); }
  // Its changes, for live watchers.
  LatestFeed& feed() { return feed_; }

 private:
  struct Entry {
    PointPosition position;
    uint64_t cell;
  };
  using EntityMap = absl::node_hash_map<std::string, Entry>;
  using Node = EntityMap::value_type;
  // Ordered by (cell, entity): a search walks cell ranges.
  struct CellKey {
    uint64_t cell;
    const Node* node;
  };
  struct CellKeyLess {
    bool operator()(const CellKey& a, const CellKey& b) const {
      if (a.cell != b.cell) return a.cell < b.cell;
      return a.node->first < b.node->first;
    }
  };
  struct Collection {
    mutable absl::Mutex mu;
    EntityMap entities ABSL_GUARDED_BY(mu);
    absl::btree_set<CellKey, CellKeyLess> cells ABSL_GUARDED_BY(mu);
  };

  std::shared_ptr<Collection> Get(absl::string_view collection) const;
  std::shared_ptr<Collection> GetOrCreate(absl::string_view collection);
  void SetLocked(Collection& c, absl::string_view entity,
                 const PointPosition& position)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu);
  void EraseLocked(Collection& c, absl::string_view entity)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu);
  void Drop(absl::string_view collection);
  void Copy(absl::string_view source, absl::string_view destination);
  static int64_t EntryBytes(absl::string_view entity);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Collection>> collections_
      ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> entities_{0};
  LatestFeed feed_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_POINTS_LATEST_INDEX_H_
