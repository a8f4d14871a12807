#ifndef TRACKDB_TYPES_LIST_H_
#define TRACKDB_TYPES_LIST_H_

// Redis lists kept as typed values (storage/format/typed_codec.h's layout):
// element i of a list is stored at index meta.head + i, and meta.size
// counts them. Pushing or popping at either end and reading or setting
// one element are point operations; a range is read by keys or one scan;
// a change in the middle rewrites only the elements that shift, anchored
// at the end that rewrites fewer (O(N), as Kvrocks's are). A list emptied
// deletes nothing: its meta's size 0 removes the key, its elements become
// garbage.
//
// The index arithmetic (Redis 7.0's t_list.c rules) is pure; the element
// operations stage writes in a TypedTxn and leave storing the meta to the
// caller, who may change it further in the same transaction.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/format/typed_values.h"

namespace trackdb::types::list {

enum class End { kLeft, kRight };

// ---- Index arithmetic ----

// An index argument (negative from the tail) as a position, if in range
// (LINDEX, LSET).
std::optional<uint64_t> Position(int64_t index, uint64_t size);

// The elements a start/end pair names: Redis's rule (LRANGE, LTRIM).
struct Span {
  uint64_t first = 0;
  uint64_t count = 0;  // 0: empty
};
Span RangeOf(int64_t start, int64_t end, uint64_t size);

// How many elements LTRIM removes from each end to keep `keep` of a list
// of `size`: an empty span removes them all.
struct Ends {
  uint64_t left = 0;
  uint64_t right = 0;
};
Ends TrimmedEnds(const Span& keep, uint64_t size);

// LREM's rule: `was` without its first `count` elements equal to
// `element` (from the head, from the tail for a negative count, all of
// them for 0). INT64_MIN has no positive counterpart; Redis's negation
// keeps it negative and never reaches it: every match goes.
std::vector<std::string> WithoutMatches(const std::vector<std::string>& was,
                                        absl::string_view element,
                                        int64_t count);

// LPOS's options.
struct PosOptions {
  int64_t rank = 1;
  bool has_count = false;
  int64_t count = 0;   // 0: every match
  int64_t maxlen = 0;  // 0: the whole list
};

// ---- Elements ----

// Element `pos` (from the head) of `name`'s list.
absl::StatusOr<std::string> ReadElement(storage::TypedTxn& txn,
                                        const std::string& name,
                                        const storage::TypedMeta& meta,
                                        uint64_t pos);
// Gives element `pos` (in range) the value `value`.
void SetElement(storage::TypedTxn& txn, const std::string& name,
                const storage::TypedMeta& meta, uint64_t pos,
                absl::string_view value);
// Pushes `value` at `end`.
void PushElement(storage::TypedTxn& txn, const std::string& name,
                 storage::TypedMeta& meta, absl::string_view value, End end);
// Pops one element of a non-empty list at `end`.
absl::StatusOr<std::string> PopElement(storage::TypedTxn& txn,
                                       const std::string& name,
                                       storage::TypedMeta& meta, End end);
// Pops up to `count` elements at `end`, in pop order, and stages the
// list's new meta when it popped any.
absl::StatusOr<std::vector<std::string>> PopCounted(storage::TypedTxn& txn,
                                                    const std::string& name,
                                                    storage::TypedMeta& meta,
                                                    End end, int64_t count);
// Removes `left` elements from the head and `right` from the tail.
// Removing them all deletes nothing: the key goes.
void RemoveEnds(storage::TypedTxn& txn, const std::string& name,
                storage::TypedMeta& meta, uint64_t left, uint64_t right);

// Visits the stored elements (not this transaction's staged ones) from
// position `pos` towards the tail, or with `reverse` towards the head, as
// (position, element), until `visit` returns false or the list ends.
absl::Status ScanElements(
    storage::TypedTxn& txn, const std::string& name,
    const storage::TypedMeta& meta, uint64_t pos, bool reverse,
    const std::function<bool(uint64_t pos, absl::string_view value)>& visit);
// `count` elements from position `first` on (with `reverse`, down).
absl::StatusOr<std::vector<std::string>> ReadElements(
    storage::TypedTxn& txn, const std::string& name,
    const storage::TypedMeta& meta, uint64_t first, uint64_t count,
    bool reverse);
// Every element, head first.
absl::StatusOr<std::vector<std::string>> ReadAll(
    storage::TypedTxn& txn, const std::string& name,
    const storage::TypedMeta& meta);
// Stores `now` as the list's elements where `was` were, both in list
// order: only the positions whose element changes are written, with the
// list anchored at its head (the head stays) or at its tail (the tail
// stays), whichever writes fewer.
void RewriteList(storage::TypedTxn& txn, const std::string& name,
                 storage::TypedMeta& meta, const std::vector<std::string>& was,
                 const std::vector<std::string>& now);

// The positions of the matches of `element` LPOS reports. Redis negates a
// negative rank; INT64_MIN stays negative there, which makes it report
// from the first match from the tail on, with no COUNT limit: kept here.
absl::StatusOr<std::vector<uint64_t>> Matches(storage::TypedTxn& txn,
                                              const std::string& name,
                                              const storage::TypedMeta& meta,
                                              absl::string_view element,
                                              PosOptions opts);

}  // namespace trackdb::types::list

#endif  // TRACKDB_TYPES_LIST_H_
