#include "storage/store_test_util.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "index/covering.h"
#include "storage/engine/engine.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/counter_merge.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/points/history_cells.h"
#include "storage/strings/kv_expiry.h"
#include "storage/strings/string_cache.h"

namespace trackdb::storage::testing {

std::string NewDataDir() {
  static std::atomic<int> counter{0};
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir =
      absl::StrCat(tmp ? tmp : "/tmp", "/store-", getpid(), "-", counter++);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::unique_ptr<TrackStore> OpenStore(const std::string& dir,
                                      v1::Durability durability) {
  v1::StorageConfig config;
  config.set_durability(durability);
  config.set_write_buffer_size_mb(1);
  config.set_db_write_buffer_size_mb(16);
  config.set_block_cache_size_mb(8);
  auto store = TrackStore::Open(dir, config);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

RawEntries ReadRaw(TrackStore& store, ColumnFamily cf,
                   absl::string_view prefix) {
  RawEntries out;
  std::unique_ptr<rocksdb::Iterator> it(store.engine().db->NewIterator(
      rocksdb::ReadOptions(), store.engine().cf(cf)));
  for (it->Seek(rocksdb::Slice(prefix.data(), prefix.size()));
       it->Valid() && SliceView(it->key()).substr(0, prefix.size()) == prefix;
       it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return out;
}

absl::Status FlushAll(TrackStore& store) {
  return FromRocks(
      store.engine().db->Flush(rocksdb::FlushOptions(), store.engine().handles),
      "flushing");
}

absl::Status FlushColumnFamily(TrackStore& store, ColumnFamily cf) {
  rocksdb::FlushOptions flush;
  flush.allow_write_stall = true;
  return FromRocks(store.engine().db->Flush(flush, store.engine().cf(cf)),
                   "flushing");
}

absl::Status FlushAndCompact(TrackStore& store, ColumnFamily cf) {
  rocksdb::ColumnFamilyHandle* handle = store.engine().cf(cf);
  if (absl::Status s =
          FromRocks(store.engine().db->Flush(rocksdb::FlushOptions(), handle),
                    "flushing");
      !s.ok()) {
    return s;
  }
  rocksdb::CompactRangeOptions options;
  options.bottommost_level_compaction =
      rocksdb::BottommostLevelCompaction::kForce;
  return FromRocks(
      store.engine().db->CompactRange(options, handle, nullptr, nullptr),
      "compacting");
}

absl::StatusOr<int> FilesAtLevel0(TrackStore& store, ColumnFamily cf) {
  std::string files;
  if (!store.engine().db->GetProperty(store.engine().cf(cf),
                                      "rocksdb.num-files-at-level0", &files)) {
    return absl::InternalError("no rocksdb.num-files-at-level0 property");
  }
  int n = 0;
  if (!absl::SimpleAtoi(files, &n)) {
    return absl::InternalError(absl::StrCat("bad L0 file count: ", files));
  }
  return n;
}

model::TrackPoint Point(std::string entity, int64_t t, double lat, double lon) {
  model::TrackPoint p;
  p.entity = std::move(entity);
  p.loc_time_ms = t;
  p.lat = lat;
  p.lon = lon;
  return p;
}

namespace {

// Entity -> its latest value.
std::map<std::string, std::string> ReadLatest(TrackStore& store,
                                              const rocksdb::ReadOptions& read,
                                              const std::string& prefix) {
  std::map<std::string, std::string> latest;
  std::unique_ptr<rocksdb::Iterator> it(
      store.engine().db->NewIterator(read, store.engine().latest()));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix);
       it->Next()) {
    latest[it->key().ToString().substr(prefix.size())] = it->value().ToString();
  }
  return latest;
}

// The newest raw fix of the entity (its time and value) and the newest
// chunked one, as stored.
struct NewestFixes {
  std::optional<std::pair<int64_t, std::string>> raw;
  std::optional<model::TrackPoint> chunked;
};
NewestFixes ReadNewest(TrackStore& store, const rocksdb::ReadOptions& read,
                       const std::string& entity_prefix) {
  NewestFixes out;
  const std::string past = entity_prefix + std::string(9, '\xff');
  std::unique_ptr<rocksdb::Iterator> h(
      store.engine().db->NewIterator(read, store.engine().points()));
  h->SeekForPrev(past);
  if (h->Valid() && h->key().starts_with(entity_prefix)) {
    out.raw.emplace(PointKeyTime(SliceView(h->key())), h->value().ToString());
  }
  std::unique_ptr<rocksdb::Iterator> c(
      store.engine().db->NewIterator(read, store.engine().chunks()));
  c->SeekForPrev(past);
  std::vector<model::TrackPoint> fixes;
  if (c->Valid() && c->key().starts_with(entity_prefix) &&
      DecodeChunk(SliceView(c->value()), &fixes).ok()) {
    out.chunked = fixes.back();
  }
  return out;
}

// I1: latest is the history's newest point, byte for byte (a raw fix
// wins over a chunked one of the same time).
void CheckLatestIsNewest(TrackStore& store, const rocksdb::ReadOptions& read,
                         const std::string& collection,
                         const std::string& entity, const std::string& value,
                         const PointPosition& pos,
                         std::vector<std::string>& bad) {
  NewestFixes newest =
      ReadNewest(store, read, EntityPointsPrefix(collection, entity));
  if (newest.chunked &&
      (!newest.raw || newest.raw->first < newest.chunked->loc_time_ms)) {
    newest.raw.emplace(newest.chunked->loc_time_ms,
                       EncodePointValue(*newest.chunked));
  }
  if (!newest.raw) {
    // Retention may have dropped the history of a latest point it keeps.
    if (pos.loc_time_ms >=
        store.retention().HistoryCutoff(collection, SystemNowMs())) {
      bad.push_back(absl::StrCat(entity, ": latest without history"));
    }
    return;
  }
  if (newest.raw->first != pos.loc_time_ms || newest.raw->second != value) {
    bad.push_back(absl::StrCat(
        entity, ": latest (t=", pos.loc_time_ms,
        ") is not the newest history point (t=", newest.raw->first, ")"));
  }
}

// The chunks of `collection`: each entity's in time order, none
// overlapping another, each keyed by its last fix; every fix's history
// cell into `needed`, every entity into `entities`.
void CheckChunks(TrackStore& store, const rocksdb::ReadOptions& read,
                 const std::string& prefix,
                 std::set<std::tuple<int64_t, uint64_t, std::string>>* needed,
                 std::set<std::string>* entities,
                 std::vector<std::string>& bad) {
  std::unique_ptr<rocksdb::Iterator> it(
      store.engine().db->NewIterator(read, store.engine().chunks()));
  std::string last_entity;
  int64_t last_ms = INT64_MIN;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix);
       it->Next()) {
    absl::string_view rest = SliceView(it->key()).substr(prefix.size());
    uint32_t len = 0;
    ReadVarint32(&rest, &len);
    const std::string entity(rest.substr(0, len));
    std::vector<model::TrackPoint> fixes;
    if (!DecodeChunk(SliceView(it->value()), &fixes).ok()) {
      bad.push_back(absl::StrCat(entity, ": a chunk does not decode"));
      continue;
    }
    if (entity != last_entity) last_ms = INT64_MIN;
    if (fixes.front().loc_time_ms <= last_ms) {
      bad.push_back(absl::StrCat(
          entity, ": chunks overlap at t=", fixes.front().loc_time_ms));
    }
    if (fixes.back().loc_time_ms != PointKeyTime(SliceView(it->key()))) {
      bad.push_back(
          absl::StrCat(entity, ": a chunk's key is not its last fix"));
    }
    last_entity = entity;
    last_ms = fixes.back().loc_time_ms;
    entities->insert(entity);
    for (const model::TrackPoint& p : fixes) {
      const HistoryCell cell = HistoryCellOf(p.loc_time_ms, p.lat, p.lon);
      needed->insert({cell.bucket, cell.cell, entity});
    }
  }
}

// Every entity with history has a latest point.
void CheckHistoryHasLatest(TrackStore& store, const rocksdb::ReadOptions& read,
                           const std::string& collection,
                           const std::string& prefix,
                           const std::map<std::string, std::string>& latest,
                           std::vector<std::string>& bad) {
  std::unique_ptr<rocksdb::Iterator> it(
      store.engine().db->NewIterator(read, store.engine().points()));
  // I7: each fix's history cell (storage/points/history_cells.h) is stored.
  using Cell = std::tuple<int64_t, uint64_t, std::string>;
  std::set<Cell> needed, stored;
  std::string last_entity;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix);
       it->Next()) {
    absl::string_view rest = SliceView(it->key()).substr(prefix.size());
    if (absl::StartsWith(rest, kHistoryCellsTag)) {
      auto parts = ParseHistoryCellSuffix(rest.substr(2));
      if (!parts) {
        bad.push_back("a malformed history cell key");
        continue;
      }
      stored.insert({parts->bucket, parts->cell, std::string(parts->entity)});
      continue;
    }
    uint32_t len = 0;
    ReadVarint32(&rest, &len);
    const std::string entity(rest.substr(0, len));
    if (entity != last_entity && latest.count(entity) == 0) {
      bad.push_back(absl::StrCat(entity, ": history without latest"));
    }
    last_entity = entity;
    const std::optional<PointPosition> at =
        DecodePosition(SliceView(it->value()));
    if (!at) continue;
    const HistoryCell cell = HistoryCellOf(at->loc_time_ms, at->lat, at->lon);
    needed.insert({cell.bucket, cell.cell, entity});
  }
  std::set<std::string> chunked;
  CheckChunks(store, read, prefix, &needed, &chunked, bad);
  for (const std::string& entity : chunked) {
    if (latest.count(entity) == 0) {
      bad.push_back(absl::StrCat(entity, ": chunked history without latest"));
    }
  }
  for (const Cell& c : needed) {
    if (stored.count(c) == 0) {
      bad.push_back(absl::StrCat(std::get<2>(c),
                                 ": no history cell for bucket ",
                                 std::get<0>(c), " cell ", std::get<1>(c)));
    }
  }
}

