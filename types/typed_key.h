#ifndef TRACKDB_TYPES_TYPED_KEY_H_
#define TRACKDB_TYPES_TYPED_KEY_H_

// The type check a command on a hash, list, set or sorted set makes before
// it touches its key (Redis's lookupKey + checkType), inside the command's
// transaction: the one place that decides WRONGTYPE for the typed
// families. One name holds one type (the store refuses a second, so the
// check cannot race a writer of another type).

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/format/typed_values.h"

namespace trackdb::types {

// A key looked up for a command on type `want`: `wrong_type` when it holds
// a string, a GEO key or a typed value of another type; else its meta,
// nullopt when it does not exist.
struct TypedKey {
  bool wrong_type = false;
  std::optional<storage::TypedMeta> meta;
};
absl::StatusOr<TypedKey> LookupTyped(storage::TypedTxn& txn,
                                     absl::string_view name,
                                     storage::ValueType want);

// LookupTyped for a command that may create the key: a missing key gets a
// new, empty meta (stored only when the command stages it with a size).
absl::StatusOr<TypedKey> LookupOrCreate(storage::TypedTxn& txn,
                                        absl::string_view name,
                                        storage::ValueType want);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_TYPED_KEY_H_
