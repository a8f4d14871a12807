#ifndef TRACKDB_STORAGE_POINTS_HISTORY_CELLS_H_
#define TRACKDB_STORAGE_POINTS_HISTORY_CELLS_H_

// The history's space-time index: which entities had fixes in which coarse
// S2 cell during which time bucket, so that "who was inside this area
// between t1 and t2" (TrackStore::SearchHistory) reads the index entries of
// the buckets and cells that area and time meet, then the fixes of those
// entities in those buckets, and costs what the space-time box holds, not
// what the collection holds (GeoMesa's Z3 index does the same with a
// time bin and a space-filling curve).
//
// Keys (storage/format/keys.h HistoryCellKey, in `points`): (collection, bucket,
// cell, entity), empty values.
//
// Invariant I7: for every fix in `points`, the key of its history cell
// (HistoryCellOf) is in `points`. Keys of cells whose fixes are gone may
// remain (a deleted entity, trimmed history): they cost a search a few
// reads, never a wrong answer, since searches check every fix they read.
//
// Why it holds: the write funnel writes a fix's cell key in the fix's batch
// unless the key is known to be stored: the entity's stored latest point
// is in the same cell and the fix is not older (the latest's key was
// written with it, or known then by the same rule), or the batch already
// wrote it. The import writes the key of every change of cell along each
// entity's sorted history; Open builds them for data dirs of schema 3 or
// older. Compaction drops a cell key only when its whole bucket is older
// than the collection's retention cutoff (storage/points/history_expiry.h), when
// every fix it stands for is hidden or gone too. DeleteCollection and
// CopyCollection take the keys with the collection's range.
//
// Write cost: one key per entity per change of cell or bucket, beside the two
// per fix (a vehicle at 50 km/h crosses a level-13 cell about every two
// minutes), so the index adds a few per cent to a stream of fixes.

#include <cstdint>

namespace trackdb::storage {

// Ten minutes per bucket: a search over [t1, t2] reads the buckets it
// meets (empty ones are skipped in one seek each), and an entity found in
// a bucket has that bucket's fixes checked, so shorter buckets check fewer
// fixes (hours checked 3.5x as many in bench/history_search_bench) but
// cost a long search more seeks (a year: 52,560 buckets, a few seeks
// each), and each entity writes a key per bucket at least.
inline constexpr int64_t kHistoryBucketMs = 600'000;
// S2 level 13: cells of 0.8 to 1.5 km a side.
inline constexpr int kHistoryCellLevel = 13;

struct HistoryCell {
  int64_t bucket = 0;
  uint64_t cell = 0;
  bool operator==(const HistoryCell& o) const {
    return bucket == o.bucket && cell == o.cell;
  }
  bool operator!=(const HistoryCell& o) const { return !(*this == o); }
};

// The bucket of a loc_time (floor division, so negative times work).
int64_t HistoryBucketOf(int64_t loc_time_ms);
// The first and last loc_time of a bucket, saturated to int64's range.
int64_t HistoryBucketFirstMs(int64_t bucket);
int64_t HistoryBucketLastMs(int64_t bucket);
// A fix's cell; lat and lon must be valid.
HistoryCell HistoryCellOf(int64_t loc_time_ms, double lat, double lon);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_POINTS_HISTORY_CELLS_H_
