// Strings with expiry: the Redis key path's values (the `kv` column family).
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/strings/string_cache.h"
#include "storage/track_store.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

// Strings share the entity stripes; the empty collection name keeps them
// apart from any real entity's hash in all but chance collisions, which only
// cost a little waiting.
constexpr absl::string_view kStringLockSpace = "";

absl::Status Corrupt(absl::string_view name) {
  return absl::DataLossError(
      absl::StrCat("corrupt string value for key '", name, "'"));
}

}  // namespace

std::vector<size_t> TrackStore::StringStripes(
    absl::Span<const std::string> names) {
  std::vector<size_t> stripes;
  stripes.reserve(names.size());
  for (const std::string& name : names) {
    stripes.push_back(EntityLocks::StripeOf(kStringLockSpace, name));
  }
  return stripes;
}

absl::StatusOr<std::vector<std::optional<StringValue>>> TrackStore::LoadStrings(
    absl::Span<const std::string> names) {
  std::vector<std::optional<StringValue>> out(names.size());
  std::vector<size_t> missing;
  for (size_t i = 0; i < names.size(); ++i) {
    std::optional<std::optional<StringValue>> cached =
        string_cache_->Find(names[i]);
    if (cached) {
      out[i] = *std::move(cached);
    } else {
      missing.push_back(i);
    }
  }
  if (missing.empty()) return out;

  const size_t n = missing.size();
  std::vector<rocksdb::Slice> keys;
  keys.reserve(n);
  for (size_t i : missing) keys.push_back(ToSlice(names[i]));
  std::vector<rocksdb::PinnableSlice> values(n);
  std::vector<rocksdb::Status> statuses(n);
  if (n == 1) {
    statuses[0] = engine_->db->Get(rocksdb::ReadOptions(), engine_->kv(),
                                   keys[0], &values[0]);
  } else {
    engine_->db->MultiGet(rocksdb::ReadOptions(), engine_->kv(), n, keys.data(),
                          values.data(), statuses.data());
  }
  for (size_t j = 0; j < n; ++j) {
    const std::string& name = names[missing[j]];
    if (statuses[j].IsNotFound()) {
      string_cache_->PutAbsent(name);
      continue;
    }
    if (!statuses[j].ok()) return FromRocks(statuses[j], "reading strings");
    std::optional<StringValue> v = DecodeStringValue(SliceView(values[j]));
    if (!v) return Corrupt(name);
    string_cache_->Put(name, *v);
    out[missing[j]] = std::move(v);
  }
  return out;
}

absl::StatusOr<std::optional<StringValue>> TrackStore::GetString(
    absl::string_view name, int64_t now_ms) {
  if (std::optional<StringValue> v = string_cache_->Lookup(name)) {
    return Unexpired(std::move(v), now_ms);
  }
  const std::string names[] = {std::string(name)};
  absl::StatusOr<std::vector<std::optional<StringValue>>> v =
      GetStrings(names, now_ms);
  if (!v.ok()) return v.status();
  return std::move((*v)[0]);
}

absl::StatusOr<std::vector<std::optional<StringValue>>> TrackStore::GetStrings(
    absl::Span<const std::string> names, int64_t now_ms) {
  std::optional<EntityLocks::Held> held;
  // I5: what a read puts in the cache must not overwrite a newer value that
  // a concurrent UpdateStrings wrote after this read's DB lookup.
  // Shared: reads of one name fill the same value, side by side.
  if (string_cache_->enabled()) {
    held.emplace(locks_.Lock(StringStripes(names), /*shared=*/true));
  }
  absl::StatusOr<std::vector<std::optional<StringValue>>> values =
      LoadStrings(names);
  if (!values.ok()) return values.status();
  for (std::optional<StringValue>& v : *values)
    v = Unexpired(std::move(v), now_ms);
  return values;
}

