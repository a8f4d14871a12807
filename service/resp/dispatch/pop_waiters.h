#ifndef TRACKDB_SERVICE_RESP_DISPATCH_POP_WAITERS_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_POP_WAITERS_H_

// What wakes the blocking pops of the RESP door (BLPOP, BRPOP, BLMOVE,
// BRPOPLPUSH, BLMPOP on lists; BZPOPMIN, BZPOPMAX, BZMPOP on sorted sets):
// a command that found nothing to pop leaves a wake-up here (OnPush) and
// its connection waits, holding no thread and no storage lock; a push on
// one of its keys, once the push's transaction has committed (NotifyPush),
// calls the wake-up, and the command tries its pop again.
//
// First come, first served, as Redis serves clients blocked on one key: a
// waiter holds a Ticket for the keys it pops from, and pops from a key
// only while no waiter with an earlier ticket waits on it. So a push on a
// key wakes only the first waiter in line there (of each kind); a waiter
// that leaves (served, timed out, gone) counts as a push on its keys, which
// wakes the next in line: two elements pushed at once go to the first two
// waiters, and a push costs one retry, not one per waiter.
//
// No push is missed: a waiter reads the generation before it tries its
// pop, and every push on a waited key after that try marks the key with a
// later generation (its transaction took the key's stripe after the try
// released it, so it sees the waiter's ticket), which OnPush finds.

#include <atomic>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

   private:
    friend class PopWaiters;
    PopWaiters* const waiters_;
    const Kind kind_;
    const std::vector<std::string> names_;
    uint64_t number_ = 0;
  };

  // Whether any waiter holds a ticket: a push need not call NotifyPush
  // otherwise. Asked inside the push's transaction, it cannot miss a
  // waiter whose try came before (the ticket is taken before the try).
  bool anyone_waiting() const { return tickets_.load() > 0; }
  // Pushes seen so far; a waiter reads it before each try.
  uint64_t generation() const;
  // Called once a transaction that added to the list or sorted set `name`
  // (a storage name) has committed: wakes the first waiters in line there.
  void NotifyPush(const std::string& name);
  // Leaves `wake` to be called once, from the thread of a push (or of
  // Stop), when `ticket`'s turn comes after a push on one of its keys
  // since the generation `seen`; true if kept. False, without keeping
  // `wake`, when there has been such a push already, or after Stop: the
  // caller tries again at once. One wake-up per ticket at a time.
  bool OnPush(const Ticket& ticket, uint64_t seen, std::function<void()> wake);
  // Forgets `ticket`'s wake-up if it was not called yet.
  void Cancel(const Ticket& ticket);
  // Calls every wake-up, for good: the server is shutting down.
  void Stop();
  bool stopped() const;

 private:
  using WakeUps = std::vector<std::function<void()>>;
  // A push on `name` (or a waiter leaving it): marks it if someone waits
  // on it and moves the wake-up of the first waiter of each kind to `due`.
  void PushedLocked(const std::string& name, WakeUps* due)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TakeWakeUpLocked(uint64_t ticket, WakeUps* due)
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
  // Wake-ups not called yet, by ticket.
  absl::flat_hash_map<uint64_t, std::function<void()>> wake_ups_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_POP_WAITERS_H_
