#include "types/keyspace.h"

namespace trackdb::types {
namespace {
constexpr char kEscape = '\xff';
}  // namespace

std::string KeyName(int db, absl::string_view key) {
  std::string name;
  if (db != 0) {
    name.push_back(kEscape);
    name.push_back(static_cast<char>(db));
  } else if (!key.empty() && key[0] == kEscape) {
    name.push_back(kEscape);
    name.push_back('\0');
  }
  name.append(key.data(), key.size());
  return name;
}

std::optional<DbKey> ParseKeyName(absl::string_view name) {
  if (name.empty() || name[0] != kEscape) return DbKey{0, std::string(name)};
  if (name.size() < 2) return std::nullopt;
  const int db = static_cast<unsigned char>(name[1]);
  if (db >= kDatabases) return std::nullopt;
  std::string key(name.substr(2));
  if (db == 0 && (key.empty() || key[0] != kEscape)) return std::nullopt;
  return DbKey{db, std::move(key)};
}

}  // namespace trackdb::types
