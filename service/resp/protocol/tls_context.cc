#include "service/resp/protocol/tls_context.h"

#include "absl/strings/str_cat.h"

namespace trackdb::resp {
namespace {

absl::Status Unusable(const char* field, const std::string& file,
                      const asio::error_code& ec) {
  return absl::FailedPreconditionError(absl::StrCat(
      field, " \"", file, "\" cannot be used for TLS: ", ec.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<asio::ssl::context>> NewServerTlsContext(
    const v1::ServerConfig& server) {
  auto tls =
      std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  asio::error_code ec;
  tls->set_options(
      asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
          asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
          asio::ssl::context::no_tlsv1_1,
      ec);
  tls->use_certificate_chain_file(server.tls_cert_file(), ec);
  if (ec) return Unusable("server.tls_cert_file", server.tls_cert_file(), ec);
  tls->use_private_key_file(server.tls_key_file(), asio::ssl::context::pem, ec);
  if (ec) return Unusable("server.tls_key_file", server.tls_key_file(), ec);
  const std::string& auth = server.tls_auth_clients();
  if (auth == "no") {
    tls->set_verify_mode(asio::ssl::verify_none);
    return tls;
  }
  tls->load_verify_file(server.tls_ca_cert_file(), ec);
  if (ec) {
    return Unusable("server.tls_ca_cert_file", server.tls_ca_cert_file(), ec);
  }
  asio::ssl::verify_mode mode = asio::ssl::verify_peer;
  if (auth == "yes") mode |= asio::ssl::verify_fail_if_no_peer_cert;
  tls->set_verify_mode(mode);
  return tls;
}

}  // namespace trackdb::resp
