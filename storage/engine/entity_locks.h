#ifndef TRACKDB_STORAGE_ENGINE_ENTITY_LOCKS_H_
#define TRACKDB_STORAGE_ENGINE_ENTITY_LOCKS_H_

// Serialises writers per entity. The write path reads an entity's `latest`,
// decides, and writes a batch; two writers interleaving those steps for one
// entity could leave a stale latest or a wrong entity count. Every write to an
// entity therefore holds its stripe, a mutex chosen by hashing (collection,
// entity). A call touching many entities takes all their stripes in
// ascending order, so two calls can never wait on each other in a cycle.
//
// A read that must not interleave with those writes (a typed value read in
// several steps, a string read that fills the cache) holds its stripes
// shared: readers of one key run side by side, writers wait for them, and
// a writer that waits holds off new readers (absl::Mutex), so a stream of
// reads cannot starve it.
//
// A caller that finds a stripe held spins (polls it) for up to twice the
// stripe's recent hold time, at most kMaxSpinNs, before it sleeps. A hot
// key's stripe passes between event loops many thousand times a second:
// put to sleep, the waiter pays a futex wait and wake and then the
// scheduler's delay before it runs, while the key stays unused. Bounded by
// the hold time, a spin costs about the wait it saves; a holder that lost
// its core makes the waiter sleep after that bound rather than spin on.
// The bound is long enough to outlast a pipelined group of writes to one
// key (a group of 16 ZADDs holds it 100-200 us): a waiter asleep wakes
// after 0.07 to 3.6 ms here, and meanwhile the holder's loop takes the
// stripe again for its next connection, round after round, so that the
// sleeper's clients starve (ZADD's p99 was 71-89 ms with a 100 us bound,
// 21-27 ms with 400 us, at the same rate). A loop that waits for a stripe
// serves nothing else either way; a spin only takes its core from the
// other threads.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::storage {

class EntityLocks {
 public:
  static constexpr size_t kStripes = 1024;
  static constexpr int64_t kMaxSpinNs = 400'000;

  // Holds the stripes of a set of entities until destroyed.
  class Held {
   public:
    Held(Held&& other) noexcept;
    Held& operator=(Held&&) = delete;
    ~Held();

   private:
    friend class EntityLocks;
    struct Taken {
      size_t stripe;
      bool shared;
    };
    Held(EntityLocks* owner, std::vector<Taken> taken);
    EntityLocks* owner_;       // null once moved from
    std::vector<Taken> taken_;  // by stripe, each once
    int64_t locked_at_ns_;
  };

  static size_t StripeOf(absl::string_view collection,
                         absl::string_view entity);

  // Blocks until every stripe of `stripes` (any order, repeats allowed) is
  // held: exclusively, or with `shared` beside other shared holders.
  Held Lock(std::vector<size_t> stripes, bool shared = false);
  // Both at once, in one ascending order: `exclusive` exclusively and
  // `shared` shared (a stripe in both is held exclusively). For a writer
  // that also holds off writers of a name it only reads (AddPoints holds
  // its collection name's stripe shared: see write_path.cc).
  Held Lock(std::vector<size_t> exclusive, std::vector<size_t> shared);

  // The stripe's recent hold time, which bounds a waiter's spin.
  int64_t RecentHoldNs(size_t stripe) const {
    return stripes_[stripe].hold_ns.load(std::memory_order_relaxed);
  }
  // How long a waiter spins on a stripe held `recent_hold_ns` on average.
  static int64_t SpinBudgetNs(int64_t recent_hold_ns) {
    return std::min(kMaxSpinNs, 2 * recent_hold_ns);
  }

 private:
  struct alignas(64) Stripe {
    absl::Mutex mutex;
    // Recent hold times, an exponential moving average (1/8 per hold).
    std::atomic<int64_t> hold_ns{0};
  };
  // Takes `stripe`, spinning first (above).
  static void LockStripe(Stripe& stripe, bool shared);

  std::array<Stripe, kStripes> stripes_;
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

#endif  // TRACKDB_STORAGE_ENGINE_ENTITY_LOCKS_H_
