#ifndef TRACKDB_SERVICE_RESP_DISPATCH_EXEC_GATE_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_EXEC_GATE_H_

// What makes EXEC isolated, as Redis's is: no other client's command runs
// between a transaction's commands. Every RESP command that reads or
// writes keys runs holding the gate shared (command.cc Dispatch and
// DispatchGroup); EXEC holds it exclusively while it runs its queue, so it
// waits for the commands running and holds off the ones arriving.
//
// Invariants:
//  - A thread holds the gate at most once: a command run from inside
//    another (EXEC's queue, run by Dispatch) takes nothing more.
//  - Nothing waits for another client while holding the gate shared: a
//    blocking pop lets go of it for its wait (Released), or an EXEC would
//    wait for the pop's timeout and every loop behind the EXEC with it.
//  - The gRPC door does not take it: EXEC is isolated from other Redis
//    clients, not from gRPC calls.

#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::resp {

class ExecGate {
 public:
  enum class Hold { kNone, kShared, kExclusive };

  // Holds `gate` shared for its scope, if `take` and the calling thread
  // holds nothing yet. While it waits (an exclusive holder runs), it asks
  // `give_up` every few milliseconds, if given, and stops waiting, holding
  // nothing, once that says so (a script past its time: BUSY).
  class Shared {
   public:
    Shared(ExecGate& gate, bool take,
           const std::function<bool()>& give_up = nullptr);
    ~Shared();
    Shared(const Shared&) = delete;
    Shared& operator=(const Shared&) = delete;
    // Whether it gave up waiting.
    bool gave_up() const { return gave_up_; }

   private:
    ExecGate* taken_ = nullptr;
    bool gave_up_ = false;
  };

  // Holds `gate` exclusively for its scope (EXEC, a script). A thread that
  // holds it exclusively already (EVAL run by EXEC) takes nothing more.
  class Exclusive {
   public:
    explicit Exclusive(ExecGate& gate);
    ~Exclusive();
    Exclusive(const Exclusive&) = delete;
    Exclusive& operator=(const Exclusive&) = delete;

   private:
    ExecGate& gate_;
    bool nested_ = false;
  };

  // Lets go of the calling thread's shared hold for its scope, if it has
  // one (a blocking pop's wait); takes it back at the end.
  class Released {
   public:
    explicit Released(ExecGate& gate);
    ~Released();
    Released(const Released&) = delete;
    Released& operator=(const Released&) = delete;

   private:
    ExecGate* released_ = nullptr;
  };

  // What the calling thread holds of any gate.
  static Hold held();

 private:
  void LockShared();
  // False if `give_up` said so before the gate was free.
  bool LockSharedOrGiveUp(const std::function<bool()>& give_up);
  void UnlockShared();
  bool NoWriter() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !writer_ && writers_waiting_ == 0;
  }
  bool Free() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !writer_ && readers_ == 0;
  }

  // A readers-writer lock that prefers writers: readers wait while a
  // writer holds or waits.
  absl::Mutex mu_;
  int readers_ ABSL_GUARDED_BY(mu_) = 0;
  int writers_waiting_ ABSL_GUARDED_BY(mu_) = 0;
  bool writer_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_EXEC_GATE_H_
