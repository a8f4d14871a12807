#ifndef TRACKDB_STORAGE_POINTS_LATEST_FEED_H_
#define TRACKDB_STORAGE_POINTS_LATEST_FEED_H_

// What changed in the latest index, for watchers that follow a collection
// live (the map page): each entity set or erased, and each collection
// dropped or replaced whole, numbered in the order the index applied them.
//
// It costs nothing while nobody watches, and records only the collections
// watched: between StartWatch(c) and the watch's release, each change of
// c. It keeps the last kCapacity changes of the watched collections
// together, in at most kMaxBytes; a watcher that falls further behind is
// told it lost some (`lost`) and starts again from a snapshot of the
// index, as a Redis replica does from a full sync.
//
// Thread-safe.

#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "storage/format/point_codec.h"

namespace trackdb::storage {

class LatestFeed {
 public:
  static constexpr size_t kCapacity = 1 << 16;
  static constexpr size_t kMaxBytes = 16 << 20;  // names included

  struct Update {
    enum class Kind { kSet, kErase, kReset };  // kReset: the whole collection
    uint64_t seq = 0;
    Kind kind = Kind::kSet;
    std::string collection;
    std::string entity;  // kSet, kErase
    PointPosition position{};
  };

  struct Batch {
    std::vector<Update> updates;  // of the collection asked, in order
    uint64_t next = 0;            // the seq to read from next
    bool lost = false;  // changes after `from` are gone: take a snapshot
  };

  // Records while the returned watch lives; its seq is where a snapshot
  // taken after it starts to read: every change the snapshot may miss has
  // a seq >= it.
  class Watch {
   public:
    Watch(Watch&& other) noexcept
        : feed_(other.feed_),
          collection_(std::move(other.collection_)),
          from_(other.from_) {
      other.feed_ = nullptr;
    }
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;
    ~Watch();
    uint64_t from() const { return from_; }

   private:
    friend class LatestFeed;
    Watch(LatestFeed* feed, std::string collection, uint64_t from)
        : feed_(feed), collection_(std::move(collection)), from_(from) {}
    LatestFeed* feed_;
    std::string collection_;
    uint64_t from_;
  };

  Watch StartWatch(absl::string_view collection);
  bool watched() const {
    return watchers_.load(std::memory_order_acquire) > 0;
  }

  // The index's side: one change, in the order applied (kept only if its
  // collection is watched).
  void Record(Update::Kind kind, absl::string_view collection,
              absl::string_view entity, const PointPosition& position);

  // Up to `max` changes of `collection` from seq `from`, waiting until
  // `deadline` for the first one when there are none yet.
  Batch Read(absl::string_view collection, uint64_t from, size_t max,
             absl::Time deadline);

  // The seq the next change will have.
  uint64_t next_seq() const;

 private:
  static size_t BytesOf(const Update& u) {
    return sizeof(Update) + u.collection.size() + u.entity.size();
  }

  mutable absl::Mutex mu_;
  std::deque<Update> ring_ ABSL_GUARDED_BY(mu_);
  size_t ring_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
  // Watches of each collection.
  absl::flat_hash_map<std::string, int> watched_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> watchers_{0};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_POINTS_LATEST_FEED_H_
