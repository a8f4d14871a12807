#include "service/resp/dispatch/exec_gate.h"

#include "absl/time/time.h"

namespace trackdb::resp {
namespace {

// What the calling thread holds, and of which gate (tests run several
// servers, so several gates, in one process).
struct ThreadHold {
  ExecGate::Hold hold = ExecGate::Hold::kNone;
  ExecGate* gate = nullptr;
};
thread_local ThreadHold held_by_thread;

// How often a waiting shared holder asks whether to give up.
constexpr absl::Duration kGiveUpPoll = absl::Milliseconds(10);

}  // namespace

ExecGate::Hold ExecGate::held() { return held_by_thread.hold; }

void ExecGate::LockShared() {
  absl::MutexLock l(&mu_);
  mu_.Await(absl::Condition(this, &ExecGate::NoWriter));
  ++readers_;
}

bool ExecGate::LockSharedOrGiveUp(const std::function<bool()>& give_up) {
  absl::MutexLock l(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(this, &ExecGate::NoWriter),
                               kGiveUpPoll)) {
    if (give_up()) return false;
  }
  ++readers_;
  return true;
}

void ExecGate::UnlockShared() {
  absl::MutexLock l(&mu_);
  --readers_;
}

ExecGate::Shared::Shared(ExecGate& gate, bool take,
                         const std::function<bool()>& give_up) {
  if (!take || held_by_thread.hold != Hold::kNone) return;
  if (give_up) {
    if (!gate.LockSharedOrGiveUp(give_up)) {
      gave_up_ = true;
      return;
    }
  } else {
    gate.LockShared();
  }
  held_by_thread = {Hold::kShared, &gate};
  taken_ = &gate;
}

ExecGate::Shared::~Shared() {
  if (taken_ == nullptr) return;
  held_by_thread = {};
  taken_->UnlockShared();
}

ExecGate::Exclusive::Exclusive(ExecGate& gate) : gate_(gate) {
  if (held_by_thread.hold == Hold::kExclusive && held_by_thread.gate == &gate) {
    nested_ = true;
    return;
  }
  // EXEC runs from Dispatch, which takes no shared hold for it; a thread
  // holding one here would deadlock.
  absl::MutexLock l(&gate_.mu_);
  ++gate_.writers_waiting_;
  gate_.mu_.Await(absl::Condition(&gate_, &ExecGate::Free));
  --gate_.writers_waiting_;
  gate_.writer_ = true;
  held_by_thread = {Hold::kExclusive, &gate_};
}

ExecGate::Exclusive::~Exclusive() {
  if (nested_) return;
  held_by_thread = {};
  absl::MutexLock l(&gate_.mu_);
  gate_.writer_ = false;
}

ExecGate::Released::Released(ExecGate& gate) {
  if (held_by_thread.hold != Hold::kShared || held_by_thread.gate != &gate) {
    return;
  }
  held_by_thread = {};
  gate.UnlockShared();
  released_ = &gate;
}

ExecGate::Released::~Released() {
  if (released_ == nullptr) return;
  released_->LockShared();
  held_by_thread = {Hold::kShared, released_};
}

}  // namespace trackdb::resp
