// AdminService over a real gRPC server and store.

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/grpc/test_server.h"
#include "storage/backup/backups.h"
#include "storage/store_test_util.h"
#include "trackdb/v1/admin_service.grpc.pb.h"

namespace trackdb::service {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class AdminServiceTest : public ::testing::Test {
 protected:
  AdminServiceTest() : admin_(v1::AdminService::NewStub(server_.channel())) {}

  void AddPoints(int n, int64_t t0) {
    v1::AddPointsRequest request;
    request.set_collection("fleet");
    for (int i = 0; i < n; ++i) {
      v1::Point* p = request.add_points();
      p->set_entity_id(absl::StrCat("car", i));
      p->set_loc_time_ms(1763700000000 + t0);
      p->set_latitude(39.9 + 0.0001 * i);
      p->set_longitude(116.4);
    }
    grpc::ClientContext context;
    v1::AddPointsResponse response;
    ASSERT_TRUE(server_.stub().AddPoints(&context, request, &response).ok());
  }

  testing::TestServer server_;
  std::unique_ptr<v1::AdminService::Stub> admin_;
};

TEST_F(AdminServiceTest, GetStatsReportsWritesPerColumnFamilyAndInfoText) {
  AddPoints(500, 0);
  grpc::ClientContext context;
  v1::GetStatsRequest request;
  v1::GetStatsResponse stats;
  ASSERT_TRUE(admin_->GetStats(&context, request, &stats).ok());
  EXPECT_GT(stats.user_keys_written(), 1000u);
  EXPECT_GT(stats.wal().writes(), 0u);
  EXPECT_GT(stats.disk().bytes(), stats.user_bytes_written() / 2);
  EXPECT_EQ(stats.memtable_budget_bytes(), 16u << 20);  // the test store's
  EXPECT_GT(stats.rate_interval_seconds(), 0);  // since the service started
  EXPECT_GT(stats.disk_write_bytes_per_second(), 0);
  ASSERT_EQ(stats.column_families_size(), 7);
  EXPECT_EQ(stats.column_families(1).name(), "points");
  EXPECT_GT(stats.column_families(1).memtable_bytes(), 0u);
  EXPECT_EQ(stats.column_families(1).level0_stop_writes_trigger(), 64);
  EXPECT_THAT(stats.info_text(), StartsWith("# rocksdb\r\n"));
  EXPECT_THAT(stats.info_text(), HasSubstr("\r\ncf_points:l0_files=0,"));
}

TEST_F(AdminServiceTest, SampleSecondsOutOfRangeIsInvalid) {
  grpc::ClientContext context;
  v1::GetStatsRequest request;
  request.set_sample_seconds(-1);
  v1::GetStatsResponse stats;
  grpc::Status s = admin_->GetStats(&context, request, &stats);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("sample_seconds"));
}

TEST_F(AdminServiceTest, BulkLoadOnIsDiagnosedAndOffCompacts) {
  {
    grpc::ClientContext context;
    v1::SetBulkLoadRequest on;
    on.set_on(true);
    v1::SetBulkLoadResponse response;
    ASSERT_TRUE(admin_->SetBulkLoad(&context, on, &response).ok());
    EXPECT_FALSE(response.was_on());
    EXPECT_TRUE(response.on());
  }
  for (int round = 0; round < 3; ++round) {
    AddPoints(100, round);
    ASSERT_TRUE(storage::testing::FlushAll(server_.store()).ok());
  }
  {
    grpc::ClientContext context;
    v1::DiagnoseResponse diagnosis;
    ASSERT_TRUE(
        admin_->Diagnose(&context, v1::DiagnoseRequest(), &diagnosis).ok());
    ASSERT_GE(diagnosis.findings_size(), 1);
    EXPECT_EQ(diagnosis.findings(0).code(), "bulk_load_on");
    EXPECT_EQ(diagnosis.findings(0).severity(), v1::Finding::SEVERITY_WARNING);
    EXPECT_THAT(diagnosis.text(), HasSubstr("bulk-load mode is on: L0 holds"));
    grpc::ClientContext stats_context;
    v1::GetStatsResponse stats;
    ASSERT_TRUE(
        admin_->GetStats(&stats_context, v1::GetStatsRequest(), &stats).ok());
    EXPECT_TRUE(stats.bulk_load());
    EXPECT_THAT(stats.info_text(), HasSubstr("\r\nbulk_load:1\r\n"));
  }
  {
    grpc::ClientContext context;
    v1::SetBulkLoadRequest off;
    v1::SetBulkLoadResponse response;
    ASSERT_TRUE(admin_->SetBulkLoad(&context, off, &response).ok());
    EXPECT_TRUE(response.was_on());
    EXPECT_FALSE(response.on());
    EXPECT_GE(response.l0_files_before(), 6);  // 3 of points and latest
    EXPECT_EQ(response.l0_files_after(), 0);
  }
  grpc::ClientContext context;
  v1::DiagnoseResponse diagnosis;
  ASSERT_TRUE(
      admin_->Diagnose(&context, v1::DiagnoseRequest(), &diagnosis).ok());
  EXPECT_THAT(diagnosis.text(), StartsWith("no problems found\n"));
}

