#ifndef TRACKDB_SERVICE_RESP_COMMANDS_TYPED_ZSET_H_
#define TRACKDB_SERVICE_RESP_COMMANDS_TYPED_ZSET_H_

// Redis sorted sets kept as typed values (storage/typed_codec.h's layout:
// 'm'|member -> EncodeScore(score), and 's'|EncodeScore(score)|member -> ""
// so that a walk of the 's' subkeys is a walk in sorted-set order), and
// what the sorted-set command families (zset_commands.cc,
// zset_write_commands.cc, zset_algebra_commands.cc) share about a key
// that may hold a typed zset or a GEO key (geo_key.h).
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
#include "service/resp/dispatch/command.h"
#include "service/resp/commands/geo_key.h"
#include "service/resp/commands/zset_range.h"
#include "storage/typed_values.h"

namespace trackdb::resp {

// What a sorted-set command finds at a key.
enum class ZsetKind { kNone, kGeo, kTyped };

// The kind of `name` (a storage name), or nullopt once it has replied
// WRONGTYPE (a string, hash, list or set) or a storage error. Not for use
// inside a transaction (it reads strings, which takes their locks).
std::optional<ZsetKind> ZsetKindOrReply(CommandContext& ctx,
                                        const std::string& name);

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
class ZsetWriter {
 public:
  ZsetWriter(storage::TypedTxn& txn, absl::string_view name,
             const storage::TypedMeta& meta)
      : txn_(txn), name_(name), meta_(meta) {}
  // A member's score, this writer's changes included.
  absl::StatusOr<std::optional<double>> Score(absl::string_view member);
  // Gives `member` `score`; `old` is its score now (nullopt: a new member).
  void Set(absl::string_view member, std::optional<double> old, double score);
  void Remove(absl::string_view member, double score);
  // Says that every member up to (score, member), which was removed, is
  // gone: later walks start after it (TypedMeta::low).
  void RemovedLowest(double score, absl::string_view member);
  // Stages the meta if anything changed (an empty zset removes the key).
  void Finish();
  const storage::TypedMeta& meta() const { return meta_; }

 private:
  storage::TypedTxn& txn_;
  const std::string name_;
  storage::TypedMeta meta_;
  bool changed_ = false;
};

using TypedZsetBody =
    std::function<absl::Status(storage::TypedTxn& txn, const std::string& name,
                               const storage::TypedMeta& meta, Reply& reply)>;

// Runs `body` on the typed zset `name` in one transaction (RunTyped), after
// Redis's type check: WRONGTYPE when it holds anything else by then, and
// `absent`'s reply when it holds nothing.
void RunOnTypedZset(CommandContext& ctx, const std::string& name,
                    const std::function<void(Reply&)>& absent,
                    const TypedZsetBody& body);

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

// What a STORE command computed: nullopt once it has replied an error.
using ZsetResult = std::optional<std::vector<ZEntry>>;
using ZsetStoreBody = std::function<absl::Status(
    storage::TypedTxn& txn, Reply& reply, ZsetResult* result)>;

// Runs a STORE command: `compute` reads its sources in one transaction over
// `names` (the sources and `dst`), and in the same transaction `dst` is
// replaced by the result (removed when it is empty), whatever it held (a
// typed value, a string or a GEO key: TypedTxn::RemoveOtherTypes), and the
// reply is the result's size. Atomic: one batch.
void RunZsetStore(CommandContext& ctx, const std::vector<std::string>& names,
                  const std::string& dst, const ZsetStoreBody& compute);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_COMMANDS_TYPED_ZSET_H_
