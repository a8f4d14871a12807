#include "service/grpc/test_server.h"

#include "absl/strings/str_cat.h"
#include "conf/config.h"
#include "storage/store_test_util.h"

namespace trackdb::service::testing {

TestServer::TestServer(v1::TrackdbConfig config) {
  config = conf::WithDefaults(config);
  config.mutable_server()->set_grpc_port(0);
  config.set_data_dir(storage::testing::NewDataDir());
  store_ = storage::testing::OpenStore(config.data_dir());
  auto server = GrpcServer::Start(config, store_.get());
  if (!server.ok()) std::abort();
  server_ = *std::move(server);
  channel_ = grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                 grpc::InsecureChannelCredentials());
  stub_ = v1::TrackService::NewStub(channel_);
}

TestServer::~TestServer() {
  server_->Shutdown(absl::Seconds(1));
  store_.reset();
}

v1::Point MakePoint(const std::string& id, int64_t t, double lat, double lon) {
  v1::Point p;
  p.set_entity_id(id);
  p.set_loc_time_ms(t);
  p.set_latitude(lat);
  p.set_longitude(lon);
  return p;
}

}  // namespace trackdb::service::testing
