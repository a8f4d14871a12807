// FenceStore (fence_store.h), and LoadFences, which builds the registry on
// open (storage/fences/fence_registry.h).
#include "storage/fence_store.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "model/limits.h"
#include "storage/engine/engine.h"
#include "storage/fence_codec.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

// The offset an event-log key (FenceEventKey) ends with.
uint64_t EventOffset(absl::string_view key) {
  return ReadBigEndian64(key.substr(key.size() - 8));
}

// Calls `visit` with every key and value of fences in [begin, end).
absl::Status ScanFences(
    const Engine& engine, absl::string_view begin, absl::string_view end,
    const std::function<absl::Status(
        absl::string_view key, absl::string_view value, bool* stop)>& visit) {
  rocksdb::ReadOptions read;
  rocksdb::Slice upper = ToSlice(end);
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      engine.db->NewIterator(read, engine.fences()));
  bool stop = false;
  for (it->Seek(ToSlice(begin)); it->Valid() && !stop; it->Next()) {
    if (absl::Status s =
            visit(SliceView(it->key()), SliceView(it->value()), &stop);
        !s.ok()) {
      return s;
    }
  }
  return FromRocks(it->status(), "reading fences");
}

// A definition's value is the fence without its collection, which its key
// holds: a collection name need not be UTF-8 (a RESP database's prefix),
// and a proto3 string must.
std::string DefinitionValue(const v1::Fence& proto) {
  v1::Fence stored = proto;
  stored.clear_collection();
  return stored.SerializeAsString();
}

absl::StatusOr<v1::Fence> ParseFence(absl::string_view collection,
                                     absl::string_view value) {
  v1::Fence f;
  if (!f.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
    return absl::DataLossError("corrupt fence definition");
  }
  f.set_collection(std::string(collection));
  return f;
}

// Deletes, in `batch`, every entity's state for fence `name`.
absl::Status DeleteStatesOf(const Engine& engine, absl::string_view collection,
                            absl::string_view name, WriteBatchBuilder& batch) {
  const std::string begin = FencesPrefix(collection, kFenceStateTag);
  return ScanFences(engine, begin, PrefixEnd(begin),
                    [&](absl::string_view key, absl::string_view, bool*) {
                      auto parts = ParseFenceStateKey(collection, key);
                      if (!parts || parts->fence != name)
                        return absl::OkStatus();
                      return batch.Delete(ColumnFamily::kFences, key);
                    });
}

