#include "storage/import/sst_import.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "index/covering.h"
#include "index/latlng.h"
#include "model/validate.h"
#include "storage/engine/engine.h"
#include "storage/format/counter_merge.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/import/history_sink.h"
#include "storage/import/sst_sink.h"
#include "storage/points/history_cells.h"
#include "storage/write_funnel.h"

namespace trackdb::storage {
namespace {

double SecondsSince(absl::Time start) {
  return absl::ToDoubleSeconds(absl::Now() - start);
}

// The entity part (varint length and bytes) of a points key without its
// collection prefix: everything but the 8 time bytes.
absl::string_view EntityPart(absl::string_view points_suffix) {
  return points_suffix.substr(0, points_suffix.size() - 8);
}

// Finds stored latest values of one collection for entities asked in key
// order: steps forward a few times, seeks when the next key is far.
class LatestJoin {
 public:
  LatestJoin(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* latest,
             const std::string& collection_prefix)
      : upper_(PrefixEnd(collection_prefix)), upper_slice_(upper_) {
    rocksdb::ReadOptions read;
    read.fill_cache = false;
    if (!upper_.empty()) read.iterate_upper_bound = &upper_slice_;
    it_.reset(db->NewIterator(read, latest));
    it_->Seek(collection_prefix);
  }

  // The stored value under `key`, or nullopt. Keys must increase.
  absl::StatusOr<std::optional<rocksdb::Slice>> Find(
      const rocksdb::Slice& key) {
    for (int steps = 0; it_->Valid() && it_->key().compare(key) < 0; ++steps) {
      if (steps == 16) {
        it_->Seek(key);
        break;
      }
      it_->Next();
    }
    if (!it_->status().ok()) return FromRocks(it_->status(), "reading latest");
    if (it_->Valid() && it_->key() == key) return it_->value();
    return std::nullopt;
  }

 private:
  std::string upper_;
  rocksdb::Slice upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

// The write funnel's changes of step 3 (storage/write_funnel.h): `latest`
// arrives in key order and goes straight to its SST files.
class ImportSink : public ChangeSink {
 public:
  explicit ImportSink(SstSink& latest) : latest_(latest) {}

  absl::Status Put(ColumnFamily cf, absl::string_view key,
                   absl::string_view value) override {
    if (cf != ColumnFamily::kLatest) return Unexpected();
    return latest_.Put(ToSlice(key), ToSlice(value));
  }
  absl::Status Delete(ColumnFamily cf, absl::string_view key) override {
    return Unexpected();
  }

