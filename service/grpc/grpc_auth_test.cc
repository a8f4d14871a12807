// Users and TLS on the gRPC door: every TrackService and AdminService
// method, found through the services' descriptors, refuses calls without
// valid credentials and calls its user's role forbids; health stays open;
// TLS with and without client certificates (a throwaway CA made at test
// time by service/testdata/make_test_certs.sh).
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "conf/config.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "gtest/gtest.h"
#include "service/grpc/client_channel.h"
#include "service/grpc/grpc_server.h"
#include "storage/store_test_util.h"
#include "trackdb/v1/admin_service.grpc.pb.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb::service {
namespace {

using ::testing::HasSubstr;

void AddUser(v1::ServerConfig* server, const char* name, v1::UserRole role) {
  v1::User* u = server->add_users();
  u->set_name(name);
  u->set_password(absl::StrCat(name, "-pw"));
  u->set_role(role);
}

v1::TrackdbConfig UsersConfig() {
  v1::TrackdbConfig config;
  AddUser(config.mutable_server(), "alice", v1::USER_ROLE_READ_ONLY);
  AddUser(config.mutable_server(), "bob", v1::USER_ROLE_READ_WRITE);
  AddUser(config.mutable_server(), "carol", v1::USER_ROLE_ADMIN);
  return config;
}

class Server {
 public:
  explicit Server(v1::TrackdbConfig config) {
    config = conf::WithDefaults(config);
    config.mutable_server()->set_grpc_port(0);
    config.set_data_dir(storage::testing::NewDataDir());
    store_ = storage::testing::OpenStore(config.data_dir());
    auto server = GrpcServer::Start(config, store_.get());
    EXPECT_TRUE(server.ok()) << server.status();
    if (server.ok()) server_ = *std::move(server);
  }
  ~Server() {
    if (server_) server_->Shutdown(absl::Seconds(1));
  }
  std::string address() const {
    return absl::StrCat("127.0.0.1:", server_->port());
  }

 private:
  std::unique_ptr<storage::TrackStore> store_;
  std::unique_ptr<GrpcServer> server_;
};

// `user` logs in with `password` on `ctx`; an empty user sends nothing.
void LogIn(grpc::ClientContext* ctx, const std::string& user,
           const std::string& password) {
  if (user.empty()) return;
  ctx->AddMetadata("authorization",
                   "Basic " + absl::Base64Escape(user + ":" + password));
}

// Calls `method` with an empty request (every field at its default).
grpc::Status Call(grpc::Channel* channel,
                  const google::protobuf::MethodDescriptor& method,
                  const std::string& user, const std::string& password) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  LogIn(&ctx, user, password);
  const std::string path =
      absl::StrCat("/", method.service()->full_name(), "/", method.name());
  if (method.client_streaming()) {
    v1::StreamPointsResponse response;
    auto stub = v1::TrackService::NewStub(
        std::shared_ptr<grpc::Channel>(channel, [](grpc::Channel*) {}));
    auto writer = stub->StreamPoints(&ctx, &response);
    writer->WritesDone();
    return writer->Finish();
  }
  const grpc::internal::RpcMethod rpc(path.c_str(),
                                      grpc::internal::RpcMethod::NORMAL_RPC);
  grpc::ByteBuffer request, response;
  grpc::Slice empty("");
  request = grpc::ByteBuffer(&empty, 1);
  return grpc::internal::BlockingUnaryCall(channel, rpc, &ctx, request,
                                           &response);
}

std::vector<const google::protobuf::MethodDescriptor*> AllMethods() {
  std::vector<const google::protobuf::MethodDescriptor*> methods;
  for (const auto* service : {v1::TrackService::service_full_name(),
                              v1::AdminService::service_full_name()}) {
    const auto* d =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            service);
    for (int i = 0; i < d->method_count(); ++i) methods.push_back(d->method(i));
  }
  return methods;
}

// The classification under test: what needs more than reading.
const std::set<std::string> kWrites = {"AddPoint", "AddPoints", "StreamPoints",
                                       "DeleteEntity", "SetRetention"};
const std::set<std::string> kAdmin = {"SetBulkLoad", "CreateBackup",
                                      "DeleteBackup"};

