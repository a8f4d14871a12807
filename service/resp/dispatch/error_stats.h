#ifndef TRACKDB_SERVICE_RESP_DISPATCH_ERROR_STATS_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_ERROR_STATS_H_

// INFO errorstats: how many error replies of each kind ("ERR",
// "WRONGTYPE", "NOAUTH": the word after '-') the server has sent, as
// Redis counts them (refusals included), up to Redis's 128 kinds (more
// count under none; Redis then stops tracking new kinds too). CONFIG
// RESETSTAT clears them. Thread-safe.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::resp {

class ErrorStats {
 public:
  static constexpr size_t kMaxKinds = 128;

  // One error reply of `kind` ("WRONGTYPE").
  void Note(absl::string_view kind);
  void Note(const std::vector<std::string>& kinds) {
    for (const std::string& kind : kinds) Note(kind);
  }
  // Every kind with its count, by kind.
  std::vector<std::pair<std::string, uint64_t>> Counts() const;
  void Reset();

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, uint64_t> counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_ERROR_STATS_H_
