#include "types/hash.h"

namespace trackdb::types {

absl::StatusOr<std::optional<std::string>> HashWriter::Get(
    absl::string_view field) {
  return txn().Get(name(), meta(), field);
}

absl::StatusOr<bool> HashWriter::Set(absl::string_view field,
                                     absl::string_view value) {
  absl::StatusOr<std::optional<std::string>> old = Get(field);
  if (!old.ok()) return old.status();
  Set(field, value, old->has_value());
  return !old->has_value();
}

void HashWriter::Set(absl::string_view field, absl::string_view value,
                     bool existed) {
  txn().Put(name(), meta(), field, value);
  if (existed) return;
  ++ChangeMeta().size;
}

absl::StatusOr<bool> HashWriter::Remove(absl::string_view field) {
  if (meta().size == 0) return false;
  absl::StatusOr<std::optional<std::string>> old = Get(field);
  if (!old.ok()) return old.status();
  if (!old->has_value()) return false;
  txn().Delete(name(), meta(), field);
  --ChangeMeta().size;
  return true;
}

}  // namespace trackdb::types
