#include "types/key_dump.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "storage/format/typed_codec.h"
#include "types/key_type.h"
#include "types/zset.h"
#include "types/zset_range.h"

namespace trackdb::types {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

// Every member of `name`'s hash, set or list, in its order.
absl::StatusOr<RdbValue> LoadUnsortedValue(TypedTxn& txn,
                                           const std::string& name,
                                           const TypedMeta& meta) {
  RdbValue value;
  value.kind = meta.type == ValueType::kHash  ? RdbValue::Kind::kHash
               : meta.type == ValueType::kSet ? RdbValue::Kind::kSet
                                              : RdbValue::Kind::kList;
  absl::Status s =
      txn.Scan(name, meta, "", "", /*reverse=*/false,
               [&](absl::string_view subkey, absl::string_view member_value) {
                 switch (meta.type) {
                   case ValueType::kHash:
                     value.hash.emplace_back(subkey, member_value);
                     break;
                   case ValueType::kSet:
                     value.elements.emplace_back(subkey);
                     break;
                   default:
                     value.elements.emplace_back(member_value);
                 }
                 return true;
               });
  if (!s.ok()) return s;
  return value;
}

}  // namespace

absl::StatusOr<std::optional<RdbValue>> LoadTypedValue(
    storage::TrackStore& store, TypedTxn& txn, const std::string& name) {
  absl::StatusOr<std::optional<TypedMeta>> meta = txn.Meta(name);
  if (!meta.ok()) return meta.status();
  if (*meta && (*meta)->type != ValueType::kZset) {
    return LoadUnsortedValue(txn, name, **meta);
  }
  // A sorted set: a typed one or a GEO key.
  absl::StatusOr<std::optional<ZsetSource>> source =
      LookupZsetSource(store, txn, name, /*sets_allowed=*/false);
  if (!source.ok()) return source.status();
  if (!*source || (*source)->kind == ZsetSource::kNone) return std::nullopt;
  absl::StatusOr<std::vector<ZEntry>> entries =
      LoadZsetSource(store, txn, name, **source);
  if (!entries.ok()) return entries.status();
  RdbValue value;
  value.kind = RdbValue::Kind::kZset;
  value.zset.reserve(entries->size());
  for (ZEntry& e : *entries) {
    value.zset.emplace_back(std::move(e.member), e.score);
  }
  return value;
}

absl::StatusOr<std::optional<DumpedKey>> DumpKey(storage::TrackStore& store,
                                                 const std::string& name,
                                                 int64_t now_ms) {
  absl::StatusOr<std::optional<storage::StringValue>> string =
      store.GetString(name, now_ms);
  if (!string.ok()) return string.status();
  DumpedKey out;
  if (*string) {
    RdbValue value;
    value.string = (*string)->value;
    out.payload = EncodeDumpPayload(value);
    out.expire_at_ms = (*string)->expire_at_ms;
    out.string = **std::move(string);
    return out;
  }
  std::optional<RdbValue> value;
  const std::string names[] = {name};
  absl::Status s = store.ReadTyped(names, now_ms, [&](TypedTxn& txn) {
    absl::StatusOr<std::optional<RdbValue>> v =
        LoadTypedValue(store, txn, name);
    if (!v.ok()) return v.status();
    value = *std::move(v);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (!value) return std::nullopt;
  out.payload = EncodeDumpPayload(*value);
  absl::StatusOr<int64_t> expire_at = NonStringExpiry(store, name, now_ms);
  if (!expire_at.ok()) return expire_at.status();
  out.expire_at_ms = *expire_at;
  return out;
}

}  // namespace trackdb::types
