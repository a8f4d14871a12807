#include "service/auth/users.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"

namespace trackdb::auth {
namespace {

// Compares in time independent of where the two differ, so that timing
// tells an attacker nothing about a stored hash.
bool SameHash(const std::string& a, const std::string& b) {
  return a.size() == b.size() &&
         CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::map<std::string, UserTable::Entry, std::less<>> UserTable::HashesOf(
    const v1::ServerConfig& server) {
  std::map<std::string, Entry, std::less<>> hashes;
  for (const v1::User& u : server.users()) {
    hashes[u.name()] = {u.password_sha256().empty()
                            ? Sha256Hex(u.password())
                            : absl::AsciiStrToLower(u.password_sha256()),
                        u.role()};
  }
  return hashes;
}

bool RoleAllows(v1::UserRole role, Access need) {
  switch (need) {
    case Access::kRead:
      return role == v1::USER_ROLE_READ_ONLY ||
             role == v1::USER_ROLE_READ_WRITE || role == v1::USER_ROLE_ADMIN;
    case Access::kWrite:
      return role == v1::USER_ROLE_READ_WRITE || role == v1::USER_ROLE_ADMIN;
    case Access::kAdmin:
      return role == v1::USER_ROLE_ADMIN;
  }
  return false;
}

const char* RoleName(v1::UserRole role) {
  switch (role) {
    case v1::USER_ROLE_READ_ONLY:
      return "read-only";
    case v1::USER_ROLE_READ_WRITE:
      return "read-write";
    case v1::USER_ROLE_ADMIN:
      return "admin";
    default:
      return "none";
  }
}

std::string Sha256Hex(absl::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), size));
}

UserTable::UserTable(const v1::ServerConfig& server)
    : hashes_(HashesOf(server)),
      requirepass_(server.requirepass()),
      has_requirepass_(!server.requirepass().empty()) {}

std::string UserTable::requirepass() const {
  absl::MutexLock l(&mu_);
  return requirepass_;
}

void UserTable::set_requirepass(std::string requirepass) {
  absl::MutexLock l(&mu_);
  has_requirepass_.store(!requirepass.empty(), std::memory_order_release);
  requirepass_ = std::move(requirepass);
}

std::optional<v1::UserRole> UserTable::Authenticate(
    absl::string_view name, absl::string_view password) const {
  const std::string given = Sha256Hex(password);
  const std::string requirepass = this->requirepass();
  if (name == "default" && !requirepass.empty()) {
    if (!SameHash(given, Sha256Hex(requirepass))) return std::nullopt;
    return v1::USER_ROLE_ADMIN;
  }
  auto it = hashes_.find(name);
  if (it == hashes_.end() || !SameHash(given, it->second.sha256_hex)) {
    return std::nullopt;
  }
  return it->second.role;
}

}  // namespace trackdb::auth
