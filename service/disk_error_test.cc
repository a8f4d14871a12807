// A full or failing disk as clients see it, on both doors over one store
// (storage/engine/disk_faults.h): writes fail at once, gRPC with
// RESOURCE_EXHAUSTED (no space) or UNAVAILABLE (I/O error), RESP with
// Redis's -MISCONF; reads keep working; INFO says why; once there is space
// again writes resume on both doors by themselves. A write stall is
// answered at once too.

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "conf/config.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "service/grpc/grpc_server.h"
#include "service/resp/server/resp_server.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/engine/disk_faults.h"
#include "storage/format/keys.h"
#include "storage/store_test_util.h"
#include "storage/track_store.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb::service {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Fault = storage::DiskFaults::Fault;

class DiskErrorTest : public ::testing::Test {
 protected:
  void SetUp() override { Start(v1::StorageConfig()); }

  // Serves a fresh store with `storage` (small memtables unless it says)
  // on both doors, replacing what SetUp started.
  void Start(const v1::StorageConfig& storage) {
    TearDown();
    v1::TrackdbConfig config;
    config.mutable_storage()->set_write_buffer_size_mb(1);
    config.mutable_storage()->set_block_cache_size_mb(8);
    config.mutable_storage()->MergeFrom(storage);
    config = conf::WithDefaults(config);
    config.mutable_server()->set_grpc_port(0);
    config.mutable_server()->set_resp_port(0);
    config.mutable_server()->set_resp_bind_address("127.0.0.1");
    auto store = storage::TrackStore::Open(storage::testing::NewDataDir(),
                                           config.storage(), faults_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    auto grpc_server = GrpcServer::Start(config, store_.get());
    ASSERT_TRUE(grpc_server.ok()) << grpc_server.status();
    grpc_ = *std::move(grpc_server);
    auto resp_server = resp::RespServer::Start(config, store_.get());
    ASSERT_TRUE(resp_server.ok()) << resp_server.status();
    resp_ = *std::move(resp_server);
    stub_ = v1::TrackService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", grpc_->port()),
                            grpc::InsecureChannelCredentials()));
    redis_ = std::make_unique<resp::testing::RawClient>(resp_->port());
  }
  void TearDown() override {
    faults_->Set(Fault::kNone);
    redis_.reset();
    stub_.reset();
    if (resp_) resp_->Shutdown();
    if (grpc_) grpc_->Shutdown(absl::Seconds(1));
    resp_.reset();
    grpc_.reset();
    store_.reset();
  }

  grpc::Status AddPoint(const std::string& entity, int64_t t) {
    v1::AddPointsRequest request;
    request.set_collection("fleet");
    v1::Point* p = request.add_points();
    p->set_entity_id(entity);
    p->set_loc_time_ms(t);
    p->set_latitude(30);
    p->set_longitude(120);
    v1::AddPointsResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    return stub_->AddPoints(&context, request, &response);
  }

  int LatestCount(const std::string& entity) {
    v1::GetLatestRequest request;
    request.set_collection("fleet");
    request.add_entity_ids(entity);
    v1::GetLatestResponse response;
    grpc::ClientContext context;
    grpc::Status s = stub_->GetLatest(&context, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response.points_size();
  }

  std::string Info() { return redis_->Call({"INFO", "rocksdb"}); }

  // Both doors refuse writes with `code` / -MISCONF and still read.
  void ExpectWritesRefused(grpc::StatusCode code, const std::string& why) {
    const auto before = std::chrono::steady_clock::now();
    grpc::Status s = AddPoint("b", 1700000002000);
    EXPECT_EQ(s.error_code(), code) << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(why));
    const std::string geoadd =
        redis_->Call({"GEOADD", "fleet", "120", "30", "c"});
    EXPECT_THAT(geoadd,
                StartsWith("-MISCONF Errors writing to the data dir: "));
    EXPECT_THAT(geoadd, HasSubstr(why));
    EXPECT_THAT(redis_->Call({"SET", "k", "v"}), StartsWith("-MISCONF "));
    EXPECT_LT(std::chrono::steady_clock::now() - before,
              std::chrono::seconds(2));
    EXPECT_EQ(LatestCount("a"), 1);
    EXPECT_EQ(LatestCount("b"), 0);
    EXPECT_THAT(redis_->Call({"GEOPOS", "fleet", "a"}), StartsWith("*1\r\n*2"));
    EXPECT_THAT(Info(), HasSubstr("\r\ndisk_writes_refused:1\r\n"));
  }

  std::shared_ptr<storage::DiskFaults> faults_ =
      std::make_shared<storage::DiskFaults>();
  std::unique_ptr<storage::TrackStore> store_;
  std::unique_ptr<GrpcServer> grpc_;
  std::unique_ptr<resp::RespServer> resp_;
  std::unique_ptr<v1::TrackService::Stub> stub_;
  std::unique_ptr<resp::testing::RawClient> redis_;
};

TEST_F(DiskErrorTest, FullDiskRefusesWritesUntilThereIsSpace) {
  ASSERT_TRUE(AddPoint("a", 1700000001000).ok());
  EXPECT_THAT(Info(), HasSubstr("\r\ndisk_status:ok\r\n"));
  faults_->Set(Fault::kNoSpace);
  ExpectWritesRefused(grpc::StatusCode::RESOURCE_EXHAUSTED,
                      "no space left on device");
  EXPECT_THAT(Info(), HasSubstr("\r\ndisk_status:no_space\r\n"));

  faults_->Set(Fault::kNone);
  grpc::Status s;
  for (int i = 0; i < 600 && !(s = AddPoint("b", 1700000002000)).ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(redis_->Call({"GEOADD", "fleet", "120", "30", "c"}), ":1\r\n");
  EXPECT_EQ(redis_->Call({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_THAT(Info(), HasSubstr("\r\ndisk_status:ok\r\n"));
  EXPECT_EQ(LatestCount("b"), 1);
}

TEST_F(DiskErrorTest, IoErrorRefusesWrites) {
  ASSERT_TRUE(AddPoint("a", 1700000001000).ok());
  faults_->Set(Fault::kIoError);
  ExpectWritesRefused(grpc::StatusCode::UNAVAILABLE, "disk I/O error");
  EXPECT_THAT(Info(), HasSubstr("\r\ndisk_status:io_error\r\n"));
}

// While RocksDB stops writes (L0 at level0_stop_writes_trigger, nothing
// compacting), writes are refused at once: RESOURCE_EXHAUSTED, RESP -BUSY.
TEST_F(DiskErrorTest, WriteStallAnswersAtOnce) {
  v1::StorageConfig storage;
  storage.set_level0_file_num_compaction_trigger(1);
  storage.set_level0_slowdown_writes_trigger(2);
  storage.set_level0_stop_writes_trigger(3);
  storage.set_rocksdb_cf_options("compaction_style=kCompactionStyleNone");
  Start(storage);
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(AddPoint("a", 1700000001000 + round).ok());
    ASSERT_TRUE(storage::testing::FlushColumnFamily(
                    *store_, storage::ColumnFamily::kPoints)
                    .ok());
  }
  const auto before = std::chrono::steady_clock::now();
  grpc::Status s = AddPoint("b", 1700000002000);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << s.error_message();
  EXPECT_THAT(s.error_message(), HasSubstr("write stall"));
  EXPECT_THAT(redis_->Call({"GEOADD", "fleet", "120", "30", "c"}),
              StartsWith("-BUSY "));
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(2));
  EXPECT_EQ(LatestCount("a"), 1);
}

}  // namespace
}  // namespace trackdb::service
