// The gRPC server's standard services: reflection can describe every
// service it lists (health included), and health reports SERVING.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/descriptor.pb.h"
#include "grpc/health/v1/health_client.pb.h"
#include "grpc/reflection/v1alpha/reflection.pb.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "gtest/gtest.h"
#include "service/grpc/test_server.h"

namespace trackdb::service {
namespace {

namespace health = ::trackdb::testing::health;
namespace reflection = ::trackdb::testing::reflection;

using ::testing::Contains;
using ::testing::IsSupersetOf;

// One ServerReflectionInfo stream, asked one question at a time.
class ReflectionClient {
 public:
  explicit ReflectionClient(grpc::Channel* channel)
      : stream_(grpc::internal::ClientReaderWriterFactory<
                reflection::ServerReflectionRequest,
                reflection::ServerReflectionResponse>::Create(channel, Method(),
                                                              &context_)) {}
  ~ReflectionClient() {
    stream_->WritesDone();
    stream_->Finish().IgnoreError();
  }

  std::vector<std::string> ListServices() {
    reflection::ServerReflectionRequest req;
    req.set_list_services("");
    const reflection::ServerReflectionResponse resp = Ask(req);
    std::vector<std::string> names;
    for (const auto& s : resp.list_services_response().service()) {
      names.push_back(s.name());
    }
    return names;
  }

  reflection::ServerReflectionResponse FileContainingSymbol(
      const std::string& symbol) {
    reflection::ServerReflectionRequest req;
    req.set_file_containing_symbol(symbol);
    return Ask(req);
  }

 private:
  static const grpc::internal::RpcMethod& Method() {
    static const grpc::internal::RpcMethod method(
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        grpc::internal::RpcMethod::BIDI_STREAMING);
    return method;
  }

  reflection::ServerReflectionResponse Ask(
      const reflection::ServerReflectionRequest& req) {
    reflection::ServerReflectionResponse resp;
    EXPECT_TRUE(stream_->Write(req));
    EXPECT_TRUE(stream_->Read(&resp));
    return resp;
  }

  grpc::ClientContext context_;
  std::unique_ptr<
      grpc::ClientReaderWriter<reflection::ServerReflectionRequest,
                               reflection::ServerReflectionResponse>>
      stream_;
};

// The names of the services the files declare, package-qualified.
std::vector<std::string> ServicesDeclaredIn(
    const reflection::ServerReflectionResponse& resp) {
  std::vector<std::string> names;
  for (const std::string& bytes :
       resp.file_descriptor_response().file_descriptor_proto()) {
    google::protobuf::FileDescriptorProto file;
    if (!file.ParseFromString(bytes)) continue;
    for (const auto& s : file.service()) {
      names.push_back(file.package() + "." + s.name());
    }
  }
  return names;
}

class GrpcServerTest : public ::testing::Test {
 protected:
  testing::TestServer server_;
};

TEST_F(GrpcServerTest, ReflectionDescribesEveryServiceItLists) {
  ReflectionClient client(server_.channel().get());
  const std::vector<std::string> services = client.ListServices();
  EXPECT_THAT(
      services,
      IsSupersetOf({"grpc.health.v1.Health",
                    "grpc.reflection.v1alpha.ServerReflection",
                    "trackdb.v1.AdminService", "trackdb.v1.TrackService"}));
  for (const std::string& service : services) {
    const reflection::ServerReflectionResponse resp =
        client.FileContainingSymbol(service);
    EXPECT_FALSE(resp.has_error_response())
        << service << ": " << resp.error_response().error_message();
    EXPECT_THAT(ServicesDeclaredIn(resp), Contains(service)) << service;
  }
}

TEST_F(GrpcServerTest, HealthReportsServing) {
  static const grpc::internal::RpcMethod kCheck(
      "/grpc.health.v1.Health/Check", grpc::internal::RpcMethod::NORMAL_RPC);
  for (const char* service : {"", "trackdb.v1.TrackService"}) {
    health::HealthCheckRequest req;
    req.set_service(service);
    health::HealthCheckResponse resp;
    grpc::ClientContext ctx;
    ASSERT_TRUE(grpc::internal::BlockingUnaryCall(server_.channel().get(),
                                                  kCheck, &ctx, req, &resp)
                    .ok())
        << service;
    EXPECT_EQ(resp.status(), health::HealthCheckResponse::SERVING) << service;
  }
}

}  // namespace
}  // namespace trackdb::service
