#include "types/key_type.h"

#include <vector>

namespace trackdb::types {

KeyType KeyTypeOf(storage::ValueType t) {
  switch (t) {
    case storage::ValueType::kHash:
      return KeyType::kHash;
    case storage::ValueType::kList:
      return KeyType::kList;
    case storage::ValueType::kSet:
      return KeyType::kSet;
    case storage::ValueType::kZset:
      return KeyType::kZset;
  }
  return KeyType::kNone;
}

absl::StatusOr<KeyType> TypeOf(storage::TrackStore& store,
                               absl::string_view name, int64_t now_ms) {
  // A name holds one kind of value (storage/format/typed_values.h), so the
  // order of the looks only decides their cost: a typed value's meta is mostly
  // in the typed cache, which a sorted-set command's check then answers
  // without a read of `kv`.
  auto typed = store.GetTypedMeta(name, now_ms);
  if (!typed.ok()) return typed.status();
  if (*typed) return KeyTypeOf((*typed)->type);
  auto s = store.GetString(name, now_ms);
  if (!s.ok()) return s.status();
  if (s->has_value()) return KeyType::kString;
  auto n = store.CollectionSize(name);
  if (!n.ok()) return n.status();
  return *n > 0 ? KeyType::kGeo : KeyType::kNone;
}

const char* TypeName(KeyType t) {
  switch (t) {
    case KeyType::kString:
      return "string";
    case KeyType::kGeo:
    case KeyType::kZset:
      return "zset";
    case KeyType::kHash:
      return "hash";
    case KeyType::kList:
      return "list";
    case KeyType::kSet:
      return "set";
    default:
      return "none";
  }
}

absl::StatusOr<bool> IsGeoKey(storage::TrackStore& store,
                              absl::string_view name) {
  absl::StatusOr<int64_t> size = store.CollectionSize(name);
  if (!size.ok()) return size.status();
  return *size > 0;
}

absl::StatusOr<bool> HoldsNonString(storage::TrackStore& store,
                                    absl::string_view name, int64_t now_ms) {
  auto typed = store.GetTypedMeta(name, now_ms);
  if (!typed.ok()) return typed.status();
  if (*typed) return true;
  return IsGeoKey(store, name);
}

absl::StatusOr<int64_t> NonStringExpiry(storage::TrackStore& store,
                                        absl::string_view name,
                                        int64_t now_ms) {
  auto typed = store.GetTypedMeta(name, now_ms);
  if (!typed.ok()) return typed.status();
  if (*typed) return (*typed)->expire_at_ms;
  return store.CollectionExpiry(name);
}

absl::StatusOr<bool> DeleteAnyKey(storage::TrackStore& store,
                                  absl::string_view name, int64_t now_ms) {
  const std::string names[] = {std::string(name)};
  absl::StatusOr<std::vector<storage::TrackStore::NameContents>> removed =
      store.DeleteNames(names, now_ms);
  if (!removed.ok()) return removed.status();
  return (*removed)[0].exists();
}

}  // namespace trackdb::types
