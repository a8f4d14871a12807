#ifndef TRACKDB_STORAGE_POINTS_RETENTION_H_
#define TRACKDB_STORAGE_POINTS_RETENTION_H_

// History retention, per collection: how long its points stay in history
// (max_age_ms, measured on each point's loc_time against the server's
// clock), how many each entity keeps (max_points, its newest), and whether
// an entity whose latest point is max_age_ms old leaves the collection too
// (expire_latest; otherwise it stays findable at its last known position
// while its history goes).
//
// Enforced in three places, so that disk is reclaimed and answers never
// depend on when compaction ran:
//   - reads: GetTrack, and everything read over it (positions at a time,
//     analyses), never return a point older than the cutoff;
//   - compaction: a filter on `points` (storage/points/history_expiry.h) drops
//     those points in the compactions RocksDB runs anyway, so their space
//     comes back;
//   - RetentionStore::ExpireEntities (a pass every minute, service/
//     retention_trimmer.h) removes, through the write funnel, the entities
//     whose policy expires latest points: a write, because the latest index
//     and the collection's count must follow.
// max_points is enforced by the same minute's pass alone
// (RetentionStore::TrimHistories: the fixes past an entity's limit deleted,
// raw or in chunks, storage/history_trim.h; their space reclaimed by
// compaction), so an entity may hold a minute's
// fixes more than its limit between passes.
// A policy is stored in `default` (storage/format/keys.h RetentionKey) and loaded
// on open. It belongs to the collection's name, not to its contents:
// deleting a collection's entities (DEL, DeleteCollection) keeps it, and a
// copy or rename does not carry it.

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::storage {

struct RetentionPolicy {
  int64_t max_age_ms = 0;      // 0: history kept forever
  bool expire_latest = false;  // entities whose latest point is older leave
  int64_t max_points = 0;      // per entity, its newest; 0: no limit
  bool keeps_everything() const { return max_age_ms == 0 && max_points == 0; }
  bool operator==(const RetentionPolicy& o) const {
    return max_age_ms == o.max_age_ms && expire_latest == o.expire_latest &&
           max_points == o.max_points;
  }
};

// The oldest loc_time `policy` keeps at `now_ms`; INT64_MIN: every one.
int64_t HistoryCutoffMs(const RetentionPolicy& policy, int64_t now_ms);

std::string EncodeRetentionPolicy(const RetentionPolicy& policy);
std::optional<RetentionPolicy> DecodeRetentionPolicy(absl::string_view value);

// What retention has removed since the store opened.
struct RetentionCounters {
  uint64_t points_expired = 0;    // history points dropped by compaction
  uint64_t entities_expired = 0;  // entities removed by ExpireEntities
  uint64_t points_trimmed = 0;    // history points past max_points removed
};

// Every collection's policy, in memory, for reads, the compaction filter
// and the expiry pass; thread-safe. TrackStore keeps it equal to what
// `default` holds.
class RetentionPolicies {
 public:
  // A policy that keeps everything removes the collection's entry.
  void Set(absl::string_view collection, const RetentionPolicy& policy);
  // The collection's policy; keeps_everything() when it has none.
  RetentionPolicy Get(absl::string_view collection) const;
  // Every collection with a policy, in no particular order.
  std::vector<std::pair<std::string, RetentionPolicy>> All() const;
  // Each collection's history cutoff at `now_ms` (only those with one).
  absl::flat_hash_map<std::string, int64_t> Cutoffs(int64_t now_ms) const;
  bool empty() const;

  // Where RetentionStore::TrimHistories left an entity: its latest loc_time
  // then, so that a pass skips entities with nothing newer, and the oldest
  // fix it kept, from which the next pass counts forward (reading its
  // max_points fixes with Next, not Prev: several times cheaper). Memory
  // only (a restart trims each entity once from its newest), an entity
  // name and 16 bytes per entity of collections with max_points. A late
  // fix, older than the entity's latest, waits for its next newer one.
  struct TrimState {
    int64_t latest_ms = 0;
    int64_t oldest_kept_ms = 0;
  };
  std::optional<TrimState> TrimmedAt(absl::string_view collection,
                                     absl::string_view entity) const;
  void SetTrimmedAt(absl::string_view collection, absl::string_view entity,
                    const TrimState& state);

  void CountExpiredPoints(uint64_t n) { points_expired_ += n; }
  void CountExpiredEntities(uint64_t n) { entities_expired_ += n; }
  void CountTrimmedPoints(uint64_t n) { points_trimmed_ += n; }
  RetentionCounters counters() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, RetentionPolicy> policies_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, TrimState>>
      trimmed_at_ ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> points_expired_{0};
  std::atomic<uint64_t> entities_expired_{0};
  std::atomic<uint64_t> points_trimmed_{0};
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_POINTS_RETENTION_H_
