#ifndef TRACKDB_STORAGE_STATS_DOCTOR_H_
#define TRACKDB_STORAGE_STATS_DOCTOR_H_

// The doctor: reads StoreStats (which carry the effective options) and
// names, in words with the numbers behind them, the problems field reports
// of RocksDB tuning tell of: memtables flushed before they fill (many small
// flushes), writes slowed down or stopped by L0 or by memtables, compaction
// falling behind, memory above the budget, bulk-load mode left on (a DB that
// gets very slow to open), and memtable knobs that contradict each other or
// the budget. A pure function: no I/O.

#include <string>
#include <vector>

#include "storage/engine/options.h"
#include "storage/stats/store_stats.h"

namespace trackdb::storage {

struct Finding {
  enum Severity { kInfo = 0, kWarning = 1, kProblem = 2 };
  Severity severity = kInfo;
  // Stable, for scripts and tests: "small_flushes", "l0_slowdown",
  // "l0_stop", "memtable_stall", "compaction_behind",
  // "memory_above_budget", "rss_above_budget", "bulk_load_on",
  // "memtable_budget_below_memtables", "memtables_far_above_budget",
  // "disk_full", "disk_error", "disk_writes" (info), "history_bytes"
  // (info).
  std::string code;
  std::string message;  // one or two sentences with the numbers
};

std::vector<Finding> Diagnose(const StoreStats& stats,
                              const StoreOptions& options);

// "PROBLEM small_flushes: ..." one per line; "no problems found" first when
// nothing is worse than info.
std::string FormatFindings(const std::vector<Finding>& findings);
const char* SeverityName(Finding::Severity severity);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_STATS_DOCTOR_H_
