#ifndef TRACKDB_SERVICE_RESP_POP_WAITERS_H_
#define TRACKDB_SERVICE_RESP_POP_WAITERS_H_

// What wakes the blocking pops of the RESP door (BLPOP, BRPOP, BLMOVE,
// BRPOPLPUSH, BLMPOP on lists; BZPOPMIN, BZPOPMAX, BZMPOP on sorted sets):
// a command that found nothing to pop waits here, on a worker thread and
// holding no storage lock, and tries its pop again each time a push (a
// list push, a ZADD or ZINCRBY, a sorted set stored) has committed.
//
// One generation counter for every key: a push wakes every waiting
// command, each of which tries its own keys again (one small transaction).
// A waiting command holds a worker thread, so there are never more of them
// than workers, and a counter per name would save little.
//
// No push is missed: a waiter reads the generation before it tries its
// pop, and a push that commits after that try bumps the generation (its
// transaction took the name's stripe after the try released it, so it sees
// the waiter registered).
//
// First come, first served, as Redis serves clients blocked on one key: a
// waiter holds a Ticket for the keys it pops from, and pops from a key
// only while no waiter with an earlier ticket waits on it. A waiter that
// leaves (served, timed out) bumps the generation, so that the next in line
// tries again: two elements pushed at once go to the first two waiters.

#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trackdb::resp {

class PopWaiters {
 public:
  // Registers a waiting command for its lifetime: pushes bump the
  // generation only while someone is registered, which keeps a push's
  // cost, when no one waits, to one atomic load.
  class Registration {
   public:
    explicit Registration(PopWaiters* waiters) : waiters_(waiters) {
      waiters_->registered_.fetch_add(1);
    }
    ~Registration() { waiters_->registered_.fetch_sub(1); }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;

   private:
    PopWaiters* const waiters_;
  };

  // What a waiter pops: waiters for lists and for sorted sets stand in
  // separate lines on a key, so that one waiting for the type the key does
  // not hold (and skipping it) never holds up one waiting for the type it
  // does.
  enum class Kind : char { kList = 'l', kZset = 'z' };

  // A waiter's place in line on each of `names` (the keys it pops from),
  // for its lifetime; it registers the waiter as Registration does.
  class Ticket {
   public:
    Ticket(PopWaiters* waiters, Kind kind, std::vector<std::string> names);
    ~Ticket();
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    // Whether no waiter of its kind that came earlier waits on `name`.
    bool First(const std::string& name) const;

   private:
    PopWaiters* const waiters_;
    const Registration registration_;
    const Kind kind_;
    const std::vector<std::string> names_;
    uint64_t number_ = 0;
  };

  // Pushes seen so far; a waiter reads it before each try.
  uint64_t generation() const;
  // Called once a transaction that added to a list or sorted set has
  // committed.
  void NotifyPush();
  // Waits until a push after `seen`, `until`, or Stop(), whichever comes
  // first. False once stopped: the caller gives up waiting.
  bool WaitForPush(uint64_t seen, absl::Time until);
  // Wakes every waiter for good (the server is shutting down, and its
  // workers must finish).
  void Stop();

 private:
  std::atomic<int> registered_{0};
  mutable absl::Mutex mu_;
  absl::CondVar pushed_;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  // Per kind and key (the kind's char, then the key), the tickets of its
  // waiters, the first first.
  absl::flat_hash_map<std::string, std::set<uint64_t>> lines_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_POP_WAITERS_H_
