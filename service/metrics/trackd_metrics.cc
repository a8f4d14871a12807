#include "service/metrics/trackd_metrics.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "storage/replication/replication.h"
#include "storage/stats/store_stats.h"

namespace trackdb::metrics {
namespace {

double Seconds(int64_t ms) { return static_cast<double>(ms) / 1000; }

// Families of one sample per column family.
void PerColumnFamily(PrometheusText& out, const storage::StoreStats& stats,
                     absl::string_view name, absl::string_view help,
                     const std::function<double(const storage::CfStats&)>& of) {
  out.Family(name, "gauge", help);
  for (const storage::CfStats& cf : stats.column_families) {
    out.Sample(name, {{"column_family", cf.name}}, of(cf));
  }
}

void WriteMemory(const storage::StoreStats& s, PrometheusText& out) {
  out.Gauge("trackdb_memory_budget_bytes",
            "storage.memory_budget_mb: the block cache, memtables and the "
            "latest index together",
            static_cast<double>(s.memory_budget_bytes));
  out.Gauge("trackdb_block_cache_usage_bytes",
            "Memory charged to the budget (memtables and latest index "
            "included)",
            static_cast<double>(s.block_cache_usage_bytes));
  out.Gauge("trackdb_memtable_bytes", "Memtables of every column family",
            static_cast<double>(s.memtable_bytes));
  out.Gauge("trackdb_latest_index_bytes",
            "The in-memory latest index (charged to the budget)",
            static_cast<double>(s.latest_index_bytes));
  out.Counter("trackdb_block_cache_hits_total", "Block cache hits",
              static_cast<double>(s.block_cache_hits));
  out.Counter("trackdb_block_cache_misses_total", "Block cache misses",
              static_cast<double>(s.block_cache_misses));
  out.Gauge("process_resident_memory_bytes", "Resident memory (VmRSS)",
            static_cast<double>(s.process_rss_bytes));
}

void WriteDisk(const storage::StoreStats& s, PrometheusText& out) {
  out.Counter("trackdb_rocksdb_stall_seconds_total",
              "Time writers were delayed or stopped by RocksDB's write stalls",
              static_cast<double>(s.stall_micros) / 1e6);
  out.Gauge("trackdb_rocksdb_write_stopped", "1 while writes are stopped",
            s.write_stopped ? 1 : 0);
  PerColumnFamily(out, s, "trackdb_rocksdb_pending_compaction_bytes",
                  "Compaction debt: bytes compaction has yet to rewrite",
                  [](const storage::CfStats& cf) {
                    return static_cast<double>(cf.pending_compaction_bytes);
                  });
  PerColumnFamily(out, s, "trackdb_rocksdb_l0_files", "Files in level 0",
                  [](const storage::CfStats& cf) {
                    return static_cast<double>(cf.l0_files);
                  });
  PerColumnFamily(out, s, "trackdb_disk_sst_bytes",
                  "Bytes of the live table files on disk",
                  [](const storage::CfStats& cf) {
                    return static_cast<double>(cf.live_sst_bytes);
                  });
  out.Family("trackdb_disk_written_bytes_total", "counter",
             "Bytes written to disk, by kind of file");
  out.Sample("trackdb_disk_written_bytes_total", {{"kind", "wal"}},
             static_cast<double>(s.wal_writes.bytes));
  out.Sample("trackdb_disk_written_bytes_total", {{"kind", "sst"}},
             static_cast<double>(s.sst_writes.bytes));
  out.Sample("trackdb_disk_written_bytes_total", {{"kind", "other"}},
             static_cast<double>(s.other_writes.bytes));
  out.Counter("trackdb_client_written_bytes_total",
              "Key and value bytes clients' writes put into the store",
              static_cast<double>(s.user_bytes_written));
  out.Gauge("trackdb_disk_failing",
            "1 while RocksDB reports a background (disk) error",
            s.disk_failing ? 1 : 0);
}

void WriteActivity(storage::TrackStore& store, PrometheusText& out) {
  const storage::Activity a = store.activity();
  out.Counter("trackdb_points_ingested_total",
              "Track points written by this node's doors",
              static_cast<double>(a.points_written));
  out.Gauge("trackdb_entities", "Entities with a latest position",
            static_cast<double>(store.EntityCount()));
  // Searches by command or method are the doors' counters; these say what
  // they cost the store.
  out.Counter("trackdb_index_scans_total",
              "Scans of the latest index: one or more a search (the "
              "nearest few are looked for in smaller circles first)",
              static_cast<double>(a.region_scans));
  out.Counter("trackdb_history_searches_total",
              "Searches of history in space and time",
              static_cast<double>(a.history_searches));
  out.Counter("trackdb_fence_events_total",
              "Geofence events committed by this node's writes",
              static_cast<double>(a.fence_events));
}

void WriteWebhooks(const service::FenceWebhooks* webhooks,
                   PrometheusText& out) {
  const std::vector<service::WebhookStats> hooks =
      webhooks ? webhooks->Stats() : std::vector<service::WebhookStats>();
  const std::pair<const char*, const char*> families[] = {
      {"trackdb_webhook_deliveries_total", "Fence events a webhook accepted"},
      {"trackdb_webhook_failures_total", "Webhook POSTs that failed"},
      {"trackdb_webhook_retries_total", "Webhook POSTs sent again"}};
  for (const auto& [name, help] : families) {
    out.Family(name, "counter", help);
    for (const service::WebhookStats& h : hooks) {
      const service::WebhookCounters& c = h.counters;
      const uint64_t value = name == families[0].first   ? c.delivered
                             : name == families[1].first ? c.failed
                                                         : c.retried;
      out.Sample(name, {{"webhook", h.name}}, static_cast<double>(value));
    }
  }
}

void WritePrimary(const TrackdSources& s, int64_t now_ms, PrometheusText& out) {
  const uint64_t latest = storage::LatestSequence(*s.store);
  out.Gauge("trackdb_replication_offset",
            "The sequence of the store's last write",
            static_cast<double>(latest));
  const std::vector<replication::ReplicaInfo> replicas =
      s.replicas ? s.replicas->Replicas()
                 : std::vector<replication::ReplicaInfo>();
  out.Gauge("trackdb_connected_replicas", "Replicas following this node",
            static_cast<double>(replicas.size()));
  out.Family("trackdb_replica_lag_writes", "gauge",
             "Writes a replica has yet to apply");
  for (const replication::ReplicaInfo& r : replicas) {
    out.Sample(
        "trackdb_replica_lag_writes",
        {{"replica", absl::StrCat(r.ip, ":", r.port)}},
        static_cast<double>(latest > r.applied ? latest - r.applied : 0));
  }
  out.Family("trackdb_replica_last_pull_age_seconds", "gauge",
             "Seconds since a replica last pulled");
  for (const replication::ReplicaInfo& r : replicas) {
    out.Sample("trackdb_replica_last_pull_age_seconds",
               {{"replica", absl::StrCat(r.ip, ":", r.port)}},
               Seconds(now_ms - r.last_pull_ms));
  }
}

void WriteReplication(const TrackdSources& s, PrometheusText& out) {
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  auto link = s.role ? s.role->LinkState() : std::nullopt;
  out.Gauge("trackdb_replica", "1 when this node follows a primary",
            link ? 1 : 0);
  if (!link) return WritePrimary(s, now_ms, out);
  const replication::LinkStatus& st = link->second;
  out.Gauge("trackdb_replication_link_up",
            "1 while the link to the primary is in sync", st.up ? 1 : 0);
  out.Gauge("trackdb_replication_last_io_age_seconds",
            "Seconds since the primary last answered",
            st.last_io_ms ? Seconds(now_ms - st.last_io_ms) : -1);
  out.Gauge("trackdb_replication_applied_offset",
            "The primary's sequence this replica has applied",
            static_cast<double>(st.applied));
  out.Counter("trackdb_replication_full_syncs_total",
              "Full syncs from the primary",
              static_cast<double>(st.full_syncs));
}

void WriteBackups(service::BackupJob* backups, PrometheusText& out) {
  if (backups == nullptr) return;
  const service::BackupJob::State st = backups->state();
  out.Gauge("trackdb_backup_in_progress", "1 while a backup runs",
            st.in_progress ? 1 : 0);
  out.Gauge("trackdb_last_backup_success_timestamp_seconds",
            "When the last successful backup ended (Unix time; 0: none)",
            static_cast<double>(st.last_success_unix_s));
  out.Gauge("trackdb_last_backup_ok", "1 unless the last backup failed",
            st.last_ok ? 1 : 0);
}

}  // namespace

std::string RenderMetrics(const TrackdSources& s,
                          const storage::StoreStats& stats) {
  PrometheusText out;
  if (s.resp)
    s.resp->Write("trackdb_resp_command", "command", "RESP command", out);
  if (s.grpc) s.grpc->Write("trackdb_grpc_request", "method", "gRPC call", out);
  if (s.resp_clients) {
    out.Gauge("trackdb_resp_connected_clients", "Open RESP connections",
              static_cast<double>(s.resp_clients()));
  }
  WriteActivity(*s.store, out);
  WriteWebhooks(s.webhooks, out);
  WriteReplication(s, out);
  WriteMemory(stats, out);
  WriteDisk(stats, out);
  WriteBackups(s.backups, out);
  return out.text();
}

void TrackdEndpoints::Attach(TrackdSources sources) {
  absl::MutexLock l(&mu_);
  sources_ = std::move(sources);
}

void TrackdEndpoints::Detach() {
  absl::MutexLock l(&mu_);
  stopping_ = true;
  sources_.reset();
}

HttpAnswer TrackdEndpoints::Ready(const storage::StoreStats* stats) {
  auto unavailable = [](absl::string_view why) {
    return HttpAnswer{503, "text/plain; charset=utf-8",
                      absl::StrCat(why, "\n")};
  };
  if (stopping_) return unavailable("stopping");
  if (!sources_) return unavailable("starting: opening the store");
  if (stats->disk_fatal) {
    return unavailable(absl::StrCat("disk error: ", stats->disk_error));
  }
  if (sources_->role != nullptr) {
    if (auto link = sources_->role->LinkState(); link && !link->second.up) {
      return unavailable(absl::StrCat("replica of ", link->first.host, ":",
                                      link->first.port, " not in sync",
                                      link->second.last_error.empty()
                                          ? ""
                                          : ": " + link->second.last_error));
    }
  }
  return HttpAnswer{200, "text/plain; charset=utf-8", "ready\n"};
}

HttpAnswer TrackdEndpoints::Healthy(const storage::StoreStats* stats) {
  if (stats != nullptr && stats->disk_fatal) {
    return HttpAnswer{
        503, "text/plain; charset=utf-8",
        absl::StrCat("disk error, restart needed: ", stats->disk_error, "\n")};
  }
  return HttpAnswer{200, "text/plain; charset=utf-8", "ok\n"};
}

HttpAnswer TrackdEndpoints::Handle(absl::string_view path) {
  if (path != "/healthz" && path != "/readyz" && path != "/metrics") {
    return HttpAnswer{404, "text/plain; charset=utf-8",
                      "not found: /metrics, /healthz and /readyz are served\n"};
  }
  absl::ReaderMutexLock l(&mu_);
  // Read once an answer: /metrics reports them and its readiness.
  std::optional<storage::StoreStats> stats;
  if (sources_) stats = storage::ReadStoreStats(*sources_->store);
  const storage::StoreStats* read = stats ? &*stats : nullptr;
  if (path == "/healthz") return Healthy(read);
  if (path == "/readyz") return Ready(read);
  PrometheusText out;
  out.Gauge("trackdb_ready", "1 when /readyz answers 200",
            Ready(read).status == 200 ? 1 : 0);
  std::string text = out.text();
  if (sources_) text += RenderMetrics(*sources_, *stats);
  return HttpAnswer{200, kPrometheusContentType, std::move(text)};
}

}  // namespace trackdb::metrics
