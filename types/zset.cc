#include "types/zset.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "storage/format/keys.h"
#include "storage/format/typed_codec.h"
#include "types/key_type.h"

namespace trackdb::types {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

// 's' | 8 score bytes | member.
constexpr size_t kScoreSubkeyHead = 1 + 8;

absl::Status CorruptZset(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("corrupt sorted set ", what));
}

}  // namespace

void StageNewZset(TypedTxn& txn, const std::string& name, bool had_typed,
                  const std::vector<ZEntry>& entries, int64_t expire_at_ms) {
  if (entries.empty()) {
    if (had_typed) txn.DeleteMeta(name);
    return;
  }
  // A new version: the old value's members become garbage.
  TypedMeta meta = txn.Create(ValueType::kZset);
  for (const ZEntry& e : entries) {
    txn.Put(name, meta, storage::ZsetMemberSubkey(e.member),
            storage::EncodeScore(e.score));
    txn.Put(name, meta, storage::ZsetScoreSubkey(e.score, e.member), "");
  }
  meta.size = entries.size();
  meta.expire_at_ms = expire_at_ms;
  txn.SetMeta(name, meta);
}

absl::Status TypedZsetReader::Walk(
    bool reverse, const std::optional<ZSeek>& from,
    const std::function<bool(const ZEntry&)>& visit) const {
  const std::string prefix(1, storage::kZsetScoreTag);
  std::string start;
  if (from) {
    start = prefix + storage::EncodeScore(from->score);
    if (from->member) {
      start += *from->member;
    } else if (reverse) {
      start = storage::PrefixEnd(start);  // after every member of the score
    }
  }
  // Nothing live lies below the meta's low bound: seek past what pops
  // left there.
  if (!reverse && start < meta_.low) start = meta_.low;
  absl::Status corrupt;
  ZEntry e;
  absl::Status s =
      txn_.Scan(name_, meta_, prefix, start, reverse,
                [&](absl::string_view subkey, absl::string_view) {
                  if (subkey.size() < kScoreSubkeyHead) {
                    corrupt = CorruptZset("score key");
                    return false;
                  }
                  e.score = storage::DecodeScore(subkey.substr(1));
                  e.member.assign(subkey.data() + kScoreSubkeyHead,
                                  subkey.size() - kScoreSubkeyHead);
                  return visit(e);
                });
  if (!s.ok()) return s;
  return corrupt;
}

absl::StatusOr<std::optional<double>> TypedZsetReader::Score(
    absl::string_view member) const {
  absl::StatusOr<std::optional<std::string>> value =
      txn_.Get(name_, meta_, storage::ZsetMemberSubkey(member));
  if (!value.ok()) return value.status();
  if (!*value) return std::nullopt;
  if ((*value)->size() != 8) return CorruptZset("score");
  return storage::DecodeScore(**value);
}

absl::StatusOr<std::optional<double>> ZsetWriter::Score(
    absl::string_view member) {
  return TypedZsetReader(txn(), name(), meta()).Score(member);
}

void ZsetWriter::Set(absl::string_view member, std::optional<double> old,
                     double score) {
  storage::TypedMeta& meta = ChangeMeta();
  if (old) {
    txn().Delete(name(), meta, storage::ZsetScoreSubkey(*old, member));
  } else {
    ++meta.size;
  }
  txn().Put(name(), meta, storage::ZsetMemberSubkey(member),
            storage::EncodeScore(score));
  std::string score_key = storage::ZsetScoreSubkey(score, member);
  if (score_key < meta.low) meta.low = score_key;
  txn().Put(name(), meta, score_key, "");
}

void ZsetWriter::RemovedLowest(double score, absl::string_view member) {
  std::string score_key = storage::ZsetScoreSubkey(score, member);
  storage::TypedMeta& meta = ChangeMeta();
  if (score_key > meta.low) meta.low = std::move(score_key);
}

void ZsetWriter::Remove(absl::string_view member, double score) {
  txn().Delete(name(), meta(), storage::ZsetMemberSubkey(member));
  txn().Delete(name(), meta(), storage::ZsetScoreSubkey(score, member));
  --ChangeMeta().size;
}

std::vector<ZEntry> GeoEntries(const std::vector<ScoredMember>& members) {
  std::vector<ZEntry> entries;
  entries.reserve(members.size());
  for (const ScoredMember& m : members) {
    entries.push_back({m.member, static_cast<double>(m.score)});
  }
  return entries;
}

absl::StatusOr<std::optional<ZsetSource>> LookupZsetSource(
    storage::TrackStore& store, TypedTxn& txn, const std::string& name,
    bool sets_allowed) {
  using Found = std::optional<ZsetSource>;
  absl::StatusOr<std::optional<TypedMeta>> meta = txn.Meta(name);
  if (!meta.ok()) return meta.status();
  if (*meta) {
    if ((*meta)->type == ValueType::kZset) {
      return Found(ZsetSource{ZsetSource::kZset, *meta});
    }
    if ((*meta)->type == ValueType::kSet && sets_allowed) {
      return Found(ZsetSource{ZsetSource::kSet, *meta});
    }
    return Found();
  }
  absl::StatusOr<bool> other = txn.HoldsStringOrCollection(name);
  if (!other.ok()) return other.status();
  if (!*other) return Found(ZsetSource{});
  // A string or a GEO key (reading strings here would take their locks).
  absl::StatusOr<bool> geo = IsGeoKey(store, name);
  if (!geo.ok()) return geo.status();
  if (*geo) return Found(ZsetSource{ZsetSource::kGeo, std::nullopt});
  return Found();
}

absl::StatusOr<std::vector<ZEntry>> LoadZsetSource(storage::TrackStore& store,
                                                   TypedTxn& txn,
                                                   const std::string& name,
                                                   const ZsetSource& source) {
  std::vector<ZEntry> entries;
  absl::Status s;
  switch (source.kind) {
    case ZsetSource::kNone:
      break;
    case ZsetSource::kZset:
      s = TypedZsetReader(txn, name, *source.meta)
              .Walk(false, std::nullopt, [&](const ZEntry& e) {
                entries.push_back(e);
                return true;
              });
      break;
    case ZsetSource::kSet:
      // Every score is 1: byte order of the members is sorted-set order.
      s = txn.Scan(name, *source.meta, "", "", false,
                   [&](absl::string_view member, absl::string_view) {
                     entries.push_back({std::string(member), 1.0});
                     return true;
                   });
      break;
    case ZsetSource::kGeo: {
      absl::StatusOr<std::vector<ScoredMember>> members =
          LoadSortedMembers(store, name);
      if (!members.ok()) return members.status();
      entries = GeoEntries(*members);
      break;
    }
  }
  if (!s.ok()) return s;
  return entries;
}

}  // namespace trackdb::types
