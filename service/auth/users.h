#ifndef TRACKDB_SERVICE_AUTH_USERS_H_
#define TRACKDB_SERVICE_AUTH_USERS_H_

// The users of both front doors (server.users and requirepass's "default"),
// their passwords and what each role may do. RESP's AUTH and gRPC's
// `authorization` metadata both check passwords here, so one user has the
// same rights on either door.

#include <atomic>
#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::auth {

// What a command or RPC needs: reading (and searching), writing (and
// deleting), or changing the server itself (CONFIG, DEBUG, SetBulkLoad).
enum class Access { kRead, kWrite, kAdmin };

// Whether `role` may do what `need` names.
bool RoleAllows(v1::UserRole role, Access need);

// "read-only", "read-write", "admin": for error messages.
const char* RoleName(v1::UserRole role);

// Lower-case hex SHA-256 of `text` (OpenSSL).
std::string Sha256Hex(absl::string_view text);

// One table serves both doors of a trackd (trackd.cc hands the same one to
// each), so that CONFIG SET requirepass on RESP changes the gRPC door's
// password too. Thread-safe.
class UserTable {
 public:
  explicit UserTable(const v1::ServerConfig& server);
  UserTable(const UserTable&) = delete;
  UserTable& operator=(const UserTable&) = delete;

  // The role of `name` if `password` is its password, else nullopt.
  // requirepass is the password of "default", an admin; empty, "default"
  // has no password and cannot log in (a client that needs none is already
  // "default").
  std::optional<v1::UserRole> Authenticate(absl::string_view name,
                                           absl::string_view password) const;

  // Whether a user is called `name` ("default" always is).
  bool Has(absl::string_view name) const {
    return name == "default" || hashes_.find(name) != hashes_.end();
  }

  // Whether server.users is not empty: then every client must log in, even
  // without a requirepass.
  bool has_users() const { return !hashes_.empty(); }
  // Whether clients must log in: users or a requirepass.
  // Asked on every gRPC call and RESP read: no lock.
  bool auth_required() const {
    return has_users() || has_requirepass_.load(std::memory_order_acquire);
  }

  // Live: CONFIG SET requirepass.
  std::string requirepass() const;
  void set_requirepass(std::string requirepass);

 private:
  struct Entry {
    std::string sha256_hex;
    v1::UserRole role;
  };
  static std::map<std::string, Entry, std::less<>> HashesOf(
      const v1::ServerConfig& server);

  const std::map<std::string, Entry, std::less<>> hashes_;
  mutable absl::Mutex mu_;
  std::string requirepass_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> has_requirepass_;  // !requirepass_.empty()
};

}  // namespace trackdb::auth

#endif  // TRACKDB_SERVICE_AUTH_USERS_H_
