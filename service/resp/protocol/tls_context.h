#ifndef TRACKDB_SERVICE_RESP_PROTOCOL_TLS_CONTEXT_H_
#define TRACKDB_SERVICE_RESP_PROTOCOL_TLS_CONTEXT_H_

// The RESP door's TLS settings (Redis's tls-port, tls-cert-file,
// tls-key-file, tls-ca-cert-file, tls-auth-clients) as one OpenSSL context,
// shared by every TLS connection.

#include <memory>

#define ASIO_STANDALONE
#include "absl/status/statusor.h"
#include "asio/ssl.hpp"
#include "trackdb/v1/config.pb.h"

namespace trackdb::resp {

// TLS 1.2 and later, with server.tls_cert_file / tls_key_file, verifying
// client certificates against tls_ca_cert_file as tls_auth_clients says.
// FAILED_PRECONDITION naming the field when a file cannot be used.
absl::StatusOr<std::unique_ptr<asio::ssl::context>> NewServerTlsContext(
    const v1::ServerConfig& server);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_PROTOCOL_TLS_CONTEXT_H_
