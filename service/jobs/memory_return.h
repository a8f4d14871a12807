#ifndef TRACKDB_SERVICE_JOBS_MEMORY_RETURN_H_
#define TRACKDB_SERVICE_JOBS_MEMORY_RETURN_H_

// Gives memory that trackd freed back to the OS. glibc's malloc keeps what
// its per-thread arenas free for reuse and returns only the top of the main
// arena: after a client's burst (a 64 MiB gRPC header block, 10,000 streams
// opened and reset, a large reply) the freed memory stayed in trackd's RSS
// (+70 MiB) although nothing used it, and the memory budget could not hold.
//
// A thread looks every `interval`: when the process's resident memory grew
// by more than `threshold` over its lowest since the last trim, and malloc
// holds more than `threshold` free, it trims the arenas (malloc_trim: ~10
// ms of one core per 100 MiB returned, each arena briefly locked).
// Trimming does not change what malloc counts as free, so resident growth
// is what says there is something to return; memory that stays after a
// trim is in use, and growth is measured from there.

#include <cstdint>

#include "absl/time/time.h"
#include "service/jobs/stoppable_thread.h"

namespace trackdb::service {

class MemoryReturner {
 public:
  // With a zero interval no thread runs; MaybeReturn() is called by hand.
  MemoryReturner(absl::Duration interval, uint64_t threshold_bytes);

  // One look, as the thread takes: true if it trimmed.
  bool MaybeReturn();

  static uint64_t ResidentBytes();  // of this process
  static uint64_t FreeHeldBytes();  // free in malloc's arenas

 private:
  void Run();

  const absl::Duration interval_;
  const uint64_t threshold_bytes_;
  uint64_t low_mark_ = 0;  // resident bytes; only the looking thread
  StoppableThread thread_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_JOBS_MEMORY_RETURN_H_
