// gRPC through any node of a real 3-shard trackdb cluster on loopback
// (start_cluster.sh): every call, sent to any node, answers what one
// standalone trackd holding the same data answers; a client that asks not
// to be forwarded learns the owner's gRPC address (message and
// google.rpc.ErrorInfo); GetTopology names every shard's addresses.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "google/rpc/status.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "trackdb/v1/admin_service.grpc.pb.h"
#include "trackdb/v1/fence.grpc.pb.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

constexpr int kShards = 3;

std::string Dir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp ? tmp : "/tmp", "/grpc-cluster");
}

std::shared_ptr<grpc::Channel> Channel(const std::string& address) {
  return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
}

// Below Linux's ephemeral ports (32768 on), which outgoing connections of
// tests running beside this one take.
int BasePort() {
  std::random_device seed;
  std::mt19937 random(seed());
  return 20000 + static_cast<int>(random() % 2000) * 5;
}

class GrpcClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    base_ = BasePort();
    const std::string env = absl::StrCat(
        "TRACKD=service/trackd TRACKD_CONFIG=conf/trackdb.textproto ");
    ASSERT_EQ(std::system(absl::StrCat(env, "tools/cluster/start_cluster.sh ",
                                       Dir(), " ", kShards, " ", base_)
                              .c_str()),
              0);
    // The single node the cluster must answer like.
    single_pid_ = fork();
    if (single_pid_ == 0) {
      execl("service/trackd", "trackd", "--config=conf/trackdb.textproto",
            ("--data_dir=" + Dir() + "/single").c_str(),
            absl::StrCat("--resp_port=", base_ + 50).c_str(),
            absl::StrCat("--grpc_port=", base_ + 150).c_str(), nullptr);
      _exit(127);
    }
    auto channel = Channel(absl::StrCat("127.0.0.1:", base_ + 150));
    ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() +
                                          std::chrono::seconds(30)));
  }
  static void TearDownTestSuite() {
    std::system(absl::StrCat("tools/cluster/stop_cluster.sh ", Dir()).c_str());
    kill(single_pid_, SIGTERM);
    waitpid(single_pid_, nullptr, 0);
  }

  static std::string NodeAddress(int i) {
    return absl::StrCat("127.0.0.1:", base_ + 100 + i);
  }
  static std::string SingleAddress() {
    return absl::StrCat("127.0.0.1:", base_ + 150);
  }

  static inline int base_ = 0;
  static inline pid_t single_pid_ = -1;
};

v1::AddPointsRequest Points(const std::string& collection, int n) {
  v1::AddPointsRequest req;
  req.set_collection(collection);
  for (int i = 0; i < n; ++i) {
    v1::Point* p = req.add_points();
    p->set_entity_id(absl::StrCat("car", i % 7));
    p->set_latitude(40.0 + i * 0.001);
    p->set_longitude(116.0 + (i % 5) * 0.001);
    p->set_loc_time_ms(1'700'000'000'000 + i * 1000);
  }
  return req;
}

// Each read of a collection, as the single node and node `node` answer it.
void ExpectSameReads(const std::string& single, const std::string& node,
                     const std::string& collection) {
  auto a = v1::TrackService::NewStub(Channel(single));
  auto b = v1::TrackService::NewStub(Channel(node));
  SCOPED_TRACE(node + " " + collection);
  {
    v1::GetLatestRequest req;
    req.set_collection(collection);
    for (int i = 0; i < 8; ++i) req.add_entity_ids(absl::StrCat("car", i));
    v1::GetLatestResponse ra, rb;
    grpc::ClientContext ca, cb;
    ASSERT_TRUE(a->GetLatest(&ca, req, &ra).ok());
    ASSERT_TRUE(b->GetLatest(&cb, req, &rb).ok());
    EXPECT_TRUE(MessageDifferencer::Equals(ra, rb)) << rb.DebugString();
  }
  {
    v1::SearchRadiusRequest req;
    req.set_collection(collection);
    req.mutable_center()->set_latitude(40.01);
    req.mutable_center()->set_longitude(116.0);
    req.set_radius_m(5000);
    v1::SearchResponse ra, rb;
    grpc::ClientContext ca, cb;
    ASSERT_TRUE(a->SearchRadius(&ca, req, &ra).ok());
    ASSERT_TRUE(b->SearchRadius(&cb, req, &rb).ok());
    EXPECT_TRUE(MessageDifferencer::Equals(ra, rb)) << rb.DebugString();
  }
  {
    v1::GetTrackRequest req;
    req.set_collection(collection);
    req.set_entity_id("car3");
    v1::GetTrackResponse ra, rb;
    grpc::ClientContext ca, cb;
    ASSERT_TRUE(a->GetTrack(&ca, req, &ra).ok());
    ASSERT_TRUE(b->GetTrack(&cb, req, &rb).ok());
    EXPECT_TRUE(MessageDifferencer::Equals(ra, rb));
    EXPECT_GT(ra.points_size(), 0);
  }
}

