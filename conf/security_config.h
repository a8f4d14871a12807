#ifndef TRACKDB_CONF_SECURITY_CONFIG_H_
#define TRACKDB_CONF_SECURITY_CONFIG_H_

// The security part of ServerConfig: TLS files and modes, users, and
// Redis's protected mode, validated together because they depend on each
// other (a non-loopback bind needs auth; TLS needs a key and certificate).

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::conf {

// Whether `address` (a bind address: "127.0.0.1", "::1", "[::1]",
// "localhost") only accepts connections from this machine.
bool IsLoopbackAddress(absl::string_view address);

// Whether any door needs a password: requirepass or at least one user.
bool AuthConfigured(const v1::ServerConfig& server);

// Fills the security defaults: tls_auth_clients "yes", protected_mode "yes".
void FillSecurityDefaults(v1::ServerConfig* server);

// INVALID_ARGUMENT naming the field; judged on effective values.
absl::Status ValidateSecurity(const v1::ServerConfig& server);

// `config` with every secret (requirepass, users' passwords and hashes)
// replaced by "(redacted)", for logging.
v1::TrackdbConfig RedactSecrets(const v1::TrackdbConfig& config);

}  // namespace trackdb::conf

#endif  // TRACKDB_CONF_SECURITY_CONFIG_H_
