#ifndef TRACKDB_SERVICE_RESP_DISPATCH_SHUTDOWN_GATE_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_SHUTDOWN_GATE_H_

// SHUTDOWN's one shutdown at a time: the command begins it, may wait for
// the replicas (SHUTDOWN ABORT from another client ends that wait), then
// hands the stop to the process, which closes the doors and the store as
// SIGTERM does. The process sets how it is stopped; without that (a server
// in a test that set none) SHUTDOWN is refused.

#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trackdb::resp {

class ShutdownGate {
 public:
  // Starts the process's stop and returns at once.
  using ProcessStop = std::function<void()>;
  void set_stop(ProcessStop stop);

  // Begins a shutdown: false when one is already in progress or nothing
  // can stop the process.
  bool Begin();
  // Waits, in the shutdown begun, until `done()`, the deadline, or
  // Abort(): false when aborted (the shutdown is then over).
  bool Wait(const std::function<bool()>& done, absl::Time deadline);
  // Ends the shutdown a Wait is in: false when no Wait is (Redis's ABORT
  // stops only a shutdown waiting for its replicas).
  bool Abort();
  // The shutdown begun failed: the server goes on.
  void Cancel();
  // Hands the stop to the process (not after Stop); the shutdown stays in
  // progress.
  void Finish();
  // The server is stopping anyway: a Wait ends at once, and nothing begins
  // or is handed on after this.
  void Stop();

 private:
  mutable absl::Mutex mu_;
  ProcessStop stop_ ABSL_GUARDED_BY(mu_);
  bool in_progress_ ABSL_GUARDED_BY(mu_) = false;
  bool waiting_ ABSL_GUARDED_BY(mu_) = false;
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_SHUTDOWN_GATE_H_
