#include "storage/stats/doctor.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "conf/config.h"
#include "storage/format/keys.h"

namespace trackdb::storage {
namespace {

// Flushes whose data is below this share of a full memtable are "small".
constexpr double kSmallFlushShare = 0.25;
// Fewer flushes than this say nothing (a Close or manual flush is small).
constexpr uint64_t kMinFlushesToJudge = 4;
// A column family whose flushes wrote less than this share of all flushed
// data is not judged: one that is rarely written (the registry counters in
// `default`) is flushed small whenever the WAL reaches max_total_wal_size,
// which RocksDB forces so that old WAL files can go; those flushes cost
// nothing worth a finding.
constexpr double kNegligibleFlushShare = 0.05;
// L0 files beyond this many compaction triggers mean compaction is behind.
constexpr int kBehindTriggers = 2;
// The cache may pass its capacity briefly (pinned blocks); beyond this
// share of the budget it is a problem.
constexpr double kBudgetSlack = 1.05;
// RSS beyond this many budgets is worth a warning: the budget includes a
// reserve for the server (conf/config.h), so RSS should stay near it.
constexpr double kRssSlack = 1.1;

std::string Mib(double bytes) {
  if (bytes < (1 << 20)) return absl::StrFormat("%.0f KiB", bytes / 1024);
  return absl::StrFormat("%.1f MiB", bytes / (1 << 20));
}

void Add(std::vector<Finding>& out, Finding::Severity severity,
         std::string code, std::string message) {
  out.push_back({severity, std::move(code), std::move(message)});
}

// Memtable knobs against each other and the budget. Effective values, so
// raw option strings that bypassed the config checks are caught too.
void CheckMemtableKnobs(const StoreStats& s, std::vector<Finding>& out) {
  const uint64_t budget = s.memory_budget_bytes;
  uint64_t largest_memtable = 0;
  uint64_t worst_memtables = 0;
  for (const CfStats& c : s.column_families) {
    largest_memtable = std::max(largest_memtable, c.write_buffer_size);
    worst_memtables += c.write_buffer_size * c.max_write_buffer_number;
  }
  if (s.memtable_budget_bytes > 0 && largest_memtable > 0) {
    if (s.memtable_budget_bytes < largest_memtable) {
      Add(out, Finding::kProblem, "memtable_budget_below_memtables",
          absl::StrCat("the total memtable budget (db_write_buffer_size, ",
                       Mib(s.memtable_budget_bytes),
                       ") is smaller than one memtable (write_buffer_size, ",
                       Mib(largest_memtable),
                       "): every memtable is flushed long before it fills, "
                       "as many small files"));
    } else if (s.memtable_budget_bytes <
               largest_memtable * kPointColumnFamilies) {
      Add(out, Finding::kWarning, "memtable_budget_below_memtables",
          absl::StrCat("the total memtable budget (db_write_buffer_size, ",
                       Mib(s.memtable_budget_bytes), ") holds fewer than ",
                       kPointColumnFamilies, " memtables of ",
                       Mib(largest_memtable),
                       ", one per column family a point writes: memtables "
                       "are flushed before they fill"));
    }
  }
  if (budget > 0 && worst_memtables > conf::kFarAboveBudget * budget) {
    Add(out, Finding::kWarning, "memtables_far_above_budget",
        absl::StrCat("write_buffer_size x max_write_buffer_number summed over "
                     "column families is ",
                     Mib(worst_memtables), ", ",
                     absl::StrFormat("%.0f", 1.0 * worst_memtables / budget),
                     "x the memory budget (", Mib(budget), ")"));
  }
}

// Memtables flushed before they fill.
void CheckFlushSizes(const StoreStats& s, const CfStats& c,
                     const std::string& cf, std::vector<Finding>& out) {
  const double all_flush_raw_bytes = static_cast<double>(s.flush_raw_bytes());
  if (c.flushes >= kMinFlushesToJudge && c.write_buffer_size > 0 &&
      c.flush_raw_bytes >= kNegligibleFlushShare * all_flush_raw_bytes &&
      c.avg_flush_raw_bytes() < kSmallFlushShare * c.write_buffer_size) {
    Add(out, Finding::kProblem, "small_flushes",
        absl::StrCat(
            cf, ": ", c.flushes, " flushes averaging ",
            Mib(c.avg_flush_raw_bytes()), " of data (",
            Mib(c.avg_flush_bytes()), " on disk), ",
            absl::StrFormat("%.0f%%", 100.0 * c.avg_flush_raw_bytes() /
                                          c.write_buffer_size),
            " of its ", Mib(c.write_buffer_size),
            " write buffer: memtables are flushed before they fill, so the "
            "disk sees many small writes. Total memtable budget: ",
            s.memtable_budget_bytes ? Mib(s.memtable_budget_bytes)
                                    : std::string("none")));
  } else if (c.flushes == 0 && c.l0_files >= 4 && c.write_buffer_size > 0 &&
             c.l0_bytes / c.l0_files <
                 kSmallFlushShare * kSmallFlushShare * c.write_buffer_size) {
    // A DB opened just now (the doctor's read-only mode) has no flush
    // history; tiny L0 files tell the same story.
    Add(out, Finding::kWarning, "small_flushes",
        absl::StrCat(cf, ": L0 holds ", c.l0_files, " files averaging ",
                     Mib(1.0 * c.l0_bytes / c.l0_files), " against a ",
                     Mib(c.write_buffer_size),
                     " write buffer: memtables were flushed small"));
  }
}

// Writes slowed or stopped, by L0 or by full memtables.
void CheckWriteStalls(const StoreStats& s, const CfStats& c,
                      const std::string& cf, std::vector<Finding>& out) {
  const bool l0_stopped = c.l0_stops > 0;
  const bool l0_slowed = c.l0_slowdowns > 0;
  if (l0_stopped || l0_slowed ||
      (!c.disable_auto_compactions &&
       c.l0_files >= c.level0_slowdown_writes_trigger)) {
    Add(out, l0_stopped ? Finding::kProblem : Finding::kWarning,
        l0_stopped ? "l0_stop" : "l0_slowdown",
        absl::StrCat(cf, ": L0 reached level0_slowdown_writes_trigger (",
                     c.level0_slowdown_writes_trigger, ") ", c.l0_slowdowns,
                     " times and level0_stop_writes_trigger (",
                     c.level0_stop_writes_trigger, ") ", c.l0_stops,
                     " times; writes were slowed for ",
                     absl::StrFormat("%.1f s", c.slowdown_seconds),
                     " and stopped for ",
                     absl::StrFormat("%.1f s", c.stop_seconds),
                     " in all; L0 has ", c.l0_files,
                     " files now. Flushes outrun L0->L1 compaction: "
                     "raise max_background_jobs (",
                     s.max_background_jobs, ") or the L0 triggers"));
  }
  if (c.memtable_slowdowns + c.memtable_stops > 0) {
    Add(out, c.memtable_stops ? Finding::kProblem : Finding::kWarning,
        "memtable_stall",
        absl::StrCat(
            cf, ": writes waited for flushes ",
            c.memtable_slowdowns + c.memtable_stops,
            " times (all max_write_buffer_number = ", c.max_write_buffer_number,
            " memtables full): flushes are slower than writes"));
  }
}

// L0 piling up towards the slowdown trigger, or writes stalled for pending
// compaction bytes: compaction is not keeping up with flushes.
void CheckCompactionBehind(const CfStats& c, const std::string& cf,
                           std::vector<Finding>& out) {
  if (c.pending_slowdowns + c.pending_stops > 0 ||
      (!c.disable_auto_compactions &&
       c.level0_file_num_compaction_trigger > 0 &&
       c.l0_files >= kBehindTriggers * c.level0_file_num_compaction_trigger &&
       c.l0_files < c.level0_slowdown_writes_trigger)) {
    Add(out, Finding::kWarning, "compaction_behind",
        absl::StrCat(cf, ": compaction is behind: L0 has ", c.l0_files,
                     " files (compaction starts at ",
                     c.level0_file_num_compaction_trigger, "), ",
                     Mib(c.pending_compaction_bytes),
                     " of compaction pending, ",
                     c.pending_slowdowns + c.pending_stops,
                     " stalls for pending compaction bytes"));
  }
}

// RocksDB stopped by a full or failing disk.
void CheckDisk(const StoreStats& s, std::vector<Finding>& out) {
  if (!s.disk_failing) return;
  const char* refused = s.disk_writes_stopped
                            ? "writes are refused, reads work"
                            : "flushes and compactions are held back";
  if (s.disk_no_space) {
    Add(out, Finding::kProblem, "disk_full",
        absl::StrCat("the data dir's disk is full (RocksDB: ", s.disk_error,
                     "): ", refused,
                     ". Free space there: RocksDB checks every few seconds "
                     "and resumes writes by itself"));
    return;
  }
  Add(out, Finding::kProblem, "disk_error",
      absl::StrCat("RocksDB hit an I/O error (", s.disk_error, "): ", refused,
                   s.disk_fatal
                       ? ". It does not retry: check the disk (dmesg), then "
                         "restart trackd; what was acknowledged is replayed "
                         "from the WAL"
                       : " until RocksDB recovers"));
}

// Bulk-load mode left on.
void CheckBulkLoad(const StoreStats& s, std::vector<Finding>& out) {
  int no_compaction_l0 = 0;
  bool any_disabled = false;
  for (const CfStats& c : s.column_families) {
    if (c.disable_auto_compactions) {
      any_disabled = true;
      no_compaction_l0 += c.l0_files;
    }
  }
  if (s.bulk_load || any_disabled) {
    Add(out, Finding::kWarning, "bulk_load_on",
        absl::StrCat(s.bulk_load ? "bulk-load mode is on"
                                 : "automatic compaction is disabled",
                     ": L0 holds ", no_compaction_l0,
                     " files and keeps growing; every read checks each one "
                     "and reopening gets slow. Unless an import is "
                     "running, turn it off (SetBulkLoad off), which compacts"));
  }
}

// Memory above the budget.
void CheckMemory(const StoreStats& s, const StoreOptions& o,
                 std::vector<Finding>& out) {
  const uint64_t budget = s.memory_budget_bytes;
  if (budget == 0) return;
  const uint64_t rocks =
      s.memtable_budget_bytes > 0 && o.db.write_buffer_manager
          ? s.block_cache_usage_bytes  // memtables are charged into it
          : s.block_cache_usage_bytes + s.memtable_bytes;
  if (rocks > kBudgetSlack * budget) {
    Add(out, Finding::kProblem, "memory_above_budget",
        absl::StrCat("memtables and block cache use ", Mib(rocks),
                     ", above the memory budget of ", Mib(budget),
                     " (memtables ", Mib(s.memtable_bytes), ", cache capacity ",
                     Mib(s.block_cache_capacity_bytes), ")"));
  }
  if (s.process_rss_bytes > kRssSlack * budget) {
    Add(out, Finding::kWarning, "rss_above_budget",
        absl::StrCat(
            "the process RSS is ", Mib(s.process_rss_bytes), ", ",
            absl::StrFormat("%.2f", 1.0 * s.process_rss_bytes / budget),
            "x the memory budget of ", Mib(budget)));
  }
}

// Not a problem in itself: the numbers behind the other findings.
void ReportDiskWrites(const StoreStats& s, std::vector<Finding>& out) {
  const DiskWrites disk = s.disk_writes();
  if (disk.ops == 0) return;
  std::string rates;
  if (s.rate_interval_seconds > 0) {
    rates = absl::StrFormat(" over the last %.1f s: %.0f writes/s, %s/s;",
                            s.rate_interval_seconds, s.disk_writes_per_second,
                            Mib(s.disk_write_bytes_per_second));
  }
  Add(out, Finding::kInfo, "disk_writes",
      absl::StrCat("disk writes since open: ", disk.ops, " averaging ",
                   Mib(disk.avg_bytes()), " (WAL ", s.wal_writes.ops,
                   " averaging ", Mib(s.wal_writes.avg_bytes()), ", SST ",
                   s.sst_writes.ops, " averaging ",
                   Mib(s.sst_writes.avg_bytes()), ");", rates,
                   " write amplification ",
                   absl::StrFormat("%.2f", s.write_amplification()),
                   ", block cache hit rate ",
                   absl::StrFormat("%.1f%%", 100 * s.block_cache_hit_rate())));
}

// Not a problem either: what history costs, raw and in chunks.
void ReportHistoryBytes(const StoreStats& s, std::vector<Finding>& out) {
  const CfStats* points = s.cf(kPointsCf);
  const CfStats* chunks = s.cf(kChunksCf);
  if (!points || !chunks || points->history_fixes + chunks->history_fixes == 0) {
    return;
  }
  Add(out, Finding::kInfo, "history_bytes",
      absl::StrCat(
          "history on disk: ",
          absl::StrFormat("%.2f", s.history_bytes_per_fix()),
          " bytes a fix (", chunks->history_fixes, " fixes in chunks, ",
          points->history_fixes,
          " raw, not yet folded; points ", Mib(points->history_bytes),
          " with the history cells, chunks ", Mib(chunks->history_bytes),
          ")"));
}

}  // namespace

const char* SeverityName(Finding::Severity severity) {
  switch (severity) {
    case Finding::kProblem:
      return "PROBLEM";
    case Finding::kWarning:
      return "WARNING";
    default:
      return "info";
  }
}

std::vector<Finding> Diagnose(const StoreStats& s, const StoreOptions& o) {
  std::vector<Finding> out;
  CheckMemtableKnobs(s, out);
  for (const CfStats& c : s.column_families) {
    const std::string cf = absl::StrCat("column family ", c.name);
    CheckFlushSizes(s, c, cf, out);
    CheckWriteStalls(s, c, cf, out);
    CheckCompactionBehind(c, cf, out);
  }
  CheckDisk(s, out);
  CheckBulkLoad(s, out);
  CheckMemory(s, o, out);
  ReportDiskWrites(s, out);
  ReportHistoryBytes(s, out);
  // Worst first; stable, so that findings of one severity keep this order.
  std::stable_sort(out.begin(), out.end(),
                   [](const Finding& a, const Finding& b) {
                     return a.severity > b.severity;
                   });
  return out;
}

std::string FormatFindings(const std::vector<Finding>& findings) {
  std::string text;
  const bool any =
      std::any_of(findings.begin(), findings.end(),
                  [](const Finding& f) { return f.severity > Finding::kInfo; });
  if (!any) text = "no problems found\n";
  for (const Finding& f : findings) {
    absl::StrAppend(&text, SeverityName(f.severity), " ", f.code, ": ",
                    f.message, "\n");
  }
  return text;
}

}  // namespace trackdb::storage
