#ifndef TRACKDB_TYPES_SET_H_
#define TRACKDB_TYPES_SET_H_

// Redis sets kept as typed values (storage/format/typed_codec.h's layout:
// one member key per member, in byte order, its value empty). A set's
// meta.size is its number of members, kept exact by every change
// (SetWriter); a change that empties it removes the key, as Redis deletes
// an emptied set.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/format/typed_values.h"
#include "types/value_writer.h"

namespace trackdb::types {

// Whether `member` is in `name`'s set, this transaction's changes included.
absl::StatusOr<bool> IsSetMember(storage::TypedTxn& txn, absl::string_view name,
                                 const storage::TypedMeta& meta,
                                 absl::string_view member);

// Every member of `name`'s set as stored, in byte order.
absl::StatusOr<std::vector<std::string>> SetMembers(
    storage::TypedTxn& txn, absl::string_view name,
    const storage::TypedMeta& meta);

// Stages `dest` as a new set of `members` (distinct), replacing the typed
// value it held when `had_old` (nothing at all when `members` is empty, as
// Redis deletes an empty result).
void ReplaceSet(storage::TypedTxn& txn, const std::string& dest, bool had_old,
                const std::vector<std::string>& members);

// Stages changes to one set in a transaction: its members and its size.
class SetWriter : public ValueWriter {
 public:
  SetWriter(storage::TypedTxn& txn, absl::string_view name,
            const storage::TypedMeta& meta)
      : ValueWriter(txn, name, meta) {}
  // Adds `member`; whether it is new.
  absl::StatusOr<bool> Add(absl::string_view member);
  // Removes `member`; whether it was there.
  absl::StatusOr<bool> Remove(absl::string_view member);
  // Removes a member the caller has just read from the set.
  void RemoveMember(absl::string_view member);
};

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_SET_H_
