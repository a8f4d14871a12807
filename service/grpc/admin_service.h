#ifndef TRACKDB_SERVICE_GRPC_ADMIN_SERVICE_H_
#define TRACKDB_SERVICE_GRPC_ADMIN_SERVICE_H_

// trackdb.v1.AdminService over a TrackStore: storage statistics
// (storage/stats/store_stats.h) and the webhooks' counters, the doctor
// (storage/stats/doctor.h) and bulk-load mode (TrackStore::SetBulkLoad).

#include <vector>

#include "grpcpp/grpcpp.h"
#include "service/events/fence_webhook.h"
#include "storage/stats/store_stats.h"
#include "storage/track_store.h"
#include "trackdb/v1/admin_service.grpc.pb.h"

namespace trackdb::service {

inline constexpr double kMaxSampleSeconds = 60;

class AdminServiceImpl final : public v1::AdminService::Service {
 public:
  // `store` and `webhooks` (null: none run) outlive the service.
  explicit AdminServiceImpl(storage::TrackStore* store,
                            const FenceWebhooks* webhooks = nullptr);

  grpc::Status GetStats(grpc::ServerContext*, const v1::GetStatsRequest*,
                        v1::GetStatsResponse*) override;
  grpc::Status Diagnose(grpc::ServerContext*, const v1::DiagnoseRequest*,
                        v1::DiagnoseResponse*) override;
  grpc::Status SetBulkLoad(grpc::ServerContext*, const v1::SetBulkLoadRequest*,
                           v1::SetBulkLoadResponse*) override;

 private:
  // A sample; with sample_seconds > 0, the second of two that far apart.
  grpc::Status Sample(grpc::ServerContext* context, double sample_seconds,
                      storage::StoreStats* out);

  storage::TrackStore* store_;
  const FenceWebhooks* webhooks_;
  storage::StatsSampler sampler_;
};

void StatsToProto(const storage::StoreStats& stats, v1::GetStatsResponse* out);
void WebhookStatsToProto(const std::vector<WebhookStats>& stats,
                         v1::GetStatsResponse* out);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_ADMIN_SERVICE_H_
