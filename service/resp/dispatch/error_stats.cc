#include "service/resp/dispatch/error_stats.h"

#include <algorithm>

namespace trackdb::resp {

void ErrorStats::Note(absl::string_view kind) {
  absl::MutexLock l(&mu_);
  auto it = counts_.find(kind);
  if (it != counts_.end()) {
    ++it->second;
  } else if (counts_.size() < kMaxKinds) {
    counts_.emplace(std::string(kind), 1);
  }
}

std::vector<std::pair<std::string, uint64_t>> ErrorStats::Counts() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  {
    absl::MutexLock l(&mu_);
    out.assign(counts_.begin(), counts_.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void ErrorStats::Reset() {
  absl::MutexLock l(&mu_);
  counts_.clear();
}

}  // namespace trackdb::resp
