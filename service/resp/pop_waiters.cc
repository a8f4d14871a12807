#include "service/resp/pop_waiters.h"

#include <string>
#include <utility>

namespace trackdb::resp {

namespace {

std::string LineOf(PopWaiters::Kind kind, const std::string& name) {
  std::string line(1, static_cast<char>(kind));
  line += name;
  return line;
}

}  // namespace

PopWaiters::Ticket::Ticket(PopWaiters* waiters, Kind kind,
                           std::vector<std::string> names)
    : waiters_(waiters),
      registration_(waiters),
      kind_(kind),
      names_(std::move(names)) {
  absl::MutexLock l(&waiters_->mu_);
  number_ = waiters_->next_ticket_++;
  for (const std::string& name : names_) {
    waiters_->lines_[LineOf(kind_, name)].insert(number_);
  }
}

PopWaiters::Ticket::~Ticket() {
  absl::MutexLock l(&waiters_->mu_);
  for (const std::string& name : names_) {
    auto line = waiters_->lines_.find(LineOf(kind_, name));
    if (line == waiters_->lines_.end()) continue;
    line->second.erase(number_);
    if (line->second.empty()) waiters_->lines_.erase(line);
  }
  // The next in line may pop what this waiter left.
  ++waiters_->generation_;
  waiters_->pushed_.SignalAll();
}

bool PopWaiters::Ticket::First(const std::string& name) const {
  absl::MutexLock l(&waiters_->mu_);
  auto line = waiters_->lines_.find(LineOf(kind_, name));
  return line == waiters_->lines_.end() || line->second.empty() ||
         *line->second.begin() == number_;
}

uint64_t PopWaiters::generation() const {
  absl::MutexLock l(&mu_);
  return generation_;
}

void PopWaiters::NotifyPush() {
  if (registered_.load() == 0) return;
  absl::MutexLock l(&mu_);
  ++generation_;
  pushed_.SignalAll();
}

bool PopWaiters::WaitForPush(uint64_t seen, absl::Time until) {
  absl::MutexLock l(&mu_);
  while (!stopped_ && generation_ == seen) {
    if (pushed_.WaitWithDeadline(&mu_, until)) break;  // timed out
  }
  return !stopped_;
}

void PopWaiters::Stop() {
  absl::MutexLock l(&mu_);
  stopped_ = true;
  pushed_.SignalAll();
}

}  // namespace trackdb::resp
