#ifndef TRACKDB_TYPES_ZSET_H_
#define TRACKDB_TYPES_ZSET_H_

// Redis sorted sets kept as typed values (storage/format/typed_codec.h's
// layout: 'm'|member -> EncodeScore(score), and 's'|EncodeScore(score)|member
// -> "" so that a walk of the 's' subkeys is a walk in sorted-set order): both
// indexes kept together by one writer, and the sorted sets a command may
// read from a key that holds a typed zset, a typed set or a GEO key
// (geo_key.h).
//
// A typed zset's meta.size is its number of members, kept exact by every
// change (ZsetWriter); a change that empties it removes the key.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/format/typed_values.h"
#include "storage/track_store.h"
#include "types/geo_key.h"
#include "types/value_writer.h"
#include "types/zset_range.h"

namespace trackdb::types {

// What a sorted-set command finds at a key.
enum class ZsetKind { kNone, kGeo, kTyped };

// A typed zset read in a transaction. Walks read what is stored: not what
// the transaction has staged.
class TypedZsetReader : public ZsetReader {
 public:
  TypedZsetReader(storage::TypedTxn& txn, absl::string_view name,
                  const storage::TypedMeta& meta)
      : txn_(txn), name_(name), meta_(meta) {}
  int64_t size() const override { return static_cast<int64_t>(meta_.size); }
  absl::Status Walk(
      bool reverse, const std::optional<ZSeek>& from,
      const std::function<bool(const ZEntry&)>& visit) const override;
  // A member's score (what the transaction staged, else what is stored).
  absl::StatusOr<std::optional<double>> Score(absl::string_view member) const;

 private:
  storage::TypedTxn& txn_;
  const std::string name_;
  const storage::TypedMeta meta_;
};

// Stages changes to one typed zset, both subkeys of each member and its
// meta's size.
class ZsetWriter : public ValueWriter {
 public:
  ZsetWriter(storage::TypedTxn& txn, absl::string_view name,
             const storage::TypedMeta& meta)
      : ValueWriter(txn, name, meta) {}
  // A member's score, this writer's changes included.
  absl::StatusOr<std::optional<double>> Score(absl::string_view member);
  // Gives `member` `score`; `old` is its score now (nullopt: a new member).
  void Set(absl::string_view member, std::optional<double> old, double score);
  void Remove(absl::string_view member, double score);
  // Says that every member up to (score, member), which was removed, is
  // gone: later walks start after it (TypedMeta::low).
  void RemovedLowest(double score, absl::string_view member);
};

// A GEO key's scored members as entries (their 52-bit scores are exact
// doubles), in the same order.
std::vector<ZEntry> GeoEntries(const std::vector<ScoredMember>& members);

// A source of a command that reads several sorted sets in one transaction
// (ZRANGESTORE, ZUNION, ZINTER, ZDIFF and their STORE forms).
struct ZsetSource {
  enum Kind { kNone, kZset, kSet, kGeo } kind = kNone;
  std::optional<storage::TypedMeta> meta;  // kZset, kSet
};

// The source `name` as Redis's zunionInterDiffGenericCommand checks it: a
// typed zset, a typed set when `sets_allowed` (its members score 1), a GEO
// key, or nothing; nullopt for anything else (WRONGTYPE). Safe inside a
// transaction.
absl::StatusOr<std::optional<ZsetSource>> LookupZsetSource(
    storage::TrackStore& store, storage::TypedTxn& txn, const std::string& name,
    bool sets_allowed);

// Every member of a source, in sorted-set order. O(N), and O(N log N) for a
// GEO key or a set.
absl::StatusOr<std::vector<ZEntry>> LoadZsetSource(storage::TrackStore& store,
                                                   storage::TypedTxn& txn,
                                                   const std::string& name,
                                                   const ZsetSource& source);

// Stages `name` as a new sorted set of `entries` (distinct members),
// expiring at `expire_at_ms` (0: never), replacing the typed value it holds
// if `had_typed`; no entries: removes it.
void StageNewZset(storage::TypedTxn& txn, const std::string& name,
                  bool had_typed, const std::vector<ZEntry>& entries,
                  int64_t expire_at_ms = 0);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_ZSET_H_
