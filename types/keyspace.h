#ifndef TRACKDB_TYPES_KEYSPACE_H_
#define TRACKDB_TYPES_KEYSPACE_H_

// A Redis key in database 0..15 <-> the name storage keeps it under.
//
// Database 0 is the namespace gRPC collections live in: the key "fleet" in
// db 0 is the collection "fleet", so GEOADD fleet ... and gRPC calls on
// collection "fleet" see the same data. Databases 1..15 are Redis-only:
//
//   db 0, key not starting with 0xff  ->  key
//   db 0, key starting with 0xff      ->  0xff 0x00 key
//   db n (1..15)                      ->  0xff n key
//
// The mapping is one-to-one over all binary keys, and gRPC collections
// (UTF-8 strings, which never contain 0xff) are exactly db 0's keys.

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::types {

inline constexpr int kDatabases = 16;

std::string KeyName(int db, absl::string_view key);

struct DbKey {
  int db;
  std::string key;
};
// nullopt for a name no Redis key maps to.
std::optional<DbKey> ParseKeyName(absl::string_view name);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_KEYSPACE_H_
