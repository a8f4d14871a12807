// ThreadSanitizer's view of absl::Mutex, for --config=tsan only (linked
// into every test binary there through --custom_malloc, see .bazelrc).
//
// Debian's absl::Mutex locks inside libabsl_synchronization.so, which is
// not built with TSan: TSan sees none of its locks, and reports every pair
// of accesses the same mutex orders as a race. This file defines the
// mutex's public lock and wait functions in the test binary, which the
// dynamic linker then prefers to the library's (for trackdb's calls, and
// for gRPC's and the library's own calls through the PLT); each one tells
// TSan what happens (tsan_interface.h's __tsan_mutex_* annotations, the
// same ones absl's own source makes when absl itself is built with TSan)
// and forwards to the library's function, found with dlsym(RTLD_NEXT).
//
// The mangled names carry Debian's inline namespace (absl::debian3); a
// name not found aborts at the first call, saying which.

#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace {

// The library's own function `mangled`, of type F.
template <typename F>
F Real(const char* mangled) {
  void* f = dlsym(RTLD_NEXT, mangled);
  if (f == nullptr) {
    std::fprintf(stderr, "tsan_absl_mutex: %s not found: %s\n", mangled,
                 dlerror());
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

// Whether `mu` is held in shared (reader) mode: absl's mutex word, its only
// member, has kMuWriter (0x8) set while a writer holds it.
unsigned HeldMode(const absl::Mutex* mu) {
  const auto* word = reinterpret_cast<const std::atomic<intptr_t>*>(mu);
  return (word->load(std::memory_order_relaxed) & 0x8) != 0
             ? 0
             : __tsan_mutex_read_lock;
}

// Whether this thread is inside one of the functions below: the library's
// own functions call each other (CondVar::WaitWithTimeout calls
// WaitWithDeadline, through the PLT and so through this file), and only the
// outermost call is the one TSan must hear of.
thread_local bool inside = false;

class Outermost {
 public:
  Outermost() : outermost_(!inside) { inside = true; }
  ~Outermost() {
    if (outermost_) inside = false;
  }
  explicit operator bool() const { return outermost_; }

 private:
  const bool outermost_;
};

template <typename Lock>
auto Locking(absl::Mutex* mu, unsigned mode, Lock lock) {
  const Outermost outermost;
  if (!outermost) return lock();
  __tsan_mutex_pre_lock(mu, mode);
  auto result = lock();
  __tsan_mutex_post_lock(mu, mode, 0);
  return result;
}

// TSan's view of a wait on held `mu` (Await, CondVar::Wait): the mutex is
// released, then held again as it was.
template <typename Wait>
auto WaitOn(absl::Mutex* mu, Wait wait) {
  if (inside) return wait();
  const unsigned mode = HeldMode(mu);
  __tsan_mutex_pre_unlock(mu, mode);
  __tsan_mutex_post_unlock(mu, mode);
  return Locking(mu, mode, wait);
}

template <typename TryLock>
bool TryLocking(absl::Mutex* mu, unsigned mode, TryLock try_lock) {
  const Outermost outermost;
  if (!outermost) return try_lock();
  mode |= __tsan_mutex_try_lock;
  __tsan_mutex_pre_lock(mu, mode);
  const bool locked = try_lock();
  __tsan_mutex_post_lock(
      mu, locked ? mode : mode | __tsan_mutex_try_lock_failed, 0);
  return locked;
}

template <typename Unlock>
void Unlocking(absl::Mutex* mu, unsigned mode, Unlock unlock) {
  const Outermost outermost;
  if (!outermost) return unlock();
  __tsan_mutex_pre_unlock(mu, mode);
  unlock();
  __tsan_mutex_post_unlock(mu, mode);
}

constexpr unsigned kRead = __tsan_mutex_read_lock;

}  // namespace

#define TSAN_ABSL_REAL(type, mangled) \
  static const auto real = Real<type>("_ZN4absl7debian3" mangled)

namespace absl {
inline namespace debian3 {

Mutex::~Mutex() {
  TSAN_ABSL_REAL(void (*)(Mutex*), "5MutexD2Ev");
  __tsan_mutex_destroy(this, 0);
  real(this);
}

void Mutex::Lock() {
  TSAN_ABSL_REAL(void (*)(Mutex*), "5Mutex4LockEv");
  Locking(this, 0, [this] { return (real(this), 0); });
}

void Mutex::ReaderLock() {
  TSAN_ABSL_REAL(void (*)(Mutex*), "5Mutex10ReaderLockEv");
  Locking(this, kRead, [this] { return (real(this), 0); });
}

void Mutex::Unlock() {
  TSAN_ABSL_REAL(void (*)(Mutex*), "5Mutex6UnlockEv");
  Unlocking(this, 0, [this] { real(this); });
}

void Mutex::ReaderUnlock() {
  TSAN_ABSL_REAL(void (*)(Mutex*), "5Mutex12ReaderUnlockEv");
  Unlocking(this, kRead, [this] { real(this); });
}

bool Mutex::TryLock() {
  TSAN_ABSL_REAL(bool (*)(Mutex*), "5Mutex7TryLockEv");
  return TryLocking(this, 0, [this] { return real(this); });
}

bool Mutex::ReaderTryLock() {
  TSAN_ABSL_REAL(bool (*)(Mutex*), "5Mutex13ReaderTryLockEv");
  return TryLocking(this, kRead, [this] { return real(this); });
}

void Mutex::LockWhen(const Condition& cond) {
  TSAN_ABSL_REAL(void (*)(Mutex*, const Condition&),
                 "5Mutex8LockWhenERKNS0_9ConditionE");
  Locking(this, 0, [&] { return (real(this, cond), 0); });
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  TSAN_ABSL_REAL(void (*)(Mutex*, const Condition&),
                 "5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  Locking(this, kRead, [&] { return (real(this, cond), 0); });
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  TSAN_ABSL_REAL(bool (*)(Mutex*, const Condition&, Duration),
                 "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Locking(this, 0, [&] { return real(this, cond, timeout); });
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  TSAN_ABSL_REAL(bool (*)(Mutex*, const Condition&, Time),
                 "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Locking(this, 0, [&] { return real(this, cond, deadline); });
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond, Duration timeout) {
  TSAN_ABSL_REAL(
      bool (*)(Mutex*, const Condition&, Duration),
      "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Locking(this, kRead, [&] { return real(this, cond, timeout); });
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, Time deadline) {
  TSAN_ABSL_REAL(
      bool (*)(Mutex*, const Condition&, Time),
      "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Locking(this, kRead, [&] { return real(this, cond, deadline); });
}

void Mutex::Await(const Condition& cond) {
  TSAN_ABSL_REAL(void (*)(Mutex*, const Condition&),
                 "5Mutex5AwaitERKNS0_9ConditionE");
  WaitOn(this, [&] { return (real(this, cond), 0); });
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  TSAN_ABSL_REAL(bool (*)(Mutex*, const Condition&, Duration),
                 "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return WaitOn(this, [&] { return real(this, cond, timeout); });
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  TSAN_ABSL_REAL(bool (*)(Mutex*, const Condition&, Time),
                 "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return WaitOn(this, [&] { return real(this, cond, deadline); });
}

void CondVar::Wait(Mutex* mu) {
  TSAN_ABSL_REAL(void (*)(CondVar*, Mutex*), "7CondVar4WaitEPNS0_5MutexE");
  WaitOn(mu, [&] { return (real(this, mu), 0); });
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  TSAN_ABSL_REAL(bool (*)(CondVar*, Mutex*, Duration),
                 "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  return WaitOn(mu, [&] { return real(this, mu, timeout); });
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  TSAN_ABSL_REAL(bool (*)(CondVar*, Mutex*, Time),
                 "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  return WaitOn(mu, [&] { return real(this, mu, deadline); });
}

}  // namespace debian3
}  // namespace absl
