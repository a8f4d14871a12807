#include "types/set.h"

#include <optional>

namespace trackdb::types {

absl::StatusOr<bool> IsSetMember(storage::TypedTxn& txn, absl::string_view name,
                                 const storage::TypedMeta& meta,
                                 absl::string_view member) {
  absl::StatusOr<std::optional<std::string>> got = txn.Get(name, meta, member);
  if (!got.ok()) return got.status();
  return got->has_value();
}

absl::StatusOr<std::vector<std::string>> SetMembers(
    storage::TypedTxn& txn, absl::string_view name,
    const storage::TypedMeta& meta) {
  std::vector<std::string> members;
  members.reserve(meta.size);
  absl::Status s = txn.Scan(name, meta, "", "", false,
                            [&](absl::string_view member, absl::string_view) {
                              members.emplace_back(member);
                              return true;
                            });
  if (!s.ok()) return s;
  return members;
}

void ReplaceSet(storage::TypedTxn& txn, const std::string& dest, bool had_old,
                const std::vector<std::string>& members) {
  if (had_old) txn.DeleteMeta(dest);
  if (members.empty()) return;
  storage::TypedMeta meta = txn.Create(storage::ValueType::kSet);
  for (const std::string& m : members) txn.Put(dest, meta, m, "");
  meta.size = members.size();
  txn.SetMeta(dest, meta);
}

absl::StatusOr<bool> SetWriter::Add(absl::string_view member) {
  absl::StatusOr<bool> had = IsSetMember(txn(), name(), meta(), member);
  if (!had.ok()) return had.status();
  if (*had) return false;
  txn().Put(name(), meta(), member, "");
  ++ChangeMeta().size;
  return true;
}

absl::StatusOr<bool> SetWriter::Remove(absl::string_view member) {
  if (meta().size == 0) return false;
  absl::StatusOr<bool> had = IsSetMember(txn(), name(), meta(), member);
  if (!had.ok()) return had.status();
  if (!*had) return false;
  RemoveMember(member);
  return true;
}

void SetWriter::RemoveMember(absl::string_view member) {
  txn().Delete(name(), meta(), member);
  --ChangeMeta().size;
}

}  // namespace trackdb::types