TEST_F(GrpcClusterTest, AnyNodeAnswersAsOneNodeWould) {
  std::vector<std::string> collections;
  for (int c = 0; c < 12; ++c) collections.push_back(absl::StrCat("fleet", c));
  auto single = v1::TrackService::NewStub(Channel(SingleAddress()));
  for (size_t c = 0; c < collections.size(); ++c) {
    // Writes go in through every node in turn, forwarded to the owners.
    auto node = v1::TrackService::NewStub(Channel(NodeAddress(c % kShards)));
    const v1::AddPointsRequest req = Points(collections[c], 40 + c);
    v1::AddPointsResponse ra, rb;
    grpc::ClientContext ca, cb;
    ASSERT_TRUE(single->AddPoints(&ca, req, &ra).ok());
    grpc::Status s = node->AddPoints(&cb, req, &rb);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(ra.stored(), rb.stored());
  }
  for (int n = 0; n < kShards; ++n) {
    for (const std::string& c : collections) {
      ExpectSameReads(SingleAddress(), NodeAddress(n), c);
    }
  }
  // The keys landed on their owners only: each node's own RESP DBSIZE adds
  // up to the collections written.
  int total = 0;
  for (int n = 0; n < kShards; ++n) {
    FILE* out =
        popen(absl::StrCat("redis-cli -p ", base_ + n, " DBSIZE").c_str(), "r");
    int size = 0;
    ASSERT_EQ(fscanf(out, "%d", &size), 1);
    pclose(out);
    EXPECT_GT(size, 0) << "node " << n;
    total += size;
  }
  EXPECT_EQ(total, static_cast<int>(collections.size()));
}

TEST_F(GrpcClusterTest, ANotForwardedCallNamesTheOwner) {
  auto admin = v1::AdminService::NewStub(Channel(NodeAddress(0)));
  v1::Topology topology;
  grpc::ClientContext tc;
  ASSERT_TRUE(
      admin->GetTopology(&tc, v1::GetTopologyRequest(), &topology).ok());
  ASSERT_TRUE(topology.cluster_enabled());
  ASSERT_EQ(topology.shards_size(), kShards);
  int not_mine = 0;
  for (int c = 0; c < 12; ++c) {
    const std::string collection = absl::StrCat("fleet", c);
    auto node = v1::TrackService::NewStub(Channel(NodeAddress(0)));
    v1::GetLatestRequest req;
    req.set_collection(collection);
    req.add_entity_ids("car1");
    v1::GetLatestResponse resp;
    grpc::ClientContext ctx;
    ctx.AddMetadata("trackdb-forward", "no");
    grpc::Status s = node->GetLatest(&ctx, req, &resp);
    if (s.ok()) continue;  // node 0 serves it
    ++not_mine;
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    google::rpc::Status details;
    ASSERT_TRUE(details.ParseFromString(s.error_details()));
    ASSERT_EQ(details.details_size(), 1);
    google::rpc::ErrorInfo info;
    ASSERT_TRUE(details.details(0).UnpackTo(&info));
    EXPECT_EQ(info.reason(), "WRONG_SHARD");
    const std::string owner = info.metadata().at("owner");
    EXPECT_THAT(s.error_message(), HasSubstr(owner));
    // The topology agrees: the owner is a master serving that slot.
    const int slot = std::stoi(info.metadata().at("slot"));
    bool found = false;
    for (const v1::Shard& shard : topology.shards()) {
      for (const v1::SlotRange& r : shard.slots()) {
        if (slot >= r.first() && slot <= r.last()) {
          EXPECT_EQ(shard.master().grpc_address(), owner);
          found = true;
        }
      }
    }
    EXPECT_TRUE(found) << slot;
    // Asked there, it answers.
    auto there = v1::TrackService::NewStub(Channel(owner));
    grpc::ClientContext ctx2;
    ctx2.AddMetadata("trackdb-forward", "no");
    EXPECT_TRUE(there->GetLatest(&ctx2, req, &resp).ok());
  }
  EXPECT_GT(not_mine, 0);
}

TEST_F(GrpcClusterTest, AStreamForAnotherShardIsRefusedWithTheOwner) {
  auto node = v1::TrackService::NewStub(Channel(NodeAddress(0)));
  for (int c = 0; c < 12; ++c) {
    grpc::ClientContext ctx;
    v1::StreamPointsResponse resp;
    auto writer = node->StreamPoints(&ctx, &resp);
    v1::StreamPointsRequest msg;
    msg.set_collection(absl::StrCat("fleet", c));
    *msg.mutable_points() = Points(msg.collection(), 1).points();
    writer->Write(msg);
    writer->WritesDone();
    grpc::Status s = writer->Finish();
    if (s.ok()) continue;
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(s.error_message(), HasSubstr("is served by 127.0.0.1:"));
    return;
  }
  FAIL() << "node 0 served every collection";
}

}  // namespace
}  // namespace trackdb
