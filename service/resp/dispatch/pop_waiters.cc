#include "service/resp/dispatch/pop_waiters.h"

#include <string>
#include <utility>

namespace trackdb::resp {

namespace {

constexpr PopWaiters::Kind kKinds[] = {PopWaiters::Kind::kList,
                                       PopWaiters::Kind::kZset};

std::string LineOf(PopWaiters::Kind kind, const std::string& name) {
  std::string line(1, static_cast<char>(kind));
  line += name;
  return line;
}

}  // namespace

PopWaiters::Ticket::Ticket(PopWaiters* waiters, Kind kind,
                           std::vector<std::string> names)
    : waiters_(waiters), kind_(kind), names_(std::move(names)) {
  waiters_->tickets_.fetch_add(1);
  absl::MutexLock l(&waiters_->mu_);
  number_ = waiters_->next_ticket_++;
  for (const std::string& name : names_) {
    waiters_->lines_[LineOf(kind_, name)].insert(number_);
  }
}

PopWaiters::Ticket::~Ticket() {
  // Called (the next in line) and destroyed (this one's, if left) after
  // the lock is released: a wake-up may hold the last reference to what
  // waits.
  WakeUps due, forgotten;
  {
    absl::MutexLock l(&waiters_->mu_);
    waiters_->TakeWakeUpLocked(number_, &forgotten);
    for (const std::string& name : names_) {
      auto line = waiters_->lines_.find(LineOf(kind_, name));
      if (line != waiters_->lines_.end()) {
        line->second.erase(number_);
        if (line->second.empty()) waiters_->lines_.erase(line);
      }
      // The next in line may pop what this waiter left.
      waiters_->PushedLocked(name, &due);
    }
  }
  waiters_->tickets_.fetch_sub(1);
  for (std::function<void()>& wake : due) wake();
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

void PopWaiters::TakeWakeUpLocked(uint64_t ticket, WakeUps* due) {
  auto it = wake_ups_.find(ticket);
  if (it == wake_ups_.end()) return;
  due->push_back(std::move(it->second));
  wake_ups_.erase(it);
}

void PopWaiters::PushedLocked(const std::string& name, WakeUps* due) {
  ++generation_;
  bool waited = false;
  for (Kind kind : kKinds) {
    auto line = lines_.find(LineOf(kind, name));
    if (line == lines_.end()) continue;
    waited = true;
    TakeWakeUpLocked(*line->second.begin(), due);
  }
  if (waited) {
    pushed_at_[name] = generation_;
  } else {
    pushed_at_.erase(name);
  }
}

void PopWaiters::NotifyPush(const std::string& name) {
  if (tickets_.load() == 0) return;
  WakeUps due;
  {
    absl::MutexLock l(&mu_);
    PushedLocked(name, &due);
  }
  for (std::function<void()>& wake : due) wake();
}

bool PopWaiters::OnPush(const Ticket& ticket, uint64_t seen,
                        std::function<void()> wake) {
  absl::MutexLock l(&mu_);
  if (stopped_) return false;
  for (const std::string& name : ticket.names_) {
    auto pushed = pushed_at_.find(name);
    if (pushed != pushed_at_.end() && pushed->second > seen) return false;
  }
  wake_ups_[ticket.number_] = std::move(wake);
  return true;
}

void PopWaiters::Cancel(const Ticket& ticket) {
  // Destroyed after the lock is released (see ~Ticket).
  WakeUps forgotten;
  absl::MutexLock l(&mu_);
  TakeWakeUpLocked(ticket.number_, &forgotten);
}

void PopWaiters::Stop() {
  WakeUps due;
  {
    absl::MutexLock l(&mu_);
    stopped_ = true;
    for (auto& [ticket, wake] : wake_ups_) due.push_back(std::move(wake));
    wake_ups_.clear();
  }
  for (std::function<void()>& wake : due) wake();
}

bool PopWaiters::stopped() const {
  absl::MutexLock l(&mu_);
  return stopped_;
}

}  // namespace trackdb::resp