// I4: the registry counts the entities with a latest point.
void CheckRegistryCount(TrackStore& store, const rocksdb::ReadOptions& read,
                        const std::string& collection, size_t latest_points,
                        std::vector<std::string>& bad) {
  rocksdb::DB* db = store.engine().db.get();
  std::string count_bytes;
  rocksdb::Status s = db->Get(read, db->DefaultColumnFamily(),
                              RegistryKey(collection), &count_bytes);
  const int64_t registered =
      s.ok() ? DecodeCounter(count_bytes).value_or(-1) : 0;
  if (registered != static_cast<int64_t>(latest_points)) {
    bad.push_back(absl::StrCat("registry counts ", registered, " entities; ",
                               latest_points, " have a latest point"));
  }
}

}  // namespace

// I6: the latest index holds exactly the entities of `latest`, at their
// positions.
void CheckLatestIndex(TrackStore& store, const std::string& collection,
                      const std::map<std::string, std::string>& latest,
                      std::vector<std::string>& bad) {
  const LatestIndex& index = store.engine().latest_index;
  if (index.Size(collection) != static_cast<int64_t>(latest.size())) {
    bad.push_back(absl::StrCat("latest index holds ", index.Size(collection),
                               " entities, latest ", latest.size()));
  }
  for (const auto& [entity, value] : latest) {
    const std::optional<PointPosition> stored = DecodePosition(value);
    const std::optional<PointPosition> indexed =
        index.Find(collection, {entity})[0];
    if (!indexed || !stored || indexed->loc_time_ms != stored->loc_time_ms ||
        indexed->lat != stored->lat || indexed->lon != stored->lon) {
      bad.push_back(absl::StrCat(entity, ": latest index differs from latest"));
    }
  }
}