// Retention over gRPC: TrackService sets it (checked, naming the fields),
// reads stop showing expired history at once, a compaction (bulk-load off
// runs a full one) drops it from disk, and GetStats counts what it dropped.
TEST_F(AdminServiceTest, RetentionHidesReclaimsAndReportsExpiredHistory) {
  auto set = [&](const std::string& collection, int64_t max_age_ms,
                 bool expire_latest) {
    v1::SetRetentionRequest request;
    request.set_collection(collection);
    request.mutable_retention()->set_max_age_ms(max_age_ms);
    request.mutable_retention()->set_expire_latest(expire_latest);
    grpc::ClientContext context;
    v1::SetRetentionResponse response;
    return server_.stub().SetRetention(&context, request, &response);
  };
  grpc::Status bad = set("fleet", -1, false);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad.error_message(), StartsWith("retention.max_age_ms "));
  bad = set("fleet", 0, true);
  EXPECT_THAT(bad.error_message(), StartsWith("retention.expire_latest "));
  bad = set(std::string(100000, 'c'), 1, false);
  EXPECT_THAT(bad.error_message(), StartsWith("collection "));
  v1::SetRetentionRequest counted;
  counted.set_collection("fleet");
  counted.mutable_retention()->set_max_points(-1);
  grpc::ClientContext counted_context;
  v1::SetRetentionResponse counted_response;
  bad =
      server_.stub().SetRetention(&counted_context, counted, &counted_response);
  EXPECT_THAT(bad.error_message(), StartsWith("retention.max_points "));

  AddPoints(10, 0);  // 2025-11-21: more than a day old
  ASSERT_TRUE(set("fleet", 86400000, false).ok());
  v1::GetRetentionRequest get;
  get.set_collection("fleet");
  v1::Retention retention;
  grpc::ClientContext get_context;
  ASSERT_TRUE(server_.stub().GetRetention(&get_context, get, &retention).ok());
  EXPECT_EQ(retention.max_age_ms(), 86400000);
  EXPECT_FALSE(retention.expire_latest());

  v1::GetTrackRequest track;
  track.set_collection("fleet");
  track.set_entity_id("car0");
  v1::GetTrackResponse points;
  grpc::ClientContext track_context;
  ASSERT_TRUE(server_.stub().GetTrack(&track_context, track, &points).ok());
  EXPECT_EQ(points.points_size(), 0);

  grpc::ClientContext compact_context;
  v1::SetBulkLoadRequest off;
  v1::SetBulkLoadResponse compacted;
  ASSERT_TRUE(admin_->SetBulkLoad(&compact_context, off, &compacted).ok());
  grpc::ClientContext stats_context;
  v1::GetStatsResponse stats;
  ASSERT_TRUE(
      admin_->GetStats(&stats_context, v1::GetStatsRequest(), &stats).ok());
  EXPECT_EQ(stats.retention().points_expired(), 10u);
  EXPECT_EQ(stats.retention().entities_expired(), 0u);
}

TEST_F(AdminServiceTest, BackupsAreMadeListedRestoredAndDeleted) {
  AddPoints(10, 0);
  v1::Backup first, second;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(admin_->CreateBackup(&context, {}, &first).ok());
  }
  AddPoints(10, 1000);
  {
    grpc::ClientContext context;
    ASSERT_TRUE(admin_->CreateBackup(&context, {}, &second).ok());
  }
  EXPECT_EQ(second.id(), first.id() + 1);
  EXPECT_GT(second.sequence(), first.sequence());
  EXPECT_GT(second.files(), 0u);
  v1::ListBackupsResponse list;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(admin_->ListBackups(&context, {}, &list).ok());
  }
  // storage.backups_to_keep defaults to 1.
  ASSERT_EQ(list.backups_size(), 1);
  EXPECT_EQ(list.backups(0).id(), second.id());
  EXPECT_THAT(list.backup_dir(), ::testing::EndsWith(".backup"));

  const std::string restored = storage::testing::NewDataDir() + "/restored";
  ASSERT_TRUE(storage::RestoreBackup(list.backup_dir(), 0, restored).ok());
  {
    auto copy = storage::testing::OpenStore(restored);
    auto latest = copy->GetLatest("fleet", "car3");
    ASSERT_TRUE(latest.ok() && latest->has_value());
    EXPECT_EQ((*latest)->loc_time_ms, 1763700000000 + 1000);
  }

  v1::DeleteBackupRequest del;
  v1::DeleteBackupResponse deleted;
  for (const auto& [id, code] :
       std::vector<std::pair<uint32_t, grpc::StatusCode>>{
           {0, grpc::StatusCode::INVALID_ARGUMENT},
           {second.id(), grpc::StatusCode::OK},
           {second.id(), grpc::StatusCode::NOT_FOUND}}) {
    del.set_id(id);
    grpc::ClientContext context;
    EXPECT_EQ(admin_->DeleteBackup(&context, del, &deleted).error_code(), code)
        << id;
  }
}

}  // namespace
}  // namespace trackdb::service
