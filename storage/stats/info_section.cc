#include "storage/stats/info_section.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trackdb::storage {
namespace {

std::string Fixed(double v, int digits) {
  return absl::StrFormat("%.*f", digits, v);
}

}  // namespace

std::string FormatInfoSection(const storage::StoreStats& s) {
  std::string out = "# rocksdb\r\n";
  auto line = [&out](absl::string_view key, const auto& value) {
    absl::StrAppend(&out, key, ":", value, "\r\n");
  };
  const storage::DiskWrites disk = s.disk_writes();
  line("bulk_load", s.bulk_load ? 1 : 0);
  line("memory_budget_bytes", s.memory_budget_bytes);
  line("memtable_budget_bytes", s.memtable_budget_bytes);
  line("memtable_bytes", s.memtable_bytes);
  line("block_cache_capacity_bytes", s.block_cache_capacity_bytes);
  line("block_cache_usage_bytes", s.block_cache_usage_bytes);
  line("block_cache_pinned_bytes", s.block_cache_pinned_bytes);
  line("latest_index_bytes", s.latest_index_bytes);
  line("block_cache_hit_rate", Fixed(s.block_cache_hit_rate(), 4));
  line("process_rss_bytes", s.process_rss_bytes);
  line("user_keys_written", s.user_keys_written);
  line("user_bytes_written", s.user_bytes_written);
  line("disk_writes", disk.ops);
  line("disk_write_bytes", disk.bytes);
  line("disk_avg_write_bytes", Fixed(disk.avg_bytes(), 0));
  line("wal_writes", s.wal_writes.ops);
  line("wal_write_bytes", s.wal_writes.bytes);
  line("sst_writes", s.sst_writes.ops);
  line("sst_write_bytes", s.sst_writes.bytes);
  line("write_amplification", Fixed(s.write_amplification(), 2));
  line("rate_interval_seconds", Fixed(s.rate_interval_seconds, 1));
  line("disk_write_bytes_per_sec", Fixed(s.disk_write_bytes_per_second, 0));
  line("disk_writes_per_sec", Fixed(s.disk_writes_per_second, 0));
  line("user_bytes_per_sec", Fixed(s.user_bytes_per_second, 0));
  line("flushes", s.flushes());
  line("avg_flush_bytes",
       Fixed(
           s.flushes() ? static_cast<double>(s.flush_bytes()) / s.flushes() : 0,
           0));
  line("l0_files", s.l0_files());
  line("pending_compaction_bytes", s.pending_compaction_bytes());
  line("stall_micros", s.stall_micros);
  line("slowdown_seconds", Fixed(s.slowdown_seconds(), 3));
  line("stop_seconds", Fixed(s.stop_seconds(), 3));
  line("write_stopped", s.write_stopped ? 1 : 0);
  // RocksDB's background error, as Redis's aof_last_write_status: ok, or
  // why writes are refused.
  line("disk_status",
       !s.disk_failing ? "ok" : (s.disk_no_space ? "no_space" : "io_error"));
  line("disk_writes_refused", s.disk_writes_stopped ? 1 : 0);
  line("disk_error", s.disk_error);
  line("background_errors", s.background_errors);
  line("error_recoveries", s.error_recoveries);
  line("delayed_write_rate", s.delayed_write_rate);
  line("history_bytes_per_fix", Fixed(s.history_bytes_per_fix(), 2));
  for (const storage::CfStats& c : s.column_families) {
    line(absl::StrCat("cf_", c.name),
         absl::StrCat(
             "l0_files=", c.l0_files, ",l0_bytes=", c.l0_bytes,
             ",live_sst_bytes=", c.live_sst_bytes,
             ",pending_compaction_bytes=", c.pending_compaction_bytes,
             ",memtable_bytes=", c.memtable_bytes, ",flushes=", c.flushes,
             ",avg_flush_bytes=", Fixed(c.avg_flush_bytes(), 0),
             ",write_amplification=", Fixed(c.write_amplification(), 2),
             ",slowdowns=", c.slowdowns, ",stops=", c.stops,
             ",slowdown_seconds=", Fixed(c.slowdown_seconds, 3),
             ",stop_seconds=", Fixed(c.stop_seconds, 3),
             ",l0_slowdowns=", c.l0_slowdowns, ",l0_stops=", c.l0_stops,
             ",history_fixes=", c.history_fixes));
  }
  return out;
}

}  // namespace trackdb::storage
