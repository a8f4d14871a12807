#include "service/resp/dispatch/slow_log.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace trackdb::resp {
namespace {

// Redis's slowlogCreateEntry: past kMaxArgs, the last kept argument says
// how many more there were; an argument past kMaxArgBytes is cut, saying
// how many bytes more.
std::vector<std::string> LoggedArgs(const std::vector<std::string>& argv) {
  const size_t kept = std::min(argv.size(), SlowLog::kMaxArgs);
  std::vector<std::string> out;
  out.reserve(kept);
  for (size_t i = 0; i < kept; ++i) {
    if (kept != argv.size() && i == kept - 1) {
      out.push_back(
          absl::StrCat("... (", argv.size() - kept + 1, " more arguments)"));
    } else if (argv[i].size() > SlowLog::kMaxArgBytes) {
      out.push_back(
          absl::StrCat(argv[i].substr(0, SlowLog::kMaxArgBytes), "... (",
                       argv[i].size() - SlowLog::kMaxArgBytes, " more bytes)"));
    } else {
      out.push_back(argv[i]);
    }
  }
  return out;
}

}  // namespace

void SlowLog::Add(int64_t unix_s, int64_t duration_us,
                  const std::vector<std::string>& argv, std::string addr,
                  std::string name) {
  Entry entry;
  entry.unix_s = unix_s;
  entry.duration_us = duration_us;
  entry.argv = LoggedArgs(argv);
  entry.addr = std::move(addr);
  entry.name = std::move(name);
  absl::MutexLock l(&mu_);
  entry.id = next_id_++;
  entries_.push_front(std::move(entry));
  TrimLocked();
}

std::vector<SlowLog::Entry> SlowLog::Newest(int64_t count) const {
  absl::MutexLock l(&mu_);
  const size_t n = count < 0
                       ? entries_.size()
                       : std::min(entries_.size(), static_cast<size_t>(count));
  return {entries_.begin(), entries_.begin() + n};
}

size_t SlowLog::size() const {
  absl::MutexLock l(&mu_);
  return entries_.size();
}

void SlowLog::Reset() {
  absl::MutexLock l(&mu_);
  entries_.clear();
}

int64_t SlowLog::max_len() const {
  absl::MutexLock l(&mu_);
  return max_len_;
}

void SlowLog::set_max_len(int64_t max_len) {
  absl::MutexLock l(&mu_);
  max_len_ = max_len;
  TrimLocked();
}

void SlowLog::TrimLocked() {
  while (static_cast<int64_t>(entries_.size()) > max_len_) entries_.pop_back();
}

}  // namespace trackdb::resp
