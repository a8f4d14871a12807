#ifndef TRACKDB_SERVICE_GRPC_TEST_SERVER_H_
#define TRACKDB_SERVICE_GRPC_TEST_SERVER_H_

// An in-process trackd for tests: a fresh store and a real gRPC server on a
// free loopback port, with a stub over a real channel; and the points that
// tests send it.

#include <cstdint>
#include <memory>
#include <string>

#include "service/grpc/grpc_server.h"
#include "storage/track_store.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb::service::testing {

class TestServer {
 public:
  // `config` is completed with defaults; its ports and data dir are replaced.
  explicit TestServer(v1::TrackdbConfig config = {});
  ~TestServer();

  v1::TrackService::Stub& stub() { return *stub_; }
  std::shared_ptr<grpc::Channel> channel() { return channel_; }
  storage::TrackStore& store() { return *store_; }

 private:
  std::unique_ptr<storage::TrackStore> store_;
  std::unique_ptr<GrpcServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::TrackService::Stub> stub_;
};

// A point of entity `id` at `t` (ms since the epoch) and `lat`, `lon`
// (degrees), with no other field set.
v1::Point MakePoint(const std::string& id, int64_t t, double lat, double lon);

}  // namespace trackdb::service::testing

#endif  // TRACKDB_SERVICE_GRPC_TEST_SERVER_H_
