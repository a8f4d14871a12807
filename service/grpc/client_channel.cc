#include "service/grpc/client_channel.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/flags/flag.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/support/client_interceptor.h"

ABSL_FLAG(std::string, tls_ca_file, "",
          "CA certificate (PEM) to verify trackd's TLS certificate with; "
          "empty: plaintext.");
ABSL_FLAG(std::string, tls_cert_file, "",
          "Client certificate (PEM), when trackd asks for one.");
ABSL_FLAG(std::string, tls_key_file, "", "The client certificate's key.");
ABSL_FLAG(std::string, user, "",
          "trackd user to call as (password: environment TRACKDB_PASSWORD).");

namespace trackdb::service {
namespace {

class AuthorizationInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit AuthorizationInterceptor(const std::string* value) : value_(value) {}
  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::
                PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({"authorization", *value_});
    }
    methods->Proceed();
  }

 private:
  const std::string* value_;
};

class AuthorizationFactory
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit AuthorizationFactory(std::string value) : value_(std::move(value)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new AuthorizationInterceptor(&value_);
  }

 private:
  // Lives as long as the channel, which owns this factory.
  const std::string value_;
};

absl::StatusOr<std::string> ReadPem(const char* flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--", flag, " \"", path, "\" cannot be read"));
  }
  return text.str();
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> Credentials(
    const ClientSecurity& s) {
  if (s.ca_file.empty()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  auto ca = ReadPem("tls_ca_file", s.ca_file);
  if (!ca.ok()) return ca.status();
  options.pem_root_certs = *ca;
  if (!s.cert_file.empty()) {
    auto cert = ReadPem("tls_cert_file", s.cert_file);
    if (!cert.ok()) return cert.status();
    auto key = ReadPem("tls_key_file", s.key_file);
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  return grpc::SslCredentials(options);
}

}  // namespace

ClientSecurity ClientSecurityFromFlags() {
  ClientSecurity s;
  s.ca_file = absl::GetFlag(FLAGS_tls_ca_file);
  s.cert_file = absl::GetFlag(FLAGS_tls_cert_file);
  s.key_file = absl::GetFlag(FLAGS_tls_key_file);
  s.user = absl::GetFlag(FLAGS_user);
  if (const char* p = std::getenv("TRACKDB_PASSWORD")) s.password = p;
  return s;
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> NewClientChannel(
    const std::string& target, const ClientSecurity& security) {
  auto credentials = Credentials(security);
  if (!credentials.ok()) return credentials.status();
  std::vector<
      std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
      interceptors;
  if (!security.user.empty()) {
    interceptors.push_back(std::make_unique<AuthorizationFactory>(
        "Basic " + absl::Base64Escape(
                       absl::StrCat(security.user, ":", security.password))));
  }
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      target, *credentials, grpc::ChannelArguments(), std::move(interceptors));
}

}  // namespace trackdb::service
