#ifndef TRACKDB_STORAGE_POINTS_HISTORY_FIXES_H_
#define TRACKDB_STORAGE_POINTS_HISTORY_FIXES_H_

// How many fixes each SST file of `points` (raw fixes, not the history
// cells) and of `chunks` (the fixes inside each chunk) holds, kept in the
// file's table properties as it is written, so that stats tell what
// history costs on disk a fix (storage/stats/store_stats.h) without
// reading it. Counts are of what files hold: a fix overwritten, deleted or
// folded but not yet compacted away counts until compaction drops it.

#include <cstdint>
#include <memory>

#include "rocksdb/db.h"
#include "rocksdb/table_properties.h"

namespace trackdb::storage {

inline constexpr char kHistoryFixesProperty[] = "trackdb.history_fixes";

enum class HistoryFamily { kRawFixes, kChunks };

std::shared_ptr<rocksdb::TablePropertiesCollectorFactory>
NewHistoryFixesCollectorFactory(HistoryFamily family);

// Over the column family's live files that carry kHistoryFixesProperty
// (files written before it was kept carry none, until compaction rewrites
// them): the fixes, and the files' bytes (their blocks, as their table
// properties say).
struct HistoryFiles {
  uint64_t fixes = 0;
  uint64_t bytes = 0;
};
HistoryFiles HistoryFixesInFiles(rocksdb::DB* db,
                                 rocksdb::ColumnFamilyHandle* cf);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_POINTS_HISTORY_FIXES_H_
