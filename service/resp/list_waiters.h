#ifndef TRACKDB_SERVICE_RESP_LIST_WAITERS_H_
#define TRACKDB_SERVICE_RESP_LIST_WAITERS_H_

// What wakes the blocking list commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH)
// of the RESP door: a command that found nothing to pop waits here, on a
// worker thread and holding no storage lock, and tries its pop again each
// time a list push has committed.
//
// One generation counter for every list: a push wakes every waiting
// command, each of which tries its own keys again (one small transaction).
// A waiting command holds a worker thread, so there are never more of them
// than workers, and a counter per name would save little.
//
// No push is missed: a waiter reads the generation before it tries its
// pop, and a push that commits after that try bumps the generation (its
// transaction took the name's stripe after the try released it, so it sees
// the waiter registered).

#include <atomic>
#include <cstdint>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trackdb::resp {

class ListWaiters {
 public:
  // Registers a waiting command for its lifetime: pushes bump the
  // generation only while someone is registered, which keeps a push's
  // cost, when no one waits, to one atomic load.
  class Registration {
   public:
    explicit Registration(ListWaiters* waiters) : waiters_(waiters) {
      waiters_->registered_.fetch_add(1);
    }
    ~Registration() { waiters_->registered_.fetch_sub(1); }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;

   private:
    ListWaiters* const waiters_;
  };

  // Pushes seen so far; a waiter reads it before each try.
  uint64_t generation() const;
  // Called once a transaction that pushed onto a list has committed.
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
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_LIST_WAITERS_H_
