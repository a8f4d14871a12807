// Strings with expiry: the Redis key path's values (the `kv` column family).
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "rocksdb/write_batch.h"
#include "storage/keys.h"
#include "storage/rocks_util.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

// Strings share the entity stripes; the empty collection name keeps them
// apart from any real entity's hash in all but chance collisions, which only
// cost a little waiting.
constexpr absl::string_view kStringLockSpace = "";

absl::StatusOr<std::optional<StringValue>> DecodeLive(absl::string_view name,
                                                      absl::string_view bytes,
                                                      int64_t now_ms) {
  std::optional<StringValue> v = DecodeStringValue(bytes);
  if (!v) {
    return absl::DataLossError(
        absl::StrCat("corrupt string value for key '", name, "'"));
  }
  if (v->expired_at(now_ms)) return std::nullopt;
  return v;
}

}  // namespace

absl::StatusOr<std::optional<StringValue>> TrackStore::GetString(
    absl::string_view name, int64_t now_ms) {
  rocksdb::PinnableSlice value;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), kv(), ToSlice(name), &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "reading a string");
  return DecodeLive(name, SliceView(value), now_ms);
}

absl::StatusOr<std::vector<std::optional<StringValue>>> TrackStore::GetStrings(
    absl::Span<const std::string> names, int64_t now_ms) {
  const size_t n = names.size();
  std::vector<rocksdb::Slice> keys(names.begin(), names.end());
  std::vector<rocksdb::PinnableSlice> values(n);
  std::vector<rocksdb::Status> statuses(n);
  db_->MultiGet(rocksdb::ReadOptions(), kv(), n, keys.data(), values.data(),
                statuses.data());
  std::vector<std::optional<StringValue>> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return FromRocks(statuses[i], "reading strings");
    absl::StatusOr<std::optional<StringValue>> v =
        DecodeLive(names[i], SliceView(values[i]), now_ms);
    if (!v.ok()) return v.status();
    out[i] = *std::move(v);
  }
  return out;
}

absl::Status TrackStore::UpdateStrings(absl::Span<const std::string> names,
                                       int64_t now_ms,
                                       const StringUpdate& update) {
  std::vector<size_t> stripes;
  stripes.reserve(names.size());
  for (const std::string& name : names) {
    stripes.push_back(EntityLocks::StripeOf(kStringLockSpace, name));
  }
  EntityLocks::Held held = locks_.Lock(std::move(stripes));

  // Read each distinct name once; repeats see the same slot's value.
  absl::flat_hash_map<absl::string_view, size_t> first;
  std::vector<std::string> distinct;
  for (const std::string& name : names) {
    if (first.try_emplace(name, distinct.size()).second) {
      distinct.push_back(name);
    }
  }
  absl::StatusOr<std::vector<std::optional<StringValue>>> current =
      GetStrings(distinct, now_ms);
  if (!current.ok()) return current.status();
  std::vector<std::optional<StringValue>> values(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    values[i] = (*current)[first[names[i]]];
  }
  if (absl::Status s = update(&values); !s.ok()) return s;

  // The last value given for a name wins; unchanged names are not written.
  absl::flat_hash_map<absl::string_view, size_t> last;
  for (size_t i = 0; i < names.size(); ++i) last[names[i]] = i;
  rocksdb::WriteBatch batch;
  for (const auto& [name, i] : last) {
    const std::optional<StringValue>& before = (*current)[first[name]];
    const std::optional<StringValue>& after = values[i];
    if (before == after) continue;
    if (after) {
      batch.Put(kv(), ToSlice(name), EncodeStringValue(*after));
    } else {
      batch.Delete(kv(), ToSlice(name));
    }
  }
  if (batch.Count() == 0) return absl::OkStatus();
  return FromRocks(db_->Write(options_.write, &batch), "writing strings");
}

absl::Status TrackStore::ScanStrings(
    absl::string_view start, int64_t now_ms,
    const std::function<bool(absl::string_view, const StringValue&)>& visit) {
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), kv()));
  for (it->Seek(ToSlice(start)); it->Valid(); it->Next()) {
    const absl::string_view name = SliceView(it->key());
    absl::StatusOr<std::optional<StringValue>> v =
        DecodeLive(name, SliceView(it->value()), now_ms);
    if (!v.ok()) return v.status();
    if (!*v) continue;
    if (!visit(name, **v)) break;
  }
  return FromRocks(it->status(), "scanning strings");
}

}  // namespace trackdb::storage
