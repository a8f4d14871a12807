#ifndef TRACKDB_SERVICE_GRPC_ADMIN_SERVICE_H_
#define TRACKDB_SERVICE_GRPC_ADMIN_SERVICE_H_

// trackdb.v1.AdminService over a TrackStore: storage statistics
// (storage/stats/store_stats.h) and the webhooks' counters, the doctor
// (storage/stats/doctor.h), bulk-load mode (TrackStore::SetBulkLoad) and
// backups (service/jobs/backup_job.h).

#include <memory>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "service/events/fence_webhook.h"
#include "service/jobs/backup_job.h"
#include "storage/stats/store_stats.h"
#include "storage/track_store.h"
#include "trackdb/v1/admin_service.grpc.pb.h"

namespace trackdb::service {

inline constexpr double kMaxSampleSeconds = 60;

class AdminServiceImpl final : public v1::AdminService::Service {
 public:
  // `store` and `webhooks` (null: none run) outlive the service. `backups`
  // may be shared with the RESP door (null: the service's own, from
  // `config`).
  explicit AdminServiceImpl(storage::TrackStore* store,
                            const FenceWebhooks* webhooks = nullptr,
                            std::shared_ptr<BackupJob> backups = nullptr,
                            const v1::TrackdbConfig& config = {});

  grpc::Status GetStats(grpc::ServerContext*, const v1::GetStatsRequest*,
                        v1::GetStatsResponse*) override;
  grpc::Status Diagnose(grpc::ServerContext*, const v1::DiagnoseRequest*,
                        v1::DiagnoseResponse*) override;
  grpc::Status SetBulkLoad(grpc::ServerContext*, const v1::SetBulkLoadRequest*,
                           v1::SetBulkLoadResponse*) override;
  grpc::Status CreateBackup(grpc::ServerContext*,
                            const v1::CreateBackupRequest*,
                            v1::Backup*) override;
  grpc::Status ListBackups(grpc::ServerContext*, const v1::ListBackupsRequest*,
                           v1::ListBackupsResponse*) override;
  grpc::Status DeleteBackup(grpc::ServerContext*,
                            const v1::DeleteBackupRequest*,
                            v1::DeleteBackupResponse*) override;

 private:
  // A sample; with sample_seconds > 0, the second of two that far apart.
  grpc::Status Sample(grpc::ServerContext* context, double sample_seconds,
                      storage::StoreStats* out);

  storage::TrackStore* store_;
  const FenceWebhooks* webhooks_;
  const std::shared_ptr<BackupJob> backups_;
  storage::StatsSampler sampler_;
};

void StatsToProto(const storage::StoreStats& stats, v1::GetStatsResponse* out);
void WebhookStatsToProto(const std::vector<WebhookStats>& stats,
                         v1::GetStatsResponse* out);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_ADMIN_SERVICE_H_
