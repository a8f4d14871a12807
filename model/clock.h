#ifndef TRACKDB_MODEL_CLOCK_H_
#define TRACKDB_MODEL_CLOCK_H_

// The front doors' clock: wall-clock time in milliseconds since the Unix
// epoch, the unit of point times and string expiries. One definition, so
// that gRPC and RESP stamp and expire by the same time.

#include <chrono>
#include <cstdint>

namespace trackdb {

inline int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace trackdb

#endif  // TRACKDB_MODEL_CLOCK_H_
