#include "service/resp/dispatch/exec_gate.h"

namespace trackdb::resp {
namespace {

// What the calling thread holds, and of which gate (tests run several
// servers, so several gates, in one process).
struct ThreadHold {
  ExecGate::Hold hold = ExecGate::Hold::kNone;
  ExecGate* gate = nullptr;
};
thread_local ThreadHold held_by_thread;

}  // namespace

ExecGate::Hold ExecGate::held() { return held_by_thread.hold; }

ExecGate::Shared::Shared(ExecGate& gate, bool take) {
  if (!take || held_by_thread.hold != Hold::kNone) return;
  gate.mu_.ReaderLock();
  held_by_thread = {Hold::kShared, &gate};
  taken_ = &gate;
}

ExecGate::Shared::~Shared() {
  if (taken_ == nullptr) return;
  held_by_thread = {};
  taken_->mu_.ReaderUnlock();
}

ExecGate::Exclusive::Exclusive(ExecGate& gate) : gate_(gate) {
  // EXEC runs from Dispatch, which takes no shared hold for it; a thread
  // holding one here would deadlock.
  gate_.mu_.Lock();
  held_by_thread = {Hold::kExclusive, &gate_};
}

ExecGate::Exclusive::~Exclusive() {
  held_by_thread = {};
  gate_.mu_.Unlock();
}

ExecGate::Released::Released(ExecGate& gate) {
  if (held_by_thread.hold != Hold::kShared || held_by_thread.gate != &gate) {
    return;
  }
  held_by_thread = {};
  gate.mu_.ReaderUnlock();
  released_ = &gate;
}

ExecGate::Released::~Released() {
  if (released_ == nullptr) return;
  released_->mu_.ReaderLock();
  held_by_thread = {Hold::kShared, released_};
}

}  // namespace trackdb::resp
