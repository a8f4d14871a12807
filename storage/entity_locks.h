#ifndef TRACKDB_STORAGE_ENTITY_LOCKS_H_
#define TRACKDB_STORAGE_ENTITY_LOCKS_H_

// Serialises writers per entity. The write path reads an entity's `latest`,
// decides, and writes a batch; two writers interleaving those steps for one
// entity could leave a stale latest or a wrong entity count. Every write to an
// entity therefore holds its stripe, a mutex chosen by hashing (collection,
// entity). A call touching many entities takes all their stripes in
// ascending order, so two calls can never wait on each other in a cycle.

#include <array>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::storage {

class EntityLocks {
 public:
  static constexpr size_t kStripes = 1024;

  // Holds the stripes of a set of entities until destroyed.
  class Held {
   public:
    Held(Held&&) = default;
    ~Held();

   private:
    friend class EntityLocks;
    Held(EntityLocks* owner, std::vector<size_t> stripes);
    EntityLocks* owner_;
    std::vector<size_t> stripes_;  // sorted, unique
  };

  static size_t StripeOf(absl::string_view collection,
                         absl::string_view entity);

  // Blocks until every stripe of `stripes` (any order, repeats allowed) is
  // held.
  Held Lock(std::vector<size_t> stripes);

 private:
  std::array<std::mutex, kStripes> mutexes_;
};

// Holds mutexes (collection locks) exclusively, taken in the order given
// (TrackStore::CollectionLocks sorts them) and let go in reverse.
class ExclusiveLocks {
 public:
  explicit ExclusiveLocks(std::vector<absl::Mutex*> locks)
      : locks_(std::move(locks)) {
    for (absl::Mutex* m : locks_) m->Lock();
  }
  ~ExclusiveLocks() {
    for (auto it = locks_.rbegin(); it != locks_.rend(); ++it) (*it)->Unlock();
  }
  ExclusiveLocks(const ExclusiveLocks&) = delete;
  ExclusiveLocks& operator=(const ExclusiveLocks&) = delete;

 private:
  std::vector<absl::Mutex*> locks_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_ENTITY_LOCKS_H_
