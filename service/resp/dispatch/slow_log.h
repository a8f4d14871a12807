#ifndef TRACKDB_SERVICE_RESP_DISPATCH_SLOW_LOG_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_SLOW_LOG_H_

// Redis's slow log (SLOWLOG GET/LEN/RESET): the newest `max_len` commands
// whose execution took longer than `slower_than_us` microseconds (CONFIG
// slowlog-log-slower-than and slowlog-max-len, Redis's defaults 10000 and
// 128; a negative threshold logs nothing, 0 every command). Each entry
// keeps Redis's shape: an id counting from 0, the Unix time, the duration,
// the arguments (at most 32, each cut to 128 bytes, as Redis cuts them),
// the client's address and name. Unlike Redis, a pipelined group of point
// commands (command.h JoinsGroup), which runs as one transaction, is timed
// and logged once, as its first call. Thread-safe.

#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace trackdb::resp {

class SlowLog {
 public:
  struct Entry {
    int64_t id = 0;
    int64_t unix_s = 0;
    int64_t duration_us = 0;
    std::vector<std::string> argv;
    std::string addr;
    std::string name;
  };

  // Whether a command that took `duration_us` goes into the log: one
  // atomic load, for every command.
  bool Slow(int64_t duration_us) const {
    const int64_t threshold = slower_than_us_.load(std::memory_order_relaxed);
    return threshold >= 0 && duration_us >= threshold;
  }
  void Add(int64_t unix_s, int64_t duration_us,
           const std::vector<std::string>& argv, std::string addr,
           std::string name);
  // The newest `count` entries (all for -1), newest first.
  std::vector<Entry> Newest(int64_t count) const;
  size_t size() const;
  void Reset();

  int64_t slower_than_us() const { return slower_than_us_.load(); }
  void set_slower_than_us(int64_t us) { slower_than_us_.store(us); }
  int64_t max_len() const;
  // Drops the oldest entries past `max_len`.
  void set_max_len(int64_t max_len);

  // Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING.
  static constexpr size_t kMaxArgs = 32;
  static constexpr size_t kMaxArgBytes = 128;

 private:
  void TrimLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::atomic<int64_t> slower_than_us_{10000};
  mutable absl::Mutex mu_;
  int64_t max_len_ ABSL_GUARDED_BY(mu_) = 128;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<Entry> entries_ ABSL_GUARDED_BY(mu_);  // newest first
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_SLOW_LOG_H_
