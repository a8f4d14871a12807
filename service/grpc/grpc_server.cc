#include "service/grpc/grpc_server.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "grpc/health/v1/health.pb.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/resource_quota.h"
#include "service/grpc/call_metrics_interceptor.h"
#include "service/grpc/undecodable_request.h"

namespace trackdb::service {
namespace {

// Puts grpc/health/v1/health.proto in the generated descriptor pool, where
// server reflection looks up every service it lists. gRPC's default health
// service (libgrpc++ 1.51 in Debian) encodes its messages without
// protobuf's generated code, so without this reflection would list
// grpc.health.v1.Health but fail to describe it ("Symbol not found"), and
// grpcurl could not call it. Naming the descriptor also keeps the linker
// from dropping the generated code.
void RegisterHealthDescriptor() {
  grpc::health::v1::HealthCheckRequest::descriptor();
}

// Bounds what clients can hold: threads (each call in progress has one in
// the synchronous server, an idle StreamPoints too), streams per
// connection, header and message bytes. Without them 500 idle streams held
// 500 threads. gRPC 1.51 checks the header limit frame by frame, so a
// block that never ends, in frames each under it, is kept whole while its
// connection lives (64 MiB sent, 70 MiB held); keepalive's unanswered PING
// is what closes that connection, and a dead peer's.
void ApplyLimits(const v1::ServerConfig& server, grpc::ServerBuilder& builder) {
  grpc::ResourceQuota quota("trackd-grpc");
  quota.SetMaxThreads(static_cast<int>(server.grpc_max_threads()));
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(
      GRPC_ARG_MAX_CONCURRENT_STREAMS,
      static_cast<int>(server.grpc_max_concurrent_streams()));
  builder.AddChannelArgument(
      GRPC_ARG_MAX_METADATA_SIZE,
      static_cast<int>(server.grpc_max_metadata_bytes()));
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(server.grpc_max_message_bytes()));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                             static_cast<int>(server.grpc_keepalive_time_ms()));
  builder.AddChannelArgument(
      GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
      static_cast<int>(server.grpc_keepalive_timeout_ms()));
}

absl::StatusOr<std::string> ReadPem(const char* field,
                                    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(field, " \"", path, "\" cannot be read for TLS"));
  }
  return text.str();
}

// server.grpc_tls: the certificate and key, and client certificates as
// tls_auth_clients says (Redis's words: yes, optional, no).
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(
    const v1::ServerConfig& server) {
  if (!server.grpc_tls()) return grpc::InsecureServerCredentials();
  auto cert = ReadPem("server.tls_cert_file", server.tls_cert_file());
  if (!cert.ok()) return cert.status();
  auto key = ReadPem("server.tls_key_file", server.tls_key_file());
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (server.tls_auth_clients() != "no") {
    auto ca = ReadPem("server.tls_ca_cert_file", server.tls_ca_cert_file());
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
    options.client_certificate_request =
        server.tls_auth_clients() == "yes"
            ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
            : GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(
    const v1::TrackdbConfig& config, storage::TrackStore* store,
    std::shared_ptr<const auth::UserTable> users, const FenceWebhooks* webhooks,
    std::shared_ptr<const replication::SyncAcks> sync_acks,
    std::shared_ptr<ClusterRouter> router, std::shared_ptr<BackupJob> backups) {
  grpc::EnableDefaultHealthCheckService(true);
  RegisterHealthDescriptor();
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  std::unique_ptr<GrpcServer> server(new GrpcServer());
  server->service_ = std::make_unique<TrackServiceImpl>(store, config.limits());
  server->admin_ = std::make_unique<AdminServiceImpl>(
      store, webhooks, std::move(backups), config);
  server->fences_ = std::make_unique<FenceServiceImpl>(store);
  if (users == nullptr) {
    users = std::make_shared<auth::UserTable>(config.server());
  }
  server->auth_ = std::make_unique<GrpcAuth>(
      std::move(users), std::move(sync_acks), std::move(router),
      config.server().cluster_enabled());
  server->authorized_service_ =
      AuthorizedTrackService(server->service_.get(), server->auth_.get());
  server->authorized_admin_ =
      AuthorizedAdminService(server->admin_.get(), server->auth_.get());
  server->authorized_fences_ =
      AuthorizedFenceService(server->fences_.get(), server->auth_.get());
  auto credentials = Credentials(config.server());
  if (!credentials.ok()) return credentials.status();
  const std::string address = absl::StrCat(config.server().grpc_bind_address(),
                                           ":", config.server().grpc_port());
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, *credentials, &server->port_);
  builder.RegisterService(server->authorized_service_.get());
  builder.RegisterService(server->authorized_admin_.get());
  builder.RegisterService(server->authorized_fences_.get());
  ApplyLimits(config.server(), builder);
  std::vector<
      std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
      interceptors;
  interceptors.push_back(CallMetricsInterceptorFactory(&server->calls_));
  interceptors.push_back(UndecodableRequestInterceptorFactory());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  server->server_ = builder.BuildAndStart();
  if (!server->server_ || server->port_ == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot serve gRPC on ", address, " (port in use, or a bad address?)"));
  }
  grpc::HealthCheckServiceInterface* health =
      server->server_->GetHealthCheckService();
  health->SetServingStatus("", true);
  health->SetServingStatus(v1::TrackService::service_full_name(), true);
  health->SetServingStatus(v1::FenceService::service_full_name(), true);
  return server;
}

void GrpcServer::Shutdown(absl::Duration grace) {
  if (!server_) return;
  server_->GetHealthCheckService()->SetServingStatus(false);
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  server_->Wait();
  server_.reset();
}

}  // namespace trackdb::service