// One collection's fences and event-log bounds, from its keys.
absl::Status LoadCollection(Engine& engine, absl::string_view collection) {
  CollectionFences& f = engine.fence_registry.FindOrAdd(collection);
  const std::string defs = FencesPrefix(collection, kFenceTag);
  absl::Status s = ScanFences(
      engine, defs, PrefixEnd(defs),
      [&](absl::string_view, absl::string_view value, bool*) {
        absl::StatusOr<v1::Fence> proto = ParseFence(collection, value);
        if (!proto.ok()) return proto.status();
        auto compiled = fence::CompileFence(*proto, model::Limits());
        if (!compiled.ok()) return compiled.status();
        f.Put(*std::move(compiled));
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  const std::string states = FencesPrefix(collection, kFenceStateTag);
  s = ScanFences(engine, states, PrefixEnd(states),
                 [&](absl::string_view key, absl::string_view, bool*) {
                   if (auto parts = ParseFenceStateKey(collection, key)) {
                     f.MayHaveStates(parts->entity, true);
                   }
                   return absl::OkStatus();
                 });
  if (!s.ok()) return s;
  const std::string log = FencesPrefix(collection, kFenceEventTag);
  const std::string log_end = PrefixEnd(log);
  std::unique_ptr<rocksdb::Iterator> it(
      engine.db->NewIterator(rocksdb::ReadOptions(), engine.fences()));
  uint64_t first = 1, next = 1;
  it->Seek(ToSlice(log));
  if (it->Valid() && SliceView(it->key()) < log_end) {
    first = EventOffset(SliceView(it->key()));
    it->SeekForPrev(ToSlice(log_end));
    next = EventOffset(SliceView(it->key())) + 1;
  }
  if (!it->status().ok()) {
    return FromRocks(it->status(), "reading the fence event log");
  }
  std::string kept;
  const rocksdb::Status k = engine.db->Get(
      rocksdb::ReadOptions(), engine.fences(),
      ToSlice(FencesPrefix(collection, kFenceLogKeptTag)), &kept);
  if (k.ok() && kept.size() == 8) {
    const uint64_t from = ReadBigEndian64(kept);
    first = std::max(first, from);
    next = std::max(next, from);
  } else if (!k.IsNotFound()) {
    return k.ok() ? absl::DataLossError("corrupt fence log start")
                  : FromRocks(k, "reading the fence log start");
  }
  f.SetLoaded(first, next);
  return absl::OkStatus();
}

// The first offset of a log to keep: past the excess over max_events,
// then past every event logged before `expired_before_ms` (logging times
// of concurrent writers may interleave by a little: the pass stops at the
// first event young enough, keeping what follows it).
absl::StatusOr<uint64_t> FirstToKeep(const Engine& engine,
                                     absl::string_view collection,
                                     uint64_t first, uint64_t visible,
                                     int64_t expired_before_ms) {
  const v1::StorageConfig& config = engine.options.config;
  uint64_t keep = first;
  const uint64_t max_events = config.fence_log_max_events();
  if (max_events > 0 && visible - first > max_events) {
    keep = visible - max_events;
  }
  if (config.fence_log_max_age_s() == 0 || keep >= visible) return keep;
  absl::Status s = ScanFences(
      engine, FenceEventKey(collection, keep),
      FenceEventKey(collection, visible),
      [&](absl::string_view key, absl::string_view value, bool* stop) {
        FenceEventRecord e;
        if (absl::Status d = DecodeFenceEvent(value, &e); !d.ok()) return d;
        if (e.logged_ms >= expired_before_ms) {
          *stop = true;
        } else {
          keep = EventOffset(key) + 1;
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return keep;
}

}  // namespace

absl::Status ReloadFences(Engine& engine, absl::string_view collection) {
  CollectionFences& f = engine.fence_registry.FindOrAdd(collection);
  std::vector<std::string> names;
  for (const auto& [name, id] : f.ids) names.push_back(name);
  for (const std::string& name : names) f.Remove(name);
  return LoadCollection(engine, collection);
}

absl::Status LoadFences(Engine& engine) {
  std::unique_ptr<rocksdb::Iterator> it(
      engine.db->NewIterator(rocksdb::ReadOptions(), engine.fences()));
  for (it->SeekToFirst(); it->Valid();) {
    absl::string_view key = SliceView(it->key());
    uint32_t len = 0;
    if (!ReadVarint32(&key, &len) || key.size() < len) {
      return absl::DataLossError("corrupt key in the fences column family");
    }
    const std::string collection(key.substr(0, len));
    if (absl::Status s = LoadCollection(engine, collection); !s.ok()) return s;
    const std::string end = PrefixEnd(CollectionPrefix(collection));
    if (end.empty()) break;
    it->Seek(ToSlice(end));
  }
  return FromRocks(it->status(), "loading fences");
}

absl::StatusOr<bool> FenceStore::Put(const v1::Fence& proto) {
  auto compiled = fence::CompileFence(proto, model::Limits());
  if (!compiled.ok()) return compiled.status();
  const std::string& collection = compiled->collection;
  absl::WriterMutexLock lock(&collection_locks_->For(collection));
  CollectionFences& f = engine_->fence_registry.FindOrAdd(collection);
  const bool existed = f.ids.contains(compiled->name);
  WriteBatchBuilder batch(*engine_);
  if (existed) {
    if (absl::Status s =
            DeleteStatesOf(*engine_, collection, compiled->name, batch);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s =
          batch.Put(ColumnFamily::kFences, FenceKey(collection, proto.name()),
                    DefinitionValue(proto));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = batch.Commit("writing a fence"); !s.ok()) return s;
  f.Put(*std::move(compiled));
  return !existed;
}

absl::StatusOr<std::optional<v1::Fence>> FenceStore::Get(
    absl::string_view collection, absl::string_view name) {
  std::string value;
  rocksdb::Status s =
      engine_->db->Get(rocksdb::ReadOptions(), engine_->fences(),
                       ToSlice(FenceKey(collection, name)), &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "reading a fence");
  absl::StatusOr<v1::Fence> f = ParseFence(collection, value);
  if (!f.ok()) return f.status();
  return std::optional<v1::Fence>(*std::move(f));
}

absl::StatusOr<bool> FenceStore::Delete(absl::string_view collection,
                                        absl::string_view name) {
  absl::WriterMutexLock lock(&collection_locks_->For(collection));
  CollectionFences* f = engine_->fence_registry.Find(collection);
  if (f == nullptr || !f->ids.contains(name)) return false;
  WriteBatchBuilder batch(*engine_);
  if (absl::Status s = DeleteStatesOf(*engine_, collection, name, batch);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          batch.Delete(ColumnFamily::kFences, FenceKey(collection, name));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = batch.Commit("deleting a fence"); !s.ok()) return s;
  f->Remove(std::string(name));
  return true;
}

absl::StatusOr<std::vector<v1::Fence>> FenceStore::List(
    absl::string_view collection) {
  std::vector<v1::Fence> out;
  const std::string begin = FencesPrefix(collection, kFenceTag);
  absl::Status s =
      ScanFences(*engine_, begin, PrefixEnd(begin),
                 [&](absl::string_view, absl::string_view value, bool*) {
                   absl::StatusOr<v1::Fence> f = ParseFence(collection, value);
                   if (!f.ok()) return f.status();
                   out.push_back(*std::move(f));
                   return absl::OkStatus();
                 });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<std::string>> FenceStore::Members(
    absl::string_view collection, absl::string_view name) {
  std::vector<std::string> out;
  const std::string begin = FencesPrefix(collection, kFenceStateTag);
  absl::Status s =
      ScanFences(*engine_, begin, PrefixEnd(begin),
                 [&](absl::string_view key, absl::string_view value, bool*) {
                   auto parts = ParseFenceStateKey(collection, key);
                   if (!parts || parts->fence != name) return absl::OkStatus();
                   auto state = DecodeFenceState(value);
                   if (!state)
                     return absl::DataLossError("corrupt fence state");
                   if (state->inside) out.emplace_back(parts->entity);
                   return absl::OkStatus();
                 });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<FenceEventsPage> FenceStore::ReadEvents(
    absl::string_view collection, uint64_t from, size_t max) {
  FenceEventsPage page;
  CollectionFences* f = engine_->fence_registry.Find(collection);
  if (f == nullptr) return page;
  const uint64_t visible = f->visible();
  page.next_offset = std::max(from, uint64_t{1});
  if (page.next_offset >= visible || max == 0) return page;
  const std::string end = FenceEventKey(collection, visible);
  absl::Status s = ScanFences(
      *engine_, FenceEventKey(collection, page.next_offset), end,
      [&](absl::string_view key, absl::string_view value, bool* stop) {
        FenceEventRecord e;
        e.offset = EventOffset(key);
        if (absl::Status d = DecodeFenceEvent(value, &e); !d.ok()) return d;
        page.events.push_back(std::move(e));
        *stop = page.events.size() >= max;
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  page.next_offset =
      page.events.size() >= max ? page.events.back().offset + 1 : visible;
  return page;
}

uint64_t FenceStore::LogEnd(absl::string_view collection) {
  return engine_->fence_registry.FindOrAdd(collection).visible();
}

bool FenceStore::WaitForEvents(absl::string_view collection, uint64_t from,
                               absl::Time deadline) {
  return engine_->fence_registry.FindOrAdd(collection)
      .WaitUntilReadable(std::max(from, uint64_t{1}), deadline);
}

uint64_t FenceStore::LogTicks() {
  return engine_->fence_registry.clock().ticks();
}

bool FenceStore::WaitForLogTick(uint64_t seen, absl::Time deadline) {
  return engine_->fence_registry.clock().WaitPast(seen, deadline);
}

std::vector<std::pair<std::string, uint64_t>> FenceStore::LogEnds() {
  return engine_->fence_registry.LogEnds();
}

absl::StatusOr<uint64_t> FenceStore::TrimLogs(absl::Time now) {
  const int64_t max_age_ms =
      static_cast<int64_t>(std::min<uint64_t>(
          engine_->options.config.fence_log_max_age_s(), INT64_MAX / 1000)) *
      1000;
  const int64_t expired_before_ms = absl::ToUnixMillis(now) - max_age_ms;
  uint64_t removed = 0;
  for (const auto& [collection, visible] : engine_->fence_registry.LogEnds()) {
    CollectionFences* f = engine_->fence_registry.Find(collection);
    const uint64_t first = f->first_kept();
    if (first >= visible) continue;
    absl::StatusOr<uint64_t> keep =
        FirstToKeep(*engine_, collection, first, visible, expired_before_ms);
    if (!keep.ok()) return keep.status();
    if (*keep <= first) continue;
    WriteBatchBuilder batch(*engine_);
    batch.DeleteRange(ColumnFamily::kFences, FenceEventKey(collection, first),
                      FenceEventKey(collection, *keep));
    std::string kept;
    AppendBigEndian64(&kept, *keep);
    if (absl::Status s =
            batch.Put(ColumnFamily::kFences,
                      FencesPrefix(collection, kFenceLogKeptTag), kept);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = batch.Commit("trimming a fence event log"); !s.ok()) {
      return s;
    }
    f->SetFirstKept(*keep);
    removed += *keep - first;
  }
  return removed;
}

absl::StatusOr<std::optional<uint64_t>> FenceStore::Cursor(
    absl::string_view collection, absl::string_view consumer) {
  std::string key = FencesPrefix(collection, kFenceCursorTag);
  key.append(consumer.data(), consumer.size());
  std::string value;
  const rocksdb::Status s = engine_->db->Get(
      rocksdb::ReadOptions(), engine_->fences(), ToSlice(key), &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "reading a fence log cursor");
  if (value.size() != 8) return absl::DataLossError("corrupt fence cursor");
  return ReadBigEndian64(value);
}

absl::Status FenceStore::SetCursor(absl::string_view collection,
                                   absl::string_view consumer, uint64_t next) {
  std::string key = FencesPrefix(collection, kFenceCursorTag);
  key.append(consumer.data(), consumer.size());
  std::string value;
  AppendBigEndian64(&value, next);
  WriteBatchBuilder batch(*engine_);
  if (absl::Status s = batch.Put(ColumnFamily::kFences, key, value); !s.ok()) {
    return s;
  }
  return batch.Commit("saving a fence log cursor");
}

}  // namespace trackdb::storage