TEST(GrpcAuthTest, EveryMethodChecksCredentialsAndRole) {
  Server server(UsersConfig());
  auto channel =
      grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials());
  const auto methods = AllMethods();
  ASSERT_EQ(methods.size(), 22u);  // a new RPC must be classified here
  for (const auto* m : methods) {
    SCOPED_TRACE(m->full_name());
    const std::string name = m->name();
    grpc::Status s = Call(channel.get(), *m, "", "");
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_THAT(s.error_message(), HasSubstr("authorization: Basic"));
    s = Call(channel.get(), *m, "bob", "wrong");
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    s = Call(channel.get(), *m, "nobody", "nobody-pw");
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);

    const bool writes = kWrites.count(name) > 0;
    const bool admin = kAdmin.count(name) > 0;
    s = Call(channel.get(), *m, "alice", "alice-pw");
    if (writes || admin) {
      EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
      EXPECT_EQ(s.error_message(),
                absl::StrCat(
                    "user alice (read-only) has no permission to call ", name));
    } else {
      EXPECT_NE(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
      EXPECT_NE(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
      EXPECT_NE(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
    }
    s = Call(channel.get(), *m, "bob", "bob-pw");
    EXPECT_EQ(s.error_code() == grpc::StatusCode::PERMISSION_DENIED, admin)
        << s.error_message();
    s = Call(channel.get(), *m, "carol", "carol-pw");
    EXPECT_NE(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_NE(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_NE(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  }
}

v1::AddPointRequest OnePoint() {
  v1::AddPointRequest req;
  req.set_collection("fleet");
  v1::Point* p = req.mutable_point();
  p->set_entity_id("car");
  p->set_latitude(52.5);
  p->set_longitude(13.4);
  p->set_loc_time_ms(1700000000000);
  return req;
}

TEST(GrpcAuthTest, RequirepassIsTheDefaultAdminAndReadsStayReadOnly) {
  v1::TrackdbConfig config = UsersConfig();
  config.mutable_server()->set_requirepass("rp");
  Server server(config);
  auto channel =
      grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials());
  auto stub = v1::TrackService::NewStub(channel);
  v1::AddPointResponse added;
  {
    grpc::ClientContext ctx;
    LogIn(&ctx, "default", "rp");
    ASSERT_TRUE(stub->AddPoint(&ctx, OnePoint(), &added).ok());
  }
  {
    grpc::ClientContext ctx;
    LogIn(&ctx, "alice", "alice-pw");
    v1::GetLatestRequest req;
    req.set_collection("fleet");
    req.add_entity_ids("car");
    v1::GetLatestResponse latest;
    grpc::Status s = stub->GetLatest(&ctx, req, &latest);
    ASSERT_TRUE(s.ok()) << s.error_message();
    ASSERT_EQ(latest.points_size(), 1);
    EXPECT_DOUBLE_EQ(latest.points(0).latitude(), 52.5);
  }
  {
    // A denied write writes nothing.
    grpc::ClientContext ctx;
    LogIn(&ctx, "alice", "alice-pw");
    v1::DeleteEntityRequest req;
    req.set_collection("fleet");
    req.set_entity_id("car");
    v1::DeleteEntityResponse deleted;
    EXPECT_EQ(stub->DeleteEntity(&ctx, req, &deleted).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  grpc::ClientContext ctx;
  LogIn(&ctx, "bob", "bob-pw");
  v1::GetLatestRequest req;
  req.set_collection("fleet");
  req.add_entity_ids("car");
  v1::GetLatestResponse latest;
  EXPECT_TRUE(stub->GetLatest(&ctx, req, &latest).ok());
  EXPECT_EQ(latest.points_size(), 1);  // alice's DeleteEntity deleted nothing
}

// Health and reflection stay open (grpc_auth.h says why).
TEST(GrpcAuthTest, HealthNeedsNoCredentials) {
  Server server(UsersConfig());
  auto channel =
      grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials());
  const grpc::internal::RpcMethod check("/grpc.health.v1.Health/Check",
                                        grpc::internal::RpcMethod::NORMAL_RPC);
  grpc::ClientContext ctx;
  grpc::Slice empty("");
  grpc::ByteBuffer request(&empty, 1), response;
  EXPECT_TRUE(grpc::internal::BlockingUnaryCall(channel.get(), check, &ctx,
                                                request, &response)
                  .ok());
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class GrpcTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/pki");
    ASSERT_EQ(
        std::system(
            absl::StrCat("service/testdata/make_test_certs.sh ", pki_).c_str()),
        0);
  }
  static v1::TrackdbConfig TlsConfig(const char* auth_clients) {
    v1::TrackdbConfig config = UsersConfig();
    v1::ServerConfig* s = config.mutable_server();
    s->set_grpc_tls(true);
    s->set_tls_cert_file(pki_ + "/server.crt");
    s->set_tls_key_file(pki_ + "/server.key");
    s->set_tls_ca_cert_file(pki_ + "/ca.crt");
    s->set_tls_auth_clients(auth_clients);
    return config;
  }
  // AddPoint as bob over a channel with `creds`.
  static grpc::Status AddAsBob(
      const Server& server, std::shared_ptr<grpc::ChannelCredentials> creds) {
    auto stub =
        v1::TrackService::NewStub(grpc::CreateChannel(server.address(), creds));
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(5));
    LogIn(&ctx, "bob", "bob-pw");
    v1::AddPointResponse added;
    return stub->AddPoint(&ctx, OnePoint(), &added);
  }
  static std::shared_ptr<grpc::ChannelCredentials> Tls(const char* client) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = Read(pki_ + "/ca.crt");
    if (client != nullptr) {
      options.pem_private_key = Read(absl::StrCat(pki_, "/", client, ".key"));
      options.pem_cert_chain = Read(absl::StrCat(pki_, "/", client, ".crt"));
    }
    return grpc::SslCredentials(options);
  }
  static std::string pki_;
};
std::string GrpcTlsTest::pki_;

TEST_F(GrpcTlsTest, ClientCertificateRequired) {
  Server server(TlsConfig("yes"));
  const grpc::Status with_cert = AddAsBob(server, Tls("client"));
  EXPECT_TRUE(with_cert.ok()) << with_cert.error_message();
  EXPECT_EQ(AddAsBob(server, Tls(nullptr)).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(AddAsBob(server, Tls("stranger")).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(AddAsBob(server, grpc::InsecureChannelCredentials()).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

TEST_F(GrpcTlsTest, ClientCertificateOptionalOrNotAsked) {
  for (const char* mode : {"optional", "no"}) {
    SCOPED_TRACE(mode);
    Server server(TlsConfig(mode));
    const grpc::Status s = AddAsBob(server, Tls(nullptr));
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(AddAsBob(server, grpc::InsecureChannelCredentials()).error_code(),
              grpc::StatusCode::UNAVAILABLE);
  }
}

TEST_F(GrpcTlsTest, UnreadableKeyIsAClearStartupError) {
  v1::TrackdbConfig config = conf::WithDefaults(TlsConfig("no"));
  config.mutable_server()->set_tls_key_file(pki_ + "/missing.key");
  config.mutable_server()->set_grpc_port(0);
  config.set_data_dir(storage::testing::NewDataDir());
  auto store = storage::testing::OpenStore(config.data_dir());
  auto server = GrpcServer::Start(config, store.get());
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(server.status().message(),
              HasSubstr("server.tls_key_file \"" + pki_ + "/missing.key\""));
}

// The channel trackdb_doctor and trackdb_import use: TLS, a client
// certificate and the user on every call, with no per-call code.
grpc::StatusCode AddThrough(const Server& server,
                            const ClientSecurity& security) {
  auto channel = NewClientChannel(server.address(), security);
  EXPECT_TRUE(channel.ok()) << channel.status();
  if (!channel.ok()) return grpc::StatusCode::INTERNAL;
  auto stub = v1::TrackService::NewStub(*channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::AddPointResponse added;
  return stub->AddPoint(&ctx, OnePoint(), &added).error_code();
}

TEST_F(GrpcTlsTest, ToolChannelSendsCertificateAndUser) {
  Server server(TlsConfig("yes"));
  ClientSecurity security{pki_ + "/ca.crt", pki_ + "/client.crt",
                          pki_ + "/client.key", "bob", "bob-pw"};
  EXPECT_EQ(AddThrough(server, security), grpc::StatusCode::OK);
  security.user = "alice";
  security.password = "alice-pw";
  EXPECT_EQ(AddThrough(server, security), grpc::StatusCode::PERMISSION_DENIED);
  security.user = "";
  EXPECT_EQ(AddThrough(server, security), grpc::StatusCode::UNAUTHENTICATED);
  security.cert_file = "";
  EXPECT_EQ(AddThrough(server, security), grpc::StatusCode::UNAVAILABLE);

  Server plain(UsersConfig());
  EXPECT_EQ(AddThrough(plain, {"", "", "", "bob", "bob-pw"}),
            grpc::StatusCode::OK);
  auto missing = NewClientChannel(plain.address(), {pki_ + "/nope.crt"});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("--tls_ca_file"));
}

}  // namespace
}  // namespace trackdb::service
