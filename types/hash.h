#ifndef TRACKDB_TYPES_HASH_H_
#define TRACKDB_TYPES_HASH_H_

// Redis hashes kept as typed values (storage/format/typed_codec.h's
// layout: one member key per field, its value the field's value). A hash's
// meta.size is its number of fields, kept exact by every change
// (HashWriter); a change that empties it removes the key, as Redis deletes
// an emptied hash.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/format/typed_values.h"
#include "types/value_writer.h"

namespace trackdb::types {

// Stages changes to one hash in a transaction: its fields and its size.
class HashWriter : public ValueWriter {
 public:
  HashWriter(storage::TypedTxn& txn, absl::string_view name,
             const storage::TypedMeta& meta)
      : ValueWriter(txn, name, meta) {}
  // A field's value, this writer's changes included.
  absl::StatusOr<std::optional<std::string>> Get(absl::string_view field);
  // Gives `field` `value`; whether the field is new.
  absl::StatusOr<bool> Set(absl::string_view field, absl::string_view value);
  // The same, for a caller that has just read the field (Get): `existed`
  // says whether it had a value.
  void Set(absl::string_view field, absl::string_view value, bool existed);
  // Removes `field`; whether it was there.
  absl::StatusOr<bool> Remove(absl::string_view field);
};

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_HASH_H_
