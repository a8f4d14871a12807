#include "service/grpc/admin_service.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "service/grpc/grpc_status.h"
#include "storage/stats/doctor.h"
#include "storage/stats/info_section.h"

namespace trackdb::service {
namespace {

void ToProto(const storage::DiskWrites& w, v1::DiskWriteStats* out) {
  out->set_writes(w.ops);
  out->set_bytes(w.bytes);
  out->set_avg_bytes(w.avg_bytes());
}

}  // namespace

void StatsToProto(const storage::StoreStats& s, v1::GetStatsResponse* out) {
  out->set_seconds_since_open(s.seconds_since_open);
  out->set_bulk_load(s.bulk_load);
  out->set_memory_budget_bytes(s.memory_budget_bytes);
  out->set_memtable_budget_bytes(s.memtable_budget_bytes);
  out->set_memtable_bytes(s.memtable_bytes);
  out->set_block_cache_capacity_bytes(s.block_cache_capacity_bytes);
  out->set_block_cache_usage_bytes(s.block_cache_usage_bytes);
  out->set_latest_index_bytes(s.latest_index_bytes);
  out->set_block_cache_hit_rate(s.block_cache_hit_rate());
  out->set_process_rss_bytes(s.process_rss_bytes);
  out->set_user_keys_written(s.user_keys_written);
  out->set_user_bytes_written(s.user_bytes_written);
  ToProto(s.disk_writes(), out->mutable_disk());
  ToProto(s.wal_writes, out->mutable_wal());
  ToProto(s.sst_writes, out->mutable_sst());
  out->set_write_amplification(s.write_amplification());
  out->set_rate_interval_seconds(s.rate_interval_seconds);
  out->set_disk_write_bytes_per_second(s.disk_write_bytes_per_second);
  out->set_disk_writes_per_second(s.disk_writes_per_second);
  out->set_user_bytes_per_second(s.user_bytes_per_second);
  out->set_stall_micros(s.stall_micros);
  out->set_slowdown_seconds(s.slowdown_seconds());
  out->set_stop_seconds(s.stop_seconds());
  out->set_write_stopped(s.write_stopped);
  out->set_l0_files(s.l0_files());
  out->set_pending_compaction_bytes(s.pending_compaction_bytes());
  out->set_history_bytes_per_fix(s.history_bytes_per_fix());
  for (const storage::CfStats& c : s.column_families) {
    v1::ColumnFamilyStats* cf = out->add_column_families();
    cf->set_name(c.name);
    cf->set_l0_files(c.l0_files);
    cf->set_l0_bytes(c.l0_bytes);
    cf->set_live_sst_bytes(c.live_sst_bytes);
    cf->set_history_fixes(c.history_fixes);
    cf->set_pending_compaction_bytes(c.pending_compaction_bytes);
    cf->set_memtable_bytes(c.memtable_bytes);
    cf->set_flushes(c.flushes);
    cf->set_flush_bytes(c.flush_bytes);
    cf->set_avg_flush_bytes(c.avg_flush_bytes());
    cf->set_compaction_bytes(c.compaction_bytes);
    cf->set_write_amplification(c.write_amplification());
    cf->set_slowdowns(c.slowdowns);
    cf->set_stops(c.stops);
    cf->set_slowdown_seconds(c.slowdown_seconds);
    cf->set_stop_seconds(c.stop_seconds);
    cf->set_l0_slowdowns(c.l0_slowdowns);
    cf->set_l0_stops(c.l0_stops);
    cf->set_memtable_stalls(c.memtable_slowdowns + c.memtable_stops);
    cf->set_pending_compaction_stalls(c.pending_slowdowns + c.pending_stops);
    cf->set_write_buffer_size(c.write_buffer_size);
    cf->set_max_write_buffer_number(c.max_write_buffer_number);
    cf->set_level0_file_num_compaction_trigger(
        c.level0_file_num_compaction_trigger);
    cf->set_level0_slowdown_writes_trigger(c.level0_slowdown_writes_trigger);
    cf->set_level0_stop_writes_trigger(c.level0_stop_writes_trigger);
    cf->set_disable_auto_compactions(c.disable_auto_compactions);
  }
  out->set_info_text(storage::FormatInfoSection(s));
}

void WebhookStatsToProto(const std::vector<WebhookStats>& stats,
                         v1::GetStatsResponse* out) {
  for (const WebhookStats& s : stats) {
    v1::WebhookStats* w = out->add_webhooks();
    w->set_name(s.name);
    w->set_collection(s.collection);
    w->set_url(s.url);
    w->set_delivered(s.counters.delivered);
    w->set_retried(s.counters.retried);
    w->set_failed(s.counters.failed);
    w->set_pending(s.pending);
  }
}

AdminServiceImpl::AdminServiceImpl(storage::TrackStore* store,
                                   const FenceWebhooks* webhooks,
                                   std::shared_ptr<BackupJob> backups,
                                   const v1::TrackdbConfig& config)
    : store_(store),
      webhooks_(webhooks),
      backups_(backups != nullptr
                   ? std::move(backups)
                   : std::make_shared<BackupJob>(store, config)) {
  sampler_.Sample(*store_);  // the first interval starts at startup
}

grpc::Status AdminServiceImpl::Sample(grpc::ServerContext* context,
                                      double sample_seconds,
                                      storage::StoreStats* out) {
  if (!(sample_seconds >= 0 && sample_seconds <= kMaxSampleSeconds)) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("sample_seconds must be in [0, ", kMaxSampleSeconds,
                     "], got ", sample_seconds));
  }
  if (sample_seconds > 0) {
    sampler_.Sample(*store_);
    const absl::Time end = absl::Now() + absl::Seconds(sample_seconds);
    while (absl::Now() < end) {
      if (context->IsCancelled()) {
        return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
      }
      absl::SleepFor(std::min(absl::Milliseconds(100), end - absl::Now()));
    }
  }
  *out = sampler_.Sample(*store_);
  return grpc::Status::OK;
}

