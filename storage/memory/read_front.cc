#include "storage/memory/read_front.h"

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

namespace trackdb::storage {

namespace {

struct FrontEntry {
  std::optional<std::string> value;
  size_t slot = 0;
  uint64_t version = 0;
};

// The calling thread's entries, for the ReadFront it last used.
struct ThreadFront {
  uint64_t owner = 0;  // a ReadFront's id; 0: none
  absl::flat_hash_map<std::string, FrontEntry> entries;
  size_t bytes = 0;

  void Clear(uint64_t new_owner) {
    owner = new_owner;
    entries.clear();
    bytes = 0;
  }
};

// What an entry counts against kMaxBytes.
size_t Bytes(absl::string_view key, const std::optional<std::string>& value) {
  return key.size() + (value ? value->size() : 0);
}

ThreadFront& ThisThread() {
  thread_local ThreadFront front;
  return front;
}

uint64_t NextId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

ReadFront::ReadFront() : id_(NextId()) {}

size_t ReadFront::SlotOf(absl::string_view key) {
  return absl::HashOf(key) % kSlots;
}

uint64_t ReadFront::Seen(absl::string_view key) const {
  return versions_[SlotOf(key)].load(std::memory_order_acquire);
}

bool ReadFront::Lookup(absl::string_view key,
                       std::optional<std::string>* value) {
  ThreadFront& front = ThisThread();
  if (front.owner != id_) return false;
  auto it = front.entries.find(key);
  if (it == front.entries.end()) return false;
  const FrontEntry& entry = it->second;
  if (versions_[entry.slot].load(std::memory_order_acquire) != entry.version) {
    front.bytes -= Bytes(it->first, entry.value);
    front.entries.erase(it);
    return false;
  }
  *value = entry.value;
  return true;
}

void ReadFront::Admit(absl::string_view key,
                      const std::optional<std::string>& value, uint64_t seen) {
  const size_t bytes = Bytes(key, value);
  if (bytes > kMaxBytes) return;
  const size_t slot = SlotOf(key);
  if (versions_[slot].load(std::memory_order_acquire) != seen) return;
  ThreadFront& front = ThisThread();
  if (front.owner != id_ || front.entries.size() >= kMaxEntries ||
      front.bytes + bytes > kMaxBytes) {
    front.Clear(id_);
  }
  auto [it, added] = front.entries.try_emplace(key);
  if (!added) {
    front.bytes -= Bytes(it->first, it->second.value);
  }
  it->second = FrontEntry{value, slot, seen};
  front.bytes += bytes;
}

void ReadFront::Changed(absl::string_view key) {
  versions_[SlotOf(key)].fetch_add(1, std::memory_order_acq_rel);
}

size_t ReadFront::EntriesOnThisThread() const {
  size_t n = 0;
  ForEachOnThisThread(
      [&](absl::string_view, const std::optional<std::string>&) { ++n; });
  return n;
}

void ReadFront::ForEachOnThisThread(
    const std::function<void(absl::string_view key,
                             const std::optional<std::string>&)>& visit) const {
  const ThreadFront& front = ThisThread();
  if (front.owner != id_) return;
  for (const auto& [key, entry] : front.entries) {
    if (versions_[entry.slot].load(std::memory_order_acquire) ==
        entry.version) {
      visit(key, entry.value);
    }
  }
}

}  // namespace trackdb::storage
