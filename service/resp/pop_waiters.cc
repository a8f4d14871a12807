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

void CallAll(std::vector<std::function<void()>>& due) {
  for (std::function<void()>& wake : due) wake();
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
  std::vector<std::function<void()>> due;
  {
    absl::MutexLock l(&waiters_->mu_);
    for (const std::string& name : names_) {
      auto line = waiters_->lines_.find(LineOf(kind_, name));
      if (line != waiters_->lines_.end()) {
        line->second.erase(number_);
        if (line->second.empty()) waiters_->lines_.erase(line);
      }
      // The next in line may pop what this waiter left.
      waiters_->PushedLocked(name, &due);
      if (!waiters_->WaitedLocked(name)) waiters_->pushed_at_.erase(name);
    }
  }
  waiters_->tickets_.fetch_sub(1);
  CallAll(due);
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

bool PopWaiters::WaitedLocked(const std::string& name) const {
  return lines_.contains(LineOf(Kind::kList, name)) ||
         lines_.contains(LineOf(Kind::kZset, name));
}

void PopWaiters::PushedLocked(const std::string& name,
                              std::vector<std::function<void()>>* due) {
  ++generation_;
  if (WaitedLocked(name)) pushed_at_[name] = generation_;
  auto waking = waking_.find(name);
  if (waking == waking_.end()) return;
  const absl::flat_hash_set<uint64_t> ids = waking->second;
  for (uint64_t id : ids) ForgetLocked(id, due);
}

void PopWaiters::ForgetLocked(uint64_t id,
                              std::vector<std::function<void()>>* due) {
  auto it = wake_ups_.find(id);
  if (it == wake_ups_.end()) return;
  for (const std::string& name : it->second.names) {
    auto waking = waking_.find(name);
    if (waking == waking_.end()) continue;
    waking->second.erase(id);
    if (waking->second.empty()) waking_.erase(waking);
  }
  due->push_back(std::move(it->second.wake));
  wake_ups_.erase(it);
}

void PopWaiters::NotifyPush(const std::string& name) {
  if (tickets_.load() == 0) return;
  std::vector<std::function<void()>> due;
  {
    absl::MutexLock l(&mu_);
    PushedLocked(name, &due);
  }
  CallAll(due);
}

uint64_t PopWaiters::OnPush(uint64_t seen,
                            const std::vector<std::string>& names,
                            std::function<void()> wake) {
  absl::MutexLock l(&mu_);
  if (stopped_) return 0;
  for (const std::string& name : names) {
    auto pushed = pushed_at_.find(name);
    if (pushed != pushed_at_.end() && pushed->second > seen) return 0;
  }
  const uint64_t id = ++next_wake_up_;
  for (const std::string& name : names) waking_[name].insert(id);
  wake_ups_[id] = WakeUp{names, std::move(wake)};
  return id;
}

void PopWaiters::Cancel(uint64_t id) {
  // Destroyed after the lock is released: a wake-up may hold the last
  // reference to what waits, whose end may drop a ticket (and take mu_).
  std::vector<std::function<void()>> forgotten;
  absl::MutexLock l(&mu_);
  ForgetLocked(id, &forgotten);
}

void PopWaiters::Stop() {
  std::vector<std::function<void()>> due;
  {
    absl::MutexLock l(&mu_);
    stopped_ = true;
    for (auto& [id, wake_up] : wake_ups_)
      due.push_back(std::move(wake_up.wake));
    wake_ups_.clear();
    waking_.clear();
  }
  CallAll(due);
}

bool PopWaiters::stopped() const {
  absl::MutexLock l(&mu_);
  return stopped_;
}

}  // namespace trackdb::resp
