#ifndef TRACKDB_SERVICE_GRPC_CLIENT_CHANNEL_H_
#define TRACKDB_SERVICE_GRPC_CLIENT_CHANNEL_H_

// Channels for trackdb's own gRPC clients (trackdb_doctor, trackdb_import)
// to a trackd with TLS and users: TLS from PEM files, and every call's
// `authorization: Basic ...` metadata added by a client interceptor, so
// that no call site changes. The flags --tls_ca_file, --tls_cert_file,
// --tls_key_file and --user are defined here for every tool that links
// this; the password comes from the environment variable TRACKDB_PASSWORD,
// never a flag (flags show in `ps`).

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace trackdb::service {

struct ClientSecurity {
  std::string ca_file;    // empty: plaintext
  std::string cert_file;  // client certificate, optional
  std::string key_file;
  std::string user;  // empty: no credentials sent
  std::string password;
};

// The flags and TRACKDB_PASSWORD.
ClientSecurity ClientSecurityFromFlags();

// A channel to `target` as `security` says; FAILED_PRECONDITION naming the
// file that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> NewClientChannel(
    const std::string& target, const ClientSecurity& security);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_CLIENT_CHANNEL_H_
