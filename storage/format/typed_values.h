#ifndef TRACKDB_STORAGE_FORMAT_TYPED_VALUES_H_
#define TRACKDB_STORAGE_FORMAT_TYPED_VALUES_H_

// Redis hashes, sets, sorted sets and lists (the `types` column family;
// keys and values in storage/format/typed_codec.h), read and changed through a
// TypedTxn: TrackStore::UpdateTyped runs one over a few names and commits
// what it staged in ONE batch, so a command is atomic (the write funnel,
// storage/write_funnel.h). The front door decides what each command does;
// this API only reads, stages and commits.
//
// A name holds at most one of: a string, a collection (GEO key), a typed
// value. The store keeps that: a typed command checks
// HoldsStringOrCollection first (WRONGTYPE) holding the name's stripe,
// AddPoints refuses a name that holds a string or typed value
// (storage/format/wrong_type.h) holding the same stripe shared, so the two
// cannot both create, and the whole-name operations (TrackStore's
// DeleteNames, CopyName, ReplaceWith*, PutString) remove or carry a typed
// value along with the rest.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "storage/format/typed_codec.h"

namespace trackdb::storage {

class TypedTxn {
 public:
  virtual ~TypedTxn() = default;

  // The time that decides what has expired.
  virtual int64_t now_ms() const = 0;
  // Whether `name` holds a string or a non-empty collection.
  virtual absl::StatusOr<bool> HoldsStringOrCollection(
      absl::string_view name) = 0;
  // `name`'s typed value if it has one that has not expired (as staged by
  // this transaction, if it staged one).
  virtual absl::StatusOr<std::optional<TypedMeta>> Meta(
      absl::string_view name) = 0;
  // A new, empty value of `type` with a version never used before; nothing
  // is stored until SetMeta.
  virtual TypedMeta Create(ValueType type) = 0;

  // A member's value: what this transaction staged for it, else the store's.
  // Reads cache what they read (storage/typed/typed_cache.h), except keys that
  // reads only walk (IsWalkedOnly, storage/format/typed_codec.h): a write of
  // those has no cache entry to drop.
  virtual absl::StatusOr<std::optional<std::string>> Get(
      absl::string_view name, const TypedMeta& meta,
      absl::string_view subkey) = 0;
  // Get, and when `subkey` is neither staged nor cached, up to `ahead`
  // stored members after it (before it, with `reverse`) are read with it
  // in one walk from it, kept for this transaction's later Gets and cached
  // after its commit: a pipelined run of pops from one end of a list seeks
  // once. Lists only (FAILED_PRECONDITION otherwise): the members it walks
  // past are cached, and a list has no walked-only keys.
  virtual absl::StatusOr<std::optional<std::string>> GetReadingAhead(
      absl::string_view name, const TypedMeta& meta, absl::string_view subkey,
      bool reverse, size_t ahead) = 0;
  // Get of each of `subkeys`, in their order, in one pass (a list's
  // elements by index).
  virtual absl::StatusOr<std::vector<std::optional<std::string>>> GetMany(
      absl::string_view name, const TypedMeta& meta,
      absl::Span<const std::string> subkeys) = 0;
  // The members whose subkeys start with `prefix`, as this transaction
  // staged them over what is stored, from `from` on (>= from; with
  // `reverse`, <= from going down; an empty `from` starts at the first or,
  // reversed, the last), until `visit` returns false.
  virtual absl::Status Scan(
      absl::string_view name, const TypedMeta& meta, absl::string_view prefix,
      absl::string_view from, bool reverse,
      const std::function<bool(absl::string_view subkey,
                               absl::string_view value)>& visit) = 0;

  // Staged changes, written when the transaction's function returns OK.
  virtual void Put(absl::string_view name, const TypedMeta& meta,
                   absl::string_view subkey, absl::string_view value) = 0;
  virtual void Delete(absl::string_view name, const TypedMeta& meta,
                      absl::string_view subkey) = 0;
  // Stores `meta` as name's value; a size of 0 removes the value instead
  // (Redis removes a key that a command empties).
  virtual void SetMeta(absl::string_view name, const TypedMeta& meta) = 0;
  // Removes name's typed value: one key, whatever its size (the members
  // become garbage that compaction drops).
  virtual void DeleteMeta(absl::string_view name) = 0;
  // Stages the removal of whatever else `name` holds, a string or a
  // collection, in this transaction's batch: for a command that overwrites
  // a key of any type (SINTERSTORE, ZUNIONSTORE, GEOSEARCH ... STOREDIST).
  // `name` must be one of the call's `replaceable` names (UpdateTyped);
  // FAILED_PRECONDITION otherwise.
  virtual absl::Status RemoveOtherTypes(absl::string_view name) = 0;
};

// What TrackStore::ReadTyped answers (FAILED_PRECONDITION) when its
// transaction staged a write or created a value: a caller may run it again
// as an update.
inline constexpr char kReadOnlyTxnStagedWrite[] =
    "a read-only typed transaction staged a write";

// Runs inside a transaction; what it staged is committed only if it
// returns OK.
using TypedUpdate = std::function<absl::Status(TypedTxn& txn)>;

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_TYPED_VALUES_H_
