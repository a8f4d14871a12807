#include "types/hash.h"

namespace trackdb::types {

absl::StatusOr<std::optional<std::string>> HashWriter::Get(
    absl::string_view field) {
  return txn_.Get(name_, meta_, field);
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
  txn_.Put(name_, meta_, field, value);
  if (existed) return;
  ++meta_.size;
  resized_ = true;
}

absl::StatusOr<bool> HashWriter::Remove(absl::string_view field) {
  if (meta_.size == 0) return false;
  absl::StatusOr<std::optional<std::string>> old = Get(field);
  if (!old.ok()) return old.status();
  if (!old->has_value()) return false;
  txn_.Delete(name_, meta_, field);
  --meta_.size;
  resized_ = true;
  return true;
}

void HashWriter::Finish() {
  if (resized_) txn_.SetMeta(name_, meta_);
}

}  // namespace trackdb::types
