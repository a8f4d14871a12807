#ifndef TRACKDB_STORAGE_FENCE_STORE_H_
#define TRACKDB_STORAGE_FENCE_STORE_H_

// FenceStore: a store's geofences (storage/fence_store.cc). It owns the
// fence definitions, each entity's state in each fence, each collection's
// event log and the consumers' places in it, all in the `fences` column
// family, and the registry of compiled fences the write path evaluates
// (storage/fences/fence_registry.h). The events themselves are written by
// the write path: every point AddPoints stores is evaluated against its
// collection's fences, and the events land in the log in the same batch
// (storage/write_funnel.h). A fence's changes hold its collection's lock
// exclusively, so no points write evaluates a fence while it changes.
// The rules of detection: fence/detector.h.
//
// TrackStore owns one (TrackStore::fences()).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "model/track_point.h"
#include "storage/engine/collection_lock_table.h"
#include "trackdb/v1/fence.pb.h"

namespace trackdb::storage {

struct Engine;

// One entry of a collection's fence event log.
struct FenceEventRecord {
  uint64_t offset = 0;  // increasing in the collection's log
  std::string fence;
  v1::FenceEventKind kind = v1::FENCE_EVENT_KIND_UNSPECIFIED;
  bool late = false;
  int64_t dwell_ms = 0;
  int64_t logged_ms = 0;    // server time when the point was written
  model::TrackPoint point;  // the fix that caused it
  // A roaming fence's nearest target within its radius (empty: none).
  std::string nearby;
  double nearby_distance_m = 0;
};
struct FenceEventsPage {
  std::vector<FenceEventRecord> events;
  // Where to read next: past the last event returned, or the first offset
  // not readable yet when none was.
  uint64_t next_offset = 1;
};

class FenceStore {
 public:
  FenceStore(Engine* engine, CollectionLockTable* collection_locks)
      : engine_(engine), collection_locks_(collection_locks) {}

  // Creates or replaces fence (collection, name). Replacing resets every
  // entity's state for it (all outside). INVALID_ARGUMENT naming the field
  // (fence::CompileFence), writing nothing. Returns whether it was created.
  absl::StatusOr<bool> Put(const v1::Fence& fence);
  absl::StatusOr<std::optional<v1::Fence>> Get(absl::string_view collection,
                                               absl::string_view name);
  // Removes a fence and its entities' states; whether it existed.
  absl::StatusOr<bool> Delete(absl::string_view collection,
                              absl::string_view name);
  // A collection's fences, in name order.
  absl::StatusOr<std::vector<v1::Fence>> List(absl::string_view collection);
  // The entities confirmed inside fence `name` now, in entity order.
  absl::StatusOr<std::vector<std::string>> Members(absl::string_view collection,
                                                   absl::string_view name);

  // Up to `max` events of the collection's log with offsets >= `from`, in
  // offset order: only events whose batches are written, and of those
  // none is missed by a reader that goes on from next_offset.
  absl::StatusOr<FenceEventsPage> ReadEvents(absl::string_view collection,
                                             uint64_t from, size_t max);
  // The offset the collection's next event will have, as readers see it:
  // a watcher "from now" starts there.
  uint64_t LogEnd(absl::string_view collection);
  // Waits until an event at offset >= `from` may be readable, or until
  // `deadline`; false on the deadline.
  bool WaitForEvents(absl::string_view collection, uint64_t from,
                     absl::Time deadline);
  // Every collection's log at once, for a follower of all of them: a count
  // that moves on whenever some log may have grown (read it before
  // LogEnds, then wait past it), and every collection that has had a
  // fence with its LogEnd.
  uint64_t LogTicks();
  bool WaitForLogTick(uint64_t seen, absl::Time deadline);
  std::vector<std::pair<std::string, uint64_t>> LogEnds();
  // Removes, from every collection's event log, the events older than
  // storage.fence_log_max_age_s at `now` (by logged_ms) and all but the
  // newest storage.fence_log_max_events (0: no such limit), in one range
  // deletion per log; returns how many offsets left the logs. Offsets are
  // never reused: a read from one no longer kept starts at the oldest kept.
  // Safe beside writers and readers (service/jobs/retention_trimmer.h calls
  // it every minute).
  absl::StatusOr<uint64_t> TrimLogs(absl::Time now);

  // A named consumer's place in a collection's log (the next offset it
  // will deliver), stored so that it survives restarts; nullopt before the
  // first SetCursor.
  absl::StatusOr<std::optional<uint64_t>> Cursor(absl::string_view collection,
                                                 absl::string_view consumer);
  absl::Status SetCursor(absl::string_view collection,
                         absl::string_view consumer, uint64_t next);

 private:
  Engine* const engine_;
  CollectionLockTable* const collection_locks_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FENCE_STORE_H_
