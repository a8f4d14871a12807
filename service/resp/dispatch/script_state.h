#ifndef TRACKDB_SERVICE_RESP_DISPATCH_SCRIPT_STATE_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_SCRIPT_STATE_H_

// What the server knows of Lua scripts (service/resp/scripting/): the
// script cache EVAL fills and EVALSHA reads (by the SHA1 of the body, as
// Redis's; not kept across restarts, as Redis's is not), and the script
// running now, if any, for the BUSY replies and SCRIPT KILL.
//
// A script runs holding the exec gate exclusively (exec_gate.h), so at
// most one runs at a time. Once it has run for longer than
// busy-reply-threshold (lua-time-limit), other clients' commands are
// answered BUSY instead of waiting, as Redis answers, except the few
// Redis lets through (SCRIPT KILL, SHUTDOWN NOSAVE, ...). Thread-safe.

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::resp {

inline constexpr char kBusyScriptError[] =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
    "SHUTDOWN NOSAVE.";

class ScriptState {
 public:
  // The cache: lower-case hex SHA1 -> body.
  void Put(const std::string& sha, const std::string& body) {
    absl::MutexLock l(&mu_);
    scripts_.try_emplace(sha, body);
  }
  std::optional<std::string> Get(const std::string& sha) const {
    absl::MutexLock l(&mu_);
    auto it = scripts_.find(sha);
    if (it == scripts_.end()) return std::nullopt;
    return it->second;
  }
  void Flush() {
    absl::MutexLock l(&mu_);
    scripts_.clear();
  }
  size_t size() const {
    absl::MutexLock l(&mu_);
    return scripts_.size();
  }

  // The running script. Started/Ended bracket a run. A run that has
  // written may not be killed (SCRIPT KILL answers UNKILLABLE), and once a
  // kill is asked for, no write starts: the two decide under one lock, so
  // a killed script never leaves a write half of it meant to make.
  void Started(int64_t now_ms) {
    absl::MutexLock l(&run_mu_);
    wrote_ = false;
    kill_ = false;
    killing_.store(false);
    started_ms_.store(now_ms);
  }
  void Ended() {
    absl::MutexLock l(&run_mu_);
    started_ms_.store(0);
    kill_ = false;
    killing_.store(false);
  }
  bool running() const { return started_ms_.load() != 0; }
  // Before a script's write: false (refused) if a kill is pending.
  bool NoteWrite() {
    absl::MutexLock l(&run_mu_);
    if (kill_) return false;
    wrote_ = true;
    return true;
  }
  enum class Kill { kAsked, kNotBusy, kUnkillable };
  Kill RequestKill() {
    absl::MutexLock l(&run_mu_);
    if (started_ms_.load() == 0) return Kill::kNotBusy;
    if (wrote_) return Kill::kUnkillable;
    kill_ = true;
    killing_.store(true);
    return Kill::kAsked;
  }
  // Whether the running script is to stop (read by its hook, lock-free).
  bool killing() const { return killing_.load(); }
  // Running for longer than the threshold at `now_ms`.
  bool Busy(int64_t now_ms) const {
    const int64_t started = started_ms_.load();
    return started != 0 && now_ms - started >= busy_threshold_ms.load();
  }
  // busy-reply-threshold and its old name lua-time-limit, in ms (0: at once).
  std::atomic<int64_t> busy_threshold_ms{5000};

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::string> scripts_ ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> started_ms_{0};
  std::atomic<bool> killing_{false};
  absl::Mutex run_mu_;
  bool wrote_ ABSL_GUARDED_BY(run_mu_) = false;
  bool kill_ ABSL_GUARDED_BY(run_mu_) = false;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_SCRIPT_STATE_H_
