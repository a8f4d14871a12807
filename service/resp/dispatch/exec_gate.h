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

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::resp {

class ExecGate {
 public:
  enum class Hold { kNone, kShared, kExclusive };

  // Holds `gate` shared for its scope, if `take` and the calling thread
  // holds nothing yet.
  class Shared {
   public:
    Shared(ExecGate& gate, bool take);
    ~Shared();
    Shared(const Shared&) = delete;
    Shared& operator=(const Shared&) = delete;

   private:
    ExecGate* taken_ = nullptr;
  };

  // Holds `gate` exclusively for its scope (EXEC).
  class Exclusive {
   public:
    explicit Exclusive(ExecGate& gate);
    ~Exclusive();
    Exclusive(const Exclusive&) = delete;
    Exclusive& operator=(const Exclusive&) = delete;

   private:
    ExecGate& gate_;
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
  absl::Mutex mu_;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_EXEC_GATE_H_
