#ifndef TRACKDB_SERVICE_RESP_POP_WAITERS_H_
#define TRACKDB_SERVICE_RESP_POP_WAITERS_H_

// What wakes the blocking pops of the RESP door (BLPOP, BRPOP, BLMOVE,
// BRPOPLPUSH, BLMPOP on lists; BZPOPMIN, BZPOPMAX, BZMPOP on sorted sets):
// a command that found nothing to pop leaves a wake-up here (OnPush) and
// its connection waits, holding no thread and no storage lock; a push on
// one of its keys, once the push's transaction has committed (NotifyPush),
// calls the wake-up, and the command tries its pop again.
//
// No push is missed: a waiter reads the generation before it tries its
// pop, and every push on a waited key after that try marks the key with a
// later generation (its transaction took the key's stripe after the try
// released it, so it sees the waiter's ticket), which OnPush finds.
//
// First come, first served, as Redis serves clients blocked on one key: a
// waiter holds a Ticket for the keys it pops from, and pops from a key
// only while no waiter with an earlier ticket waits on it. A waiter that
// leaves (served, timed out, gone) counts as a push on its keys, so that
// the next in line tries again: two elements pushed at once go to the
// first two waiters.

#include <atomic>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::resp {

class PopWaiters {
 public:
  // What a waiter pops: waiters for lists and for sorted sets stand in
  // separate lines on a key, so that one waiting for the type the key does
  // not hold (and skipping it) never holds up one waiting for the type it
  // does.
  enum class Kind : char { kList = 'l', kZset = 'z' };

  // A waiter's place in line on each of `names` (the storage names of the
  // keys it pops from), for its lifetime. While any ticket exists, pushes
  // do the work of waking; with none, a push costs one atomic load.
  class Ticket {
   public:
    Ticket(PopWaiters* waiters, Kind kind, std::vector<std::string> names);
    ~Ticket();
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    // Whether no waiter of its kind that came earlier waits on `name`.
    bool First(const std::string& name) const;
    const std::vector<std::string>& names() const { return names_; }

   private:
    PopWaiters* const waiters_;
    const Kind kind_;
    const std::vector<std::string> names_;
    uint64_t number_ = 0;
  };

  // Pushes seen so far; a waiter reads it before each try.
  uint64_t generation() const;
  // Called once a transaction that added to the list or sorted set `name`
  // (a storage name) has committed: wakes the waiters on it.
  void NotifyPush(const std::string& name);
  // Leaves `wake` to be called once, from the thread of a push (or of
  // Stop), at the first push on one of `names` after the generation
  // `seen`; returns its id for Cancel. Returns 0 without keeping `wake`
  // when there has been such a push already, or after Stop: the caller
  // tries again at once.
  uint64_t OnPush(uint64_t seen, const std::vector<std::string>& names,
                  std::function<void()> wake);
  // Forgets the wake-up `id` if it was not called yet.
  void Cancel(uint64_t id);
  // Calls every wake-up, for good: the server is shutting down.
  void Stop();
  bool stopped() const;

 private:
  struct WakeUp {
    std::vector<std::string> names;
    std::function<void()> wake;
  };
  // A push on `name` (or a waiter leaving it): marks it if someone waits
  // on it and moves the wake-ups left on it to `due`.
  void PushedLocked(const std::string& name,
                    std::vector<std::function<void()>>* due)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool WaitedLocked(const std::string& name) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void ForgetLocked(uint64_t id, std::vector<std::function<void()>>* due)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::atomic<int> tickets_{0};
  mutable absl::Mutex mu_;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  // Per kind and key (the kind's char, then the key), the tickets of its
  // waiters, the first first.
  absl::flat_hash_map<std::string, std::set<uint64_t>> lines_
      ABSL_GUARDED_BY(mu_);
  // Per key waited on (by a waiter of either kind), the generation of its
  // last push.
  absl::flat_hash_map<std::string, uint64_t> pushed_at_ ABSL_GUARDED_BY(mu_);
  // Wake-ups not called yet, by id, and their ids by key.
  uint64_t next_wake_up_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<uint64_t, WakeUp> wake_ups_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, absl::flat_hash_set<uint64_t>> waking_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_POP_WAITERS_H_
