#include "conf/security_config.h"

#include <arpa/inet.h>

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace trackdb::conf {
namespace {

constexpr char kRedacted[] = "(redacted)";

absl::Status Invalid(absl::string_view field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", why));
}

absl::Status OneOf(absl::string_view field, const std::string& value,
                   std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (value == a) return absl::OkStatus();
    absl::StrAppend(&list, list.empty() ? "" : ", ", "\"", a, "\"");
  }
  return Invalid(
      field, absl::StrCat("must be one of ", list, ", got \"", value, "\""));
}

bool TlsOn(const v1::ServerConfig& s) {
  return s.has_resp_tls_port() || s.grpc_tls();
}

absl::Status ValidateTls(const v1::ServerConfig& s) {
  absl::Status status = OneOf("server.tls_auth_clients", s.tls_auth_clients(),
                              {"yes", "no", "optional"});
  if (!status.ok()) return status;
  if (s.resp_tls_port() > 65535) {
    return Invalid("server.resp_tls_port",
                   absl::StrCat("must be 0..65535, got ", s.resp_tls_port()));
  }
  if (s.resp_tls_only() && !s.has_resp_tls_port()) {
    return Invalid("server.resp_tls_only",
                   "needs server.resp_tls_port: no RESP port would be left");
  }
  if (!TlsOn(s)) return absl::OkStatus();
  if (s.tls_cert_file().empty()) {
    return Invalid("server.tls_cert_file", "must be set to serve TLS");
  }
  if (s.tls_key_file().empty()) {
    return Invalid("server.tls_key_file", "must be set to serve TLS");
  }
  if (s.tls_auth_clients() != "no" && s.tls_ca_cert_file().empty()) {
    return Invalid("server.tls_ca_cert_file",
                   absl::StrCat("must be set to verify client certificates "
                                "(server.tls_auth_clients is \"",
                                s.tls_auth_clients(), "\")"));
  }
  return absl::OkStatus();
}

bool IsSha256Hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

absl::Status ValidateUser(const v1::User& u, const std::string& field,
                          bool requirepass_set) {
  if (u.name().empty()) return Invalid(field + ".name", "must not be empty");
  for (char c : u.name()) {
    if (c < '!' || c > '~') {
      return Invalid(field + ".name", "must be printable, without spaces");
    }
  }
  if (u.name() == "default" && requirepass_set) {
    return Invalid(field + ".name",
                   "\"default\" is the user of server.requirepass");
  }
  if (u.password().empty() == u.password_sha256().empty()) {
    return Invalid(field, "needs exactly one of password, password_sha256");
  }
  if (!u.password_sha256().empty() && !IsSha256Hex(u.password_sha256())) {
    return Invalid(field + ".password_sha256", "must be 64 hex digits");
  }
  if (u.role() == v1::USER_ROLE_UNSPECIFIED) {
    return Invalid(field + ".role",
                   "must be USER_ROLE_READ_ONLY, USER_ROLE_READ_WRITE or "
                   "USER_ROLE_ADMIN");
  }
  return absl::OkStatus();
}

absl::Status ValidateUsers(const v1::ServerConfig& s) {
  std::set<std::string> names;
  for (int i = 0; i < s.users_size(); ++i) {
    const std::string field = absl::StrCat("server.users[", i, "]");
    absl::Status status =
        ValidateUser(s.users(i), field, !s.requirepass().empty());
    if (!status.ok()) return status;
    if (!names.insert(s.users(i).name()).second) {
      return Invalid(field + ".name",
                     absl::StrCat("\"", s.users(i).name(), "\" is repeated"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateProtectedMode(const v1::ServerConfig& s) {
  absl::Status status =
      OneOf("server.protected_mode", s.protected_mode(), {"yes", "no"});
  if (!status.ok() || s.protected_mode() == "no" || AuthConfigured(s)) {
    return status;
  }
  for (const auto& [field, address] :
       {std::pair<const char*, std::string>{"server.grpc_bind_address",
                                            s.grpc_bind_address()},
        {"server.resp_bind_address", s.resp_bind_address()}}) {
    if (!IsLoopbackAddress(address)) {
      return Invalid(field,
                     absl::StrCat("\"", address,
                                  "\" is not a loopback address and no "
                                  "authentication is configured (protected "
                                  "mode): set server.requirepass or "
                                  "server.users, or server.protected_mode: "
                                  "\"no\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsLoopbackAddress(absl::string_view address) {
  if (address.size() >= 2 && address.front() == '[' && address.back() == ']') {
    address = address.substr(1, address.size() - 2);
  }
  if (absl::AsciiStrToLower(address) == "localhost") return true;
  const std::string a(address);
  in_addr v4;
  if (inet_pton(AF_INET, a.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, a.c_str(), &v6) == 1) {
    return IN6_IS_ADDR_LOOPBACK(&v6);
  }
  return false;
}

bool AuthConfigured(const v1::ServerConfig& server) {
  return !server.requirepass().empty() || server.users_size() > 0;
}

void FillSecurityDefaults(v1::ServerConfig* server) {
  if (server->tls_auth_clients().empty()) server->set_tls_auth_clients("yes");
  if (server->protected_mode().empty()) server->set_protected_mode("yes");
}

absl::Status ValidateSecurity(const v1::ServerConfig& server) {
  absl::Status status = ValidateTls(server);
  if (status.ok()) status = ValidateUsers(server);
  if (status.ok()) status = ValidateProtectedMode(server);
  return status;
}

v1::TrackdbConfig RedactSecrets(const v1::TrackdbConfig& config) {
  v1::TrackdbConfig c = config;
  v1::ServerConfig* server = c.mutable_server();
  if (!server->requirepass().empty()) server->set_requirepass(kRedacted);
  for (v1::User& u : *server->mutable_users()) {
    if (!u.password().empty()) u.set_password(kRedacted);
    if (!u.password_sha256().empty()) u.set_password_sha256(kRedacted);
  }
  return c;
}

}  // namespace trackdb::conf