 private:
  static absl::Status Unexpected() {
    return absl::InternalError("the import writes only latest here");
  }
  SstSink& latest_;
};

}  // namespace

SstImport::SstImport(TrackStore* store, std::string collection,
                     std::string temp_dir, SstImportOptions options)
    : store_(store),
      collection_(std::move(collection)),
      collection_prefix_(CollectionPrefix(collection_)),
      temp_dir_(std::move(temp_dir)),
      options_(std::move(options)) {
  points_ = std::make_unique<ExternalSorter>(ExternalSortOptions{
      temp_dir_, options_.sort_memory_bytes, std::string(kPointsCf)});
}

SstImport::~SstImport() {
  points_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(temp_dir_, ignored);
}

absl::StatusOr<std::unique_ptr<SstImport>> SstImport::Start(
    TrackStore* store, absl::string_view collection, SstImportOptions options) {
  static std::atomic<int> counter{0};
  const std::string base = options.temp_dir.empty()
                               ? store->engine().db->GetName()
                               : options.temp_dir;
  const std::string mine = absl::StrCat("import-tmp-", getpid(), "-");
  std::error_code error;
  if (options.temp_dir.empty()) {
    // Left by an import that died: this process holds the DB's lock, so no
    // other process's import can be running in it.
    for (const auto& entry : std::filesystem::directory_iterator(base, error)) {
      const std::string name = entry.path().filename().string();
      if (absl::StartsWith(name, "import-tmp-") &&
          !absl::StartsWith(name, mine)) {
        std::filesystem::remove_all(entry.path(), error);
      }
    }
    error.clear();
  }
  const std::string dir = absl::StrCat(base, "/", mine, counter++);
  std::filesystem::remove_all(dir, error);
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create import temp dir ", dir, ": ", error.message()));
  }
  return std::unique_ptr<SstImport>(
      new SstImport(store, std::string(collection), dir, std::move(options)));
}

absl::Status SstImport::Add(const model::TrackPoint& point) {
  if (finished_) return absl::FailedPreconditionError("SstImport is finished");
  if (absl::Status s = model::ValidateStoredPoint(point, "point"); !s.ok())
    return s;
  key_ = PointKey(collection_, point.entity, point.loc_time_ms);
  value_ = EncodePointValue(point);
  absl::Status s = points_->Add(
      absl::string_view(key_).substr(collection_prefix_.size()), value_);
  if (s.ok()) ++stats_.points_added;
  return s;
}

absl::StatusOr<SstImportStats> SstImport::Finish(const Progress& progress) {
  if (finished_) return absl::FailedPreconditionError("SstImport is finished");
  finished_ = true;
  progress_ = progress;
  const absl::Time sort_start = absl::Now();
  const Engine& engine = store_->engine();
  SstSink points(engine, ColumnFamily::kPoints, temp_dir_,
                 options_.sst_file_bytes);
  SstSink chunks(engine, ColumnFamily::kChunks, temp_dir_,
                 options_.sst_file_bytes);
  SstSink latest(engine, ColumnFamily::kLatest, temp_dir_,
                 options_.sst_file_bytes);
  SstSink registry(engine, ColumnFamily::kDefault, temp_dir_, 0);
  // One record per entity.
  ExternalSorter newest(ExternalSortOptions{
      temp_dir_, options_.sort_memory_bytes, std::string(kLatestCf)});
  int64_t new_entities = 0;
  absl::Status s = WriteHistory(points, chunks, newest);
  points_.reset();  // frees the sort buffer and spill files
  if (s.ok()) s = WriteLatest(newest, latest, &new_entities);
  if (s.ok()) s = WriteRegistry(registry, new_entities);
  if (!s.ok()) return s;
  stats_.sort_seconds = SecondsSince(sort_start);
  bool ingested = false;
  if (s = Ingest({&points, &chunks, &latest, &registry}, &ingested);
      !s.ok() || !ingested) {
    return s.ok() ? absl::StatusOr<SstImportStats>(stats_) : s;
  }
  if (s = Compact(); !s.ok()) return s;
  if (stats_.raw_entities > 0) {
    if (s = Chunk(); !s.ok()) return s;
  }
  return stats_;
}

void SstImport::Report(absl::string_view phase, uint64_t done,
                       uint64_t total) const {
  if (progress_) progress_(phase, done, total);
}

// Step 2: history, and each entity's newest point into `newest`.
absl::Status SstImport::WriteHistory(SstSink& points, SstSink& chunks,
                                     ExternalSorter& newest) {
  Report("sorting", 0, 0);
  auto stream = points_->Finish();
  if (!stream.ok()) return stream.status();
  stats_.spilled_runs = points_->spilled_runs();
  std::string key = collection_prefix_;
  std::string entity_part;  // of the current entity
  std::string last_value;   // its newest point so far
  HistorySink history(store_->engine(), collection_, &points, &chunks,
                      FoldOptions());
  auto flush_entity = [&]() -> absl::Status {
    if (entity_part.empty()) return absl::OkStatus();
    if (absl::Status s = history.EndEntity(); !s.ok()) return s;
    ++stats_.entities;
    absl::string_view in = entity_part;
    uint32_t len = 0;
    ReadVarint32(&in, &len);
    return newest.Add(in, last_value);  // the latest key's suffix: entity
  };
  ExternalSorter cells(ExternalSortOptions{
      temp_dir_, options_.sort_memory_bytes, "history_cells"});
  std::optional<HistoryCell> last_cell;  // of the current entity
  SortedStream& s = **stream;
  while (s.Next()) {
    const absl::string_view suffix = s.key();
    const absl::string_view entity = EntityPart(suffix);
    const bool new_entity = entity != entity_part;
    if (new_entity) {
      if (absl::Status f = flush_entity(); !f.ok()) return f;
      entity_part.assign(entity.data(), entity.size());
      last_cell.reset();
      if (absl::Status h = history.StartEntity(entity); !h.ok()) return h;
    }
    if (absl::Status c = AddCell(cells, entity, s.value(), &last_cell);
        !c.ok()) {
      return c;
    }
    key.resize(collection_prefix_.size());
    key.append(suffix.data(), suffix.size());
    if (absl::Status w = history.Add(key, s.value()); !w.ok()) return w;
    last_value.assign(s.value().data(), s.value().size());
    if (++stats_.points_written % 65536 == 0) {
      Report("writing points", stats_.points_written, stats_.points_added);
    }
  }
  if (!s.status().ok()) return s.status();
  if (absl::Status f = flush_entity(); !f.ok()) return f;
  Report("writing points", stats_.points_written, stats_.points_added);
  stats_.chunked_entities = history.chunked_entities();
  stats_.raw_entities = history.raw_entities();
  stats_.chunks = history.chunks();
  if (absl::Status c = chunks.Cut(); !c.ok()) return c;
  if (absl::Status c = WriteCells(cells, points); !c.ok()) return c;
  return points.Cut();
}

// I7 (storage/points/history_cells.h): the cell key of each change of cell
// along an entity's history, which comes sorted by time. `entity` is the
// entity's part of a points key (varint32 length, name).
absl::Status SstImport::AddCell(ExternalSorter& cells, absl::string_view entity,
                                absl::string_view value,
                                std::optional<HistoryCell>* last) {
  const std::optional<PointPosition> at = DecodePosition(value);
  if (!at) return absl::DataLossError("corrupt point value in the import");
  const HistoryCell cell = HistoryCellOf(at->loc_time_ms, at->lat, at->lon);
  if (*last == cell) return absl::OkStatus();
  *last = cell;
  uint32_t length = 0;
  ReadVarint32(&entity, &length);
  return cells.Add(HistoryCellKeySuffix(cell.bucket, cell.cell, entity), "");
}

// The cell keys sort after every entity's history, so they end the
// points files; an entity that comes back to a cell in one bucket gave its
// key twice.
absl::Status SstImport::WriteCells(ExternalSorter& cells, SstSink& points) {
  auto stream = cells.Finish();
  if (!stream.ok()) return stream.status();
  std::string key, previous;
  SortedStream& s = **stream;
  while (s.Next()) {
    if (!previous.empty() && s.key() == previous) continue;
    previous.assign(s.key().data(), s.key().size());
    if (absl::Status c = points.MaybeCut(4); !c.ok()) return c;
    key.assign(collection_prefix_);
    key.append(previous);
    if (absl::Status w = points.Put(key, ""); !w.ok()) return w;
  }
  return s.status();
}

// Step 3: each entity's newest imported point against its stored latest,
// through the write funnel's move rule.
absl::Status SstImport::WriteLatest(ExternalSorter& newest, SstSink& latest,
                                    int64_t* new_entities) {
  auto stream = newest.Finish();
  if (!stream.ok()) return stream.status();
  LatestJoin stored(store_->engine().db.get(), store_->engine().latest(),
                    collection_prefix_);
  ImportSink sink(latest);
  std::string key = collection_prefix_;
  uint64_t done = 0;
  SortedStream& s = **stream;
  while (s.Next()) {
    const absl::string_view entity = s.key();
    key.resize(collection_prefix_.size());
    key.append(entity.data(), entity.size());
    auto found = stored.Find(key);
    if (!found.ok()) return found.status();
    std::optional<PointPosition> old;
    if (found->has_value()) {
      old = DecodePosition(SliceView(**found));
      if (!old) {
        return absl::DataLossError(
            absl::StrCat("corrupt latest value for entity '", entity, "'"));
      }
    }
    const LatestMove move = PlanLatestMove(old, *DecodePosition(s.value()));
    if (!move.replaces) {
      ++stats_.latest_kept;  // stored is newer: history only
      continue;
    }
    ++stats_.latest_updated;
    if (move.new_entity) ++*new_entities;
    if (absl::Status w =
            WriteLatestMove(sink, collection_, entity, move, s.value());
        !w.ok()) {
      return w;
    }
    if (++done % 65536 == 0) Report("writing latest", done, stats_.entities);
    if (absl::Status c = latest.MaybeCut(); !c.ok()) return c;
  }
  if (!s.status().ok()) return s.status();
  Report("writing latest", stats_.entities, stats_.entities);
  return latest.Cut();
}

// The collection's registry count (I4): nothing else writes the store
// meanwhile, so the new total is exact, and it lands in the same atomic
// ingestion as the entities it counts.
absl::Status SstImport::WriteRegistry(SstSink& registry, int64_t new_entities) {
  if (new_entities == 0) return absl::OkStatus();
  absl::StatusOr<int64_t> prior = store_->CollectionSize(collection_);
  if (!prior.ok()) return prior.status();
  if (absl::Status w = registry.Put(RegistryKey(collection_),
                                    EncodeCounter(*prior + new_entities));
      !w.ok()) {
    return w;
  }
  return registry.Cut();
}

// Step 4: every column family's files in one atomic ingestion.
absl::Status SstImport::Ingest(std::initializer_list<const SstSink*> sinks,
                               bool* ingested) {
  std::vector<rocksdb::IngestExternalFileArg> args;
  for (const SstSink* sink : sinks) {
    stats_.sst_files += static_cast<int>(sink->files().size());
    stats_.sst_bytes += sink->bytes();
    if (sink->files().empty()) continue;
    rocksdb::IngestExternalFileArg arg;
    arg.column_family = sink->handle();
    arg.external_files = sink->files();
    arg.options.move_files = true;  // hard links when on the same file system
    arg.options.write_global_seqno = false;
    args.push_back(std::move(arg));
  }
  *ingested = !args.empty();
  if (args.empty()) return absl::OkStatus();
  Report("ingesting", 0, 0);
  const absl::Time ingest_start = absl::Now();
  if (absl::Status s = FromRocks(store_->engine().db->IngestExternalFiles(args),
                                 "ingesting SST files");
      !s.ok()) {
    return s;
  }
  // The ingested `latest` entries bypassed the write funnel (I6).
  if (absl::Status s = LoadLatestIndex(store_->engine(), collection_);
      !s.ok()) {
    return s;
  }
  stats_.ingest_seconds = SecondsSince(ingest_start);
  return absl::OkStatus();
}

// Step 5: compact the collection's range of each column family.
absl::Status SstImport::Compact() {
  Report("compacting", 0, 0);
  const absl::Time compact_start = absl::Now();
  const std::string end = PrefixEnd(collection_prefix_);
  const rocksdb::Slice begin_slice(collection_prefix_), end_slice(end);
  rocksdb::CompactRangeOptions compact;
  compact.exclusive_manual_compaction = false;
  const Engine& engine = store_->engine();
  for (rocksdb::ColumnFamilyHandle* cf :
       {engine.points(), engine.chunks(), engine.latest()}) {
    if (absl::Status s = FromRocks(
            engine.db->CompactRange(compact, cf, &begin_slice,
                                    end.empty() ? nullptr : &end_slice),
            "compacting after the import");
        !s.ok()) {
      return s;
    }
  }
  stats_.compact_seconds = SecondsSince(compact_start);
  return absl::OkStatus();
}

// Step 6: the imported history into chunks (storage/history_chunker.h),
// then compacted again, so that the raw keys' tombstones leave with them.
absl::Status SstImport::Chunk() {
  Report("chunking", 0, 0);
  const absl::Time start = absl::Now();
  FoldOptions fold;
  fold.min_fixes = 1;
  absl::StatusOr<FoldCounts> folded =
      store_->chunker().FoldCollection(collection_, fold);
  if (!folded.ok()) return folded.status();
  const double compact_seconds = stats_.compact_seconds;  // step 5's
  if (absl::Status s = Compact(); !s.ok()) return s;
  stats_.compact_seconds = compact_seconds;
  stats_.chunk_seconds = SecondsSince(start);
  return absl::OkStatus();
}

}  // namespace trackdb::storage