std::vector<std::string> InvariantViolations(TrackStore& store,
                                             const std::string& collection) {
  std::vector<std::string> bad;
  const std::string prefix = CollectionPrefix(collection);
  rocksdb::DB* db = store.engine().db.get();
  const rocksdb::Snapshot* snapshot = db->GetSnapshot();
  rocksdb::ReadOptions read;
  read.snapshot = snapshot;

  const std::map<std::string, std::string> latest =
      ReadLatest(store, read, prefix);
  for (const auto& [entity, value] : latest) {
    const std::optional<PointPosition> pos = DecodePosition(value);
    if (!pos) {
      bad.push_back(absl::StrCat(entity, ": latest value does not decode"));
      continue;
    }
    CheckLatestIsNewest(store, read, collection, entity, value, *pos, bad);
  }
  CheckHistoryHasLatest(store, read, collection, prefix, latest, bad);
  CheckRegistryCount(store, read, collection, latest.size(), bad);
  CheckLatestIndex(store, collection, latest, bad);
  db->ReleaseSnapshot(snapshot);
  return bad;
}

std::vector<std::string> StringCacheViolations(TrackStore& store) {
  std::vector<std::string> bad;
  store.string_cache().ForEach(
      [&](absl::string_view name, const std::optional<StringValue>& cached) {
        std::string raw;
        rocksdb::Status s = store.engine().db->Get(
            rocksdb::ReadOptions(), store.engine().kv(), ToSlice(name), &raw);
        if (s.IsNotFound()) {
          if (cached) {
            bad.push_back(absl::StrCat("cached '", name, "' is not in kv"));
          }
          return;
        }
        if (!cached) {
          bad.push_back(absl::StrCat("'", name, "' cached as absent is in kv"));
          return;
        }
        std::optional<StringValue> stored = DecodeStringValue(raw);
        if (!s.ok() || !stored || !(*stored == *cached)) {
          bad.push_back(absl::StrCat("cached '", name, "' = '", cached->value,
                                     "' but kv holds '",
                                     stored ? stored->value : raw, "'"));
        }
      });
  return bad;
}

std::vector<std::string> TypedCacheViolations(TrackStore& store) {
  std::vector<std::string> bad;
  store.engine().typed_cache->ForEach(
      [&](absl::string_view key, const std::optional<std::string>& cached) {
        std::string raw;
        rocksdb::Status s = store.engine().db->Get(
            rocksdb::ReadOptions(), store.engine().types(), ToSlice(key), &raw);
        std::optional<std::string> stored;
        if (s.ok()) stored = raw;
        if ((!s.ok() && !s.IsNotFound()) || stored != cached) {
          bad.push_back(absl::StrCat(
              "cached '", absl::CHexEscape(key),
              "' = ", cached ? absl::CHexEscape(*cached) : "(absent)",
              " but types holds ",
              stored ? absl::CHexEscape(*stored) : s.ToString()));
        }
      });
  return bad;
}

}  // namespace trackdb::storage::testing