absl::Status TrackStore::UpdateStrings(absl::Span<const std::string> names,
                                       int64_t now_ms,
                                       const StringUpdate& update) {
  EntityLocks::Held held = locks_.Lock(StringStripes(names));

  // Read each distinct name once; repeats see the same slot's value.
  absl::flat_hash_map<absl::string_view, size_t> first;
  std::vector<std::string> distinct;
  for (const std::string& name : names) {
    if (first.try_emplace(name, distinct.size()).second) {
      distinct.push_back(name);
    }
  }
  absl::StatusOr<std::vector<std::optional<StringValue>>> current =
      LoadStrings(distinct);
  if (!current.ok()) return current.status();
  for (std::optional<StringValue>& v : *current)
    v = Unexpired(std::move(v), now_ms);
  std::vector<std::optional<StringValue>> values(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    values[i] = (*current)[first[names[i]]];
  }
  if (absl::Status s = update(&values); !s.ok()) return s;

  // The last value given for a name wins; unchanged names are not written.
  absl::flat_hash_map<absl::string_view, size_t> last;
  for (size_t i = 0; i < names.size(); ++i) last[names[i]] = i;
  std::vector<StringChange> changed;
  for (const auto& [name, i] : last) {
    if (!((*current)[first[name]] == values[i])) {
      changed.push_back({name, &values[i]});
    }
  }
  return WriteStrings(changed);
}

absl::Status TrackStore::WriteStrings(absl::Span<const StringChange> changes) {
  if (changes.empty()) return absl::OkStatus();
  WriteBatchBuilder batch(*engine_);
  return WriteStrings(changes, batch, "writing strings");
}

absl::Status TrackStore::WriteStrings(absl::Span<const StringChange> changes,
                                      WriteBatchBuilder& batch,
                                      absl::string_view what) {
  absl::Status s;
  for (const auto& [name, after] : changes) {
    s = *after ? batch.Put(ColumnFamily::kKv, name, EncodeStringValue(**after))
               : batch.Delete(ColumnFamily::kKv, name);
    if (!s.ok()) break;
  }
  if (s.ok()) s = batch.Commit(what);
  // I5, still holding the stripes. After a failed write the DB's state is
  // not known here: forget the names rather than guess.
  for (const auto& [name, after] : changes) {
    if (!s.ok()) {
      string_cache_->Erase(name);
    } else if (*after) {
      string_cache_->Put(name, **after);
    } else {
      string_cache_->PutAbsent(name);
    }
  }
  return s;
}

absl::StatusOr<bool> TrackStore::PutString(absl::string_view name,
                                           const StringValue& value,
                                           int64_t now_ms) {
  const std::string names[] = {std::string(name)};
  {
    EntityLocks::Held held = locks_.Lock(StringStripes(names));
    const std::optional<StringValue> cached =
        Unexpired(string_cache_->Lookup(name), now_ms);
    if (cached == value) return true;
    const std::optional<StringValue> after = value;
    // A live cached string means no collection or typed value of that
    // name: write now. Otherwise look (a memory lookup and a read, which
    // a memtable bloom filter answers for a new name).
    absl::StatusOr<int64_t> entities =
        cached ? absl::StatusOr<int64_t>(0) : StoredCollectionSize(name);
    if (!entities.ok()) return entities.status();
    absl::StatusOr<std::optional<TypedMeta>> typed =
        cached ? absl::StatusOr<std::optional<TypedMeta>>(std::nullopt)
               : StoredTypedMeta(name);
    if (!typed.ok()) return typed.status();
    if (*entities == 0 && !*typed) {
      if (absl::Status s = WriteStrings({{name, &after}}); !s.ok()) return s;
      return cached.has_value();
    }
  }
  // A collection or typed value of that name goes in the same batch as the
  // string, under the whole-name locks (taken collection first, so the stripe
  // is let go).
  const StringValue values[] = {value};
  if (absl::Status s = ReplaceWithStrings(names, values); !s.ok()) return s;
  return false;
}

absl::Status TrackStore::ScanStrings(
    absl::string_view start, int64_t now_ms,
    const std::function<bool(absl::string_view, const StringValue&)>& visit) {
  std::unique_ptr<rocksdb::Iterator> it(
      engine_->db->NewIterator(rocksdb::ReadOptions(), engine_->kv()));
  for (it->Seek(ToSlice(start)); it->Valid(); it->Next()) {
    const absl::string_view name = SliceView(it->key());
    const std::optional<StringValue> v =
        DecodeStringValue(SliceView(it->value()));
    if (!v) return Corrupt(name);
    if (v->expired_at(now_ms)) continue;
    if (!visit(name, *v)) break;
  }
  return FromRocks(it->status(), "scanning strings");
}

}  // namespace trackdb::storage
