#ifndef TRACKDB_STORAGE_FENCES_FENCE_REGISTRY_H_
#define TRACKDB_STORAGE_FENCES_FENCE_REGISTRY_H_

// The fences of every collection, compiled and spatially indexed, and each
// collection's event log counters: derived from the fences column family
// (LoadFences on open), kept by FenceStore (storage/fence_store.h) and
// the write funnel (fence_eval.cc).
//
// Locking:
// - A collection's fences (fences, ids, index, every_fix) change only while
//   its TrackStore collection lock is held exclusively; the write path reads
//   them holding it shared.
// - Its event log counters are guarded by CollectionFences::mu.
// - FenceRegistry::mu guards the map of collections. Entries are never
//   removed (a collection's offsets must outlive its last fence), so a
//   pointer from Find stays valid while the store is open.
//
// Event offsets: each write that logs events reserves a run of offsets
// (Reserve) before its batch and releases it (Release) once the batch is
// written or has failed. `visible` is the first offset not yet readable:
// every offset below it is written or was never written (a failed batch
// leaves a gap), so a reader that reads up to `visible` and resumes there
// misses nothing that commits later with a smaller offset.

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "fence/fence.h"
#include "fence/fence_index.h"

namespace trackdb::storage {

// A store-wide count of event-log advances, so that a follower of every
// collection's log (RESP pub/sub) waits on one thing, not on each log.
class FenceLogClock {
 public:
  uint64_t ticks() const;
  void Tick();
  // Waits until ticks() > seen or `deadline`; true if it moved.
  bool WaitPast(uint64_t seen, absl::Time deadline) const;

 private:
  mutable absl::Mutex mu_;
  uint64_t ticks_ ABSL_GUARDED_BY(mu_) = 0;
};

struct CollectionFences {
  absl::flat_hash_map<uint64_t, fence::Fence> fences;  // by id
  absl::flat_hash_map<std::string, uint64_t> ids;      // by name
  fence::FenceIndex index;
  // Fences evaluated on every fix: roaming fences (no area to index) and
  // those that report OUTSIDE (fence/detector.h: every other fence is
  // evaluated only near its area).
  std::vector<uint64_t> every_fix;
  int crossing = 0;  // fences that detect CROSS
  uint64_t next_id = 1;

  // Entities that may have a stored (not Resting) state: a superset, so
  // that the write path reads states only for them. An entity's writer
  // adds it before writing a state and removes it once none is left,
  // holding the entity's stripe.
  void MayHaveStates(absl::string_view entity, bool may);
  bool MayHaveStates(absl::string_view entity) const;

  // Files `f` (replacing a fence of the same name) or unfiles `name`.
  void Put(fence::Fence f);
  bool Remove(const std::string& name);

  // The event log.
  uint64_t Reserve(uint64_t n);  // the first of n offsets
  // After the batch, written or not; ticks `clock` (if set: FindOrAdd sets
  // the registry's).
  void Release(uint64_t first);
  FenceLogClock* clock = nullptr;
  uint64_t visible() const;     // the first offset not readable yet
  uint64_t first_kept() const;  // the oldest offset retention kept
  // Waits until `offset` is readable (visible() > offset) or `deadline`;
  // true if it is.
  bool WaitUntilReadable(uint64_t offset, absl::Time deadline) const;
  void SetLoaded(uint64_t first_kept, uint64_t next);
  void SetFirstKept(uint64_t first);

 private:
  // visible(), with mu_ held: the one statement of the watermark rule.
  uint64_t VisibleLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  uint64_t next_offset_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t first_kept_ ABSL_GUARDED_BY(mu_) = 1;
  std::set<uint64_t> in_flight_ ABSL_GUARDED_BY(mu_);
  mutable absl::Mutex states_mu_;
  absl::flat_hash_set<std::string> with_states_ ABSL_GUARDED_BY(states_mu_);
};

class FenceRegistry {
 public:
  // Null when the collection never had a fence.
  CollectionFences* Find(absl::string_view collection) const;
  CollectionFences& FindOrAdd(absl::string_view collection);
  // Whether any collection has ever had a fence: the write path's fast
  // exit when none has.
  bool empty() const { return count_.load(std::memory_order_acquire) == 0; }
  // Every collection that has had a fence, with its log's visible().
  std::vector<std::pair<std::string, uint64_t>> LogEnds() const;
  FenceLogClock& clock() { return clock_; }

 private:
  FenceLogClock clock_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<CollectionFences>> by_name_
      ABSL_GUARDED_BY(mu_);
  std::atomic<int> count_{0};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FENCES_FENCE_REGISTRY_H_
