#ifndef TRACKDB_STORAGE_MEMORY_READ_FRONT_H_
#define TRACKDB_STORAGE_MEMORY_READ_FRONT_H_

// A small per-thread copy of entries a shared cache answered, for reads that
// ask for the same keys again and again (LRANGE of a hot list, HMGET of a
// hot hash's fields): a hit here takes no lock and writes no shared memory,
// where a hit in RocksDB's LRU cache locks its shard twice (lookup and release)
// and moves the entry in the shard's list. Two event loops reading one list
// spent over a quarter of their time on those shard mutexes.
//
// Invariant: an entry a Lookup returns is the shared cache's entry for the
// key as of the Lookup, or the key's stored value. It holds because
//   - every change of a key's value calls Changed(key) after it has changed
//     the shared cache's entry (storage/typed/typed_cache.h), bumping the version
//     of the key's slot;
//   - Admit records the slot's version read (Seen) *before* the shared
//     lookup whose result it keeps, so an entry admitted across a change
//     carries the old version and is never returned;
//   - Lookup returns an entry only while its slot's version is the one it
//     was admitted with.
// Evictions from the shared cache change no value, so they need no bump.
//
// Each thread keeps at most kMaxEntries entries and kMaxBytes of keys and
// values per ReadFront it last used (a thread that moves to another
// instance starts empty), and empties itself when either is reached: the
// memory is bounded by the threads that read (the event loops and the
// workers), under 1 MiB each (kMaxBytes of keys and values, their
// allocations and the table's slots), outside the block cache's budget.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::storage {

class ReadFront {
 public:
  static constexpr size_t kMaxEntries = 2048;
  static constexpr size_t kMaxBytes = 256 << 10;

  ReadFront();
  ReadFront(const ReadFront&) = delete;
  ReadFront& operator=(const ReadFront&) = delete;

  // The version of key's slot now: pass it to Admit with what a shared
  // lookup started after this call found.
  uint64_t Seen(absl::string_view key) const;
  // True with *value set when this thread holds a current entry for `key`.
  bool Lookup(absl::string_view key, std::optional<std::string>* value);
  // Keeps `value` for `key` on this thread, unless its slot changed since
  // `seen`.
  void Admit(absl::string_view key, const std::optional<std::string>& value,
             uint64_t seen);
  // Outdates every thread's entry for `key`.
  void Changed(absl::string_view key);

  // Current entries on the calling thread, for tests and invariant checks.
  size_t EntriesOnThisThread() const;
  void ForEachOnThisThread(
      const std::function<void(absl::string_view key,
                               const std::optional<std::string>&)>& visit)
      const;

 private:
  static constexpr size_t kSlots = 4096;
  static size_t SlotOf(absl::string_view key);

  const uint64_t id_;  // never reused, unlike an address
  std::array<std::atomic<uint64_t>, kSlots> versions_{};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_MEMORY_READ_FRONT_H_
