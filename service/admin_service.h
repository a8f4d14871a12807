#ifndef TRACKDB_SERVICE_ADMIN_SERVICE_H_
#define TRACKDB_SERVICE_ADMIN_SERVICE_H_

// trackdb.v1.AdminService over a TrackStore: storage statistics
// (storage/stats/store_stats.h), the doctor (tools/doctor/doctor.h) and
// bulk-load mode (TrackStore::SetBulkLoad).

#include "grpcpp/grpcpp.h"
#include "storage/stats/store_stats.h"
#include "storage/track_store.h"
#include "trackdb/v1/admin_service.grpc.pb.h"

namespace trackdb::service {

inline constexpr double kMaxSampleSeconds = 60;

class AdminServiceImpl final : public v1::AdminService::Service {
 public:
  // `store` outlives the service.
  explicit AdminServiceImpl(storage::TrackStore* store);

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
  storage::StatsSampler sampler_;
};

void StatsToProto(const storage::StoreStats& stats, v1::GetStatsResponse* out);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_ADMIN_SERVICE_H_
