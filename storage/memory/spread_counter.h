#ifndef TRACKDB_STORAGE_MEMORY_SPREAD_COUNTER_H_
#define TRACKDB_STORAGE_MEMORY_SPREAD_COUNTER_H_

// A count added to by many threads (cache hits and misses): one slot per
// thread (modulo kSlots), each on its own cache line, so that two event
// loops counting at once do not pass one line back and forth per count.
// Thread-safe; Total is a sum of relaxed loads, exact once the adders
// stopped.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace trackdb::storage {

class SpreadCounter {
 public:
  void Add() {
    static std::atomic<size_t> next_thread{0};
    thread_local const size_t slot =
        next_thread.fetch_add(1, std::memory_order_relaxed) % kSlots;
    slots_[slot].n.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t Total() const {
    uint64_t total = 0;
    for (const Slot& s : slots_) total += s.n.load(std::memory_order_relaxed);
    return total;
  }

 private:
  static constexpr size_t kSlots = 16;
  struct alignas(64) Slot {
    std::atomic<uint64_t> n{0};
  };
  std::array<Slot, kSlots> slots_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_MEMORY_SPREAD_COUNTER_H_
