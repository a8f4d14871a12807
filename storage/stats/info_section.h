#ifndef TRACKDB_STORAGE_STATS_INFO_SECTION_H_
#define TRACKDB_STORAGE_STATS_INFO_SECTION_H_

// The store's numbers in Redis's INFO format, for INFO, the admin API's
// info_text and trackdb_doctor alike.

#include <string>

#include "storage/stats/store_stats.h"

namespace trackdb::storage {

// The "# rocksdb" section of Redis's INFO: the header line and then
// "key:value\r\n" lines, column families as Redis writes keyspace lines
// ("cf_points:l0_files=3,pending_compaction_bytes=0,...").
std::string FormatInfoSection(const storage::StoreStats& stats);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_STATS_INFO_SECTION_H_
