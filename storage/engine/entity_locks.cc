#include "storage/engine/entity_locks.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/hash/hash.h"

namespace trackdb::storage {

size_t EntityLocks::StripeOf(absl::string_view collection,
                             absl::string_view entity) {
  return absl::HashOf(collection, entity) % kStripes;
}

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

void EntityLocks::LockStripe(Stripe& stripe, bool shared) {
  auto try_lock = [&] {
    return shared ? stripe.mutex.ReaderTryLock() : stripe.mutex.TryLock();
  };
  if (try_lock()) return;
  const int64_t budget =
      SpinBudgetNs(stripe.hold_ns.load(std::memory_order_relaxed));
  const int64_t start = NowNs();
  do {
    // Polls between clock reads: a read costs more than a pause.
    for (int i = 0; i < 16; ++i) {
      CpuRelax();
      if (try_lock()) return;
    }
  } while (NowNs() - start < budget);
  shared ? stripe.mutex.ReaderLock() : stripe.mutex.Lock();
}

EntityLocks::Held EntityLocks::Lock(std::vector<size_t> stripes, bool shared) {
  std::vector<size_t> none;
  if (shared) return Lock(std::move(none), std::move(stripes));
  return Lock(std::move(stripes), std::move(none));
}

EntityLocks::Held EntityLocks::Lock(std::vector<size_t> exclusive,
                                    std::vector<size_t> shared) {
  std::vector<Held::Taken> taken;
  taken.reserve(exclusive.size() + shared.size());
  for (size_t s : exclusive) taken.push_back({s, false});
  for (size_t s : shared) taken.push_back({s, true});
  // By stripe, exclusive first, so that the first of each stripe decides.
  std::sort(taken.begin(), taken.end(),
            [](const Held::Taken& a, const Held::Taken& b) {
              return a.stripe != b.stripe ? a.stripe < b.stripe
                                          : a.shared < b.shared;
            });
  taken.erase(std::unique(taken.begin(), taken.end(),
                          [](const Held::Taken& a, const Held::Taken& b) {
                            return a.stripe == b.stripe;
                          }),
              taken.end());
  for (const Held::Taken& t : taken) LockStripe(stripes_[t.stripe], t.shared);
  return Held(this, std::move(taken));
}

EntityLocks::Held::Held(EntityLocks* owner, std::vector<Taken> taken)
    : owner_(owner), taken_(std::move(taken)), locked_at_ns_(NowNs()) {}

EntityLocks::Held::Held(Held&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      taken_(std::move(other.taken_)),
      locked_at_ns_(other.locked_at_ns_) {}

EntityLocks::Held::~Held() {
  if (owner_ == nullptr) return;
  const int64_t held_ns = NowNs() - locked_at_ns_;
  for (auto it = taken_.rbegin(); it != taken_.rend(); ++it) {
    Stripe& stripe = owner_->stripes_[it->stripe];
    const int64_t average = stripe.hold_ns.load(std::memory_order_relaxed);
    stripe.hold_ns.store(average + (held_ns - average) / 8,
                         std::memory_order_relaxed);
    it->shared ? stripe.mutex.ReaderUnlock() : stripe.mutex.Unlock();
  }
}

}  // namespace trackdb::storage
