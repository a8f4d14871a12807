#ifndef TRACKDB_STORAGE_IMPORT_SST_IMPORT_H_
#define TRACKDB_STORAGE_IMPORT_SST_IMPORT_H_

// Offline bulk import: points of one collection into a store that no other
// writer uses, by building SST files and ingesting them, bypassing the
// memtables and the WAL.
//
//   1. Add() encodes each point (storage/format/keys.h,
//   storage/format/point_codec.h) and
//      sorts it with bounded memory (storage/import/external_sort.h).
//   2. Finish() streams the sorted points into SST files. An entity's
//      points arrive together, time-ordered, so its last one is its newest
//      imported point. An entity without stored history goes straight
//      into `chunks`, the rest into `points` as raw keys
//      (storage/import/history_sink.h); the history cells into `points`.
//   3. Each entity's newest imported point is joined with its stored latest
//      point, in key order, and goes through the write funnel's move rule
//      (storage/write_funnel.h PlanLatestMove, WriteLatestMove), as an
//      online write would: if the stored one is newer it stays (the import
//      is history only for that entity); otherwise the imported point becomes
//      `latest`.
//   4. The files of points, latest and the registry are ingested in ONE
//      IngestExternalFiles call: all land or none (nothing is written
//      before it, so a failed import leaves the store as it was). The
//      latest index then reloads the collection (I6).
//   5. CompactRange over the collection in points and latest, so that no
//      L0 files or deletions are left behind and reads and reopening are as
//      fast as before the import.
//   6. When some entity had stored history, the collection's raw fixes
//      are folded into chunks (storage/history_chunker.h), one entity a
//      batch, and compacted again: the history is stored as online writes
//      leave it once folded. (A crash here leaves each fix raw or chunked:
//      both read the same.)
//
// Afterwards I1, I3, I4 and I6 of storage/write_funnel.h hold for the
// collection exactly as if the points had gone through AddPoints, with the
// same tie rules: of
// points with the same (entity, loc_time) the one added last is kept, and an
// imported point with the same loc_time as the stored latest replaces it.
// Re-importing the same points therefore changes nothing.
//
// Precondition: nothing else writes the collection while an SstImport runs
// (step 3 reads, then decides). trackdb_import opens the store itself, and
// TrackStore::Open fails while a trackd holds the data dir.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/track_point.h"
#include "storage/import/external_sort.h"
#include "storage/points/history_cells.h"
#include "storage/track_store.h"

namespace trackdb::storage {

class SstSink;  // storage/import/sst_sink.h

struct SstImportOptions {
  // Spill and SST files go in a fresh directory under this one (default:
  // the store's data dir, so that ingestion moves files instead of copying
  // them). The directory is removed when the import ends; one left in the
  // data dir by an import that died is removed by the next.
  std::string temp_dir;
  // Sort buffer; the merges need about as much again at the end.
  size_t sort_memory_bytes = size_t{256} << 20;
  // SST files are cut at about this size (0: the column family's
  // target_file_size_base).
  uint64_t sst_file_bytes = 0;
};

struct SstImportStats {
  uint64_t points_added = 0;    // Add() calls that succeeded
  uint64_t points_written = 0;  // distinct (entity, loc_time)
  uint64_t entities = 0;        // distinct entities imported
  uint64_t latest_updated = 0;  // entities whose latest the import set
  uint64_t latest_kept = 0;     // entities whose stored latest was newer
  int spilled_runs = 0;         // sort runs written to disk
  int sst_files = 0;
  uint64_t sst_bytes = 0;
  double sort_seconds = 0;  // sorting and writing SST files
  double ingest_seconds = 0;
  double compact_seconds = 0;
  double chunk_seconds = 0;  // folding into chunks, its compaction included
  uint64_t chunked_entities = 0;  // written straight into chunks
  uint64_t raw_entities = 0;      // written raw (they had stored history)
  uint64_t chunks = 0;            // chunks written straight
};

class SstImport {
 public:
  // What Finish() is doing: phase name, and items done of total (total 0:
  // unknown).
  using Progress = std::function<void(absl::string_view phase, uint64_t done,
                                      uint64_t total)>;

  static absl::StatusOr<std::unique_ptr<SstImport>> Start(
      TrackStore* store, absl::string_view collection,
      SstImportOptions options = {});
  ~SstImport();  // removes the temp directory

  // INVALID_ARGUMENT, adding nothing, for a point AddPoints would refuse.
  absl::Status Add(const model::TrackPoint& point);

  // Steps 2-5 above. Call once; the SstImport is spent afterwards.
  absl::StatusOr<SstImportStats> Finish(const Progress& progress = nullptr);

 private:
  SstImport(TrackStore* store, std::string collection, std::string temp_dir,
            SstImportOptions options);

  void Report(absl::string_view phase, uint64_t done, uint64_t total) const;
  absl::Status WriteHistory(SstSink& points, SstSink& chunks,
                            ExternalSorter& newest);
  absl::Status AddCell(ExternalSorter& cells, absl::string_view entity,
                       absl::string_view value,
                       std::optional<HistoryCell>* last);
  absl::Status WriteCells(ExternalSorter& cells, SstSink& points);
  absl::Status WriteLatest(ExternalSorter& newest, SstSink& latest,
                           int64_t* new_entities);
  absl::Status WriteRegistry(SstSink& registry, int64_t new_entities);
  absl::Status Chunk();
  absl::Status Ingest(std::initializer_list<const SstSink*> sinks,
                      bool* ingested);
  absl::Status Compact();

  TrackStore* store_;
  std::string collection_;
  std::string collection_prefix_;
  std::string temp_dir_;
  SstImportOptions options_;
  std::unique_ptr<ExternalSorter> points_;
  std::string key_, value_;  // scratch
  SstImportStats stats_;
  bool finished_ = false;
  Progress progress_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_IMPORT_SST_IMPORT_H_