grpc::Status AdminServiceImpl::GetStats(grpc::ServerContext* context,
                                        const v1::GetStatsRequest* request,
                                        v1::GetStatsResponse* response) {
  storage::StoreStats stats;
  grpc::Status s = Sample(context, request->sample_seconds(), &stats);
  if (!s.ok()) return s;
  StatsToProto(stats, response);
  if (webhooks_ != nullptr) WebhookStatsToProto(webhooks_->Stats(), response);
  const storage::RetentionCounters retention = store_->retention().counters();
  response->mutable_retention()->set_points_expired(retention.points_expired);
  response->mutable_retention()->set_entities_expired(
      retention.entities_expired);
  response->mutable_retention()->set_points_trimmed(retention.points_trimmed);
  return grpc::Status::OK;
}

grpc::Status AdminServiceImpl::Diagnose(grpc::ServerContext* context,
                                        const v1::DiagnoseRequest* request,
                                        v1::DiagnoseResponse* response) {
  storage::StoreStats stats;
  grpc::Status s = Sample(context, request->sample_seconds(), &stats);
  if (!s.ok()) return s;
  const std::vector<storage::Finding> findings =
      storage::Diagnose(stats, store_->options());
  for (const storage::Finding& f : findings) {
    v1::Finding* out = response->add_findings();
    out->set_severity(static_cast<v1::Finding::Severity>(f.severity));
    out->set_code(f.code);
    out->set_message(f.message);
  }
  response->set_text(storage::FormatFindings(findings));
  return grpc::Status::OK;
}

grpc::Status AdminServiceImpl::SetBulkLoad(
    grpc::ServerContext*, const v1::SetBulkLoadRequest* request,
    v1::SetBulkLoadResponse* response) {
  auto change = store_->SetBulkLoad(request->on());
  if (!change.ok()) return ToGrpc(change.status());
  response->set_was_on(change->was_on);
  response->set_on(change->on);
  response->set_compaction_seconds(change->compaction_seconds);
  response->set_l0_files_before(change->l0_files_before);
  response->set_l0_files_after(change->l0_files_after);
  return grpc::Status::OK;
}

namespace {
void BackupToProto(const storage::BackupInfo& info, v1::Backup* out) {
  out->set_id(info.id);
  out->set_created_unix_s(info.unix_s);
  out->set_bytes(info.bytes);
  out->set_files(info.files);
  out->set_sequence(info.sequence);
}
}  // namespace

grpc::Status AdminServiceImpl::CreateBackup(grpc::ServerContext*,
                                            const v1::CreateBackupRequest*,
                                            v1::Backup* response) {
  absl::StatusOr<storage::BackupInfo> info = backups_->RunNow();
  if (!info.ok()) return ToGrpc(info.status());
  BackupToProto(*info, response);
  return grpc::Status::OK;
}

grpc::Status AdminServiceImpl::ListBackups(grpc::ServerContext*,
                                           const v1::ListBackupsRequest*,
                                           v1::ListBackupsResponse* response) {
  absl::StatusOr<std::vector<storage::BackupInfo>> list = backups_->List();
  if (!list.ok()) return ToGrpc(list.status());
  for (const storage::BackupInfo& info : *list) {
    BackupToProto(info, response->add_backups());
  }
  response->set_backup_dir(backups_->backup_dir());
  return grpc::Status::OK;
}

grpc::Status AdminServiceImpl::DeleteBackup(
    grpc::ServerContext*, const v1::DeleteBackupRequest* request,
    v1::DeleteBackupResponse*) {
  if (request->id() == 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "id: a backup's id (ListBackups), 1 or more");
  }
  return ToGrpc(backups_->Delete(request->id()));
}

}  // namespace trackdb::service
