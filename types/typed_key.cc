#include "types/typed_key.h"

#include <optional>

namespace trackdb::types {

absl::StatusOr<TypedKey> LookupTyped(storage::TypedTxn& txn,
                                     absl::string_view name,
                                     storage::ValueType want) {
  TypedKey key;
  absl::StatusOr<std::optional<storage::TypedMeta>> meta = txn.Meta(name);
  if (!meta.ok()) return meta.status();
  if (*meta) {
    key.wrong_type = (*meta)->type != want;
    if (!key.wrong_type) key.meta = *meta;
    return key;
  }
  absl::StatusOr<bool> other = txn.HoldsStringOrCollection(name);
  if (!other.ok()) return other.status();
  key.wrong_type = *other;
  return key;
}

absl::StatusOr<TypedKey> LookupOrCreate(storage::TypedTxn& txn,
                                        absl::string_view name,
                                        storage::ValueType want) {
  absl::StatusOr<TypedKey> key = LookupTyped(txn, name, want);
  if (key.ok() && !key->wrong_type && !key->meta) key->meta = txn.Create(want);
  return key;
}

}  // namespace trackdb::types
