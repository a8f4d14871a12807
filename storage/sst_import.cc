#include "storage/sst_import.h"

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
#include "rocksdb/sst_file_writer.h"
#include "storage/counter_merge.h"
#include "storage/engine.h"
#include "storage/keys.h"
#include "storage/point_codec.h"
#include "storage/rocks_util.h"

namespace trackdb::storage {
namespace {

// geo records in the sorter carry what to write.
constexpr char kGeoPut = 'P';
constexpr char kGeoDelete = 'D';

double SecondsSince(absl::Time start) {
  return absl::ToDoubleSeconds(absl::Now() - start);
}

// The same rules as the write path (write_path.cc), so that an import
// refuses what AddPoints refuses.
// The entity part (varint length and bytes) of a points key without its
// collection prefix: everything but the 8 time bytes.
absl::string_view EntityPart(absl::string_view points_suffix) {
  return points_suffix.substr(0, points_suffix.size() - 8);
}

// Writes one column family's sorted records into SST files cut at about
// `file_bytes`.
class SstSink {
 public:
  SstSink(const StoreOptions& store, size_t cf_index,
          rocksdb::ColumnFamilyHandle* handle, std::string dir,
          uint64_t file_bytes)
      : options_(store.db, store.column_families[cf_index].options),
        handle_(handle),
        name_(std::move(dir) + "/" + store.column_families[cf_index].name),
        file_bytes_(file_bytes != 0 ? file_bytes
                                    : options_.target_file_size_base) {}

  absl::Status Put(const rocksdb::Slice& key, const rocksdb::Slice& value) {
    if (absl::Status s = EnsureOpen(); !s.ok()) return s;
    return Check(writer_->Put(key, value), "adding to");
  }
  absl::Status Delete(const rocksdb::Slice& key) {
    if (absl::Status s = EnsureOpen(); !s.ok()) return s;
    return Check(writer_->Delete(key), "adding to");
  }
  // Ends the current file; the next Put starts another.
  absl::Status Cut() {
    if (!writer_) return absl::OkStatus();
    rocksdb::ExternalSstFileInfo info;
    absl::Status s = Check(writer_->Finish(&info), "finishing");
    writer_.reset();
    bytes_ += info.file_size;
    return s;
  }
  // Cuts when the current file has reached `factor` times its size.
  absl::Status MaybeCut(uint64_t factor = 1) {
    if (writer_ && writer_->FileSize() >= factor * file_bytes_) return Cut();
    return absl::OkStatus();
  }
  const std::vector<std::string>& files() const { return files_; }
  uint64_t bytes() const { return bytes_; }
  rocksdb::ColumnFamilyHandle* handle() const { return handle_; }

 private:
  absl::Status EnsureOpen() {
    if (writer_) return absl::OkStatus();
    // No page-cache eviction: the files are ingested and read back at once.
    writer_ = std::make_unique<rocksdb::SstFileWriter>(
        rocksdb::EnvOptions(), options_, handle_,
        /*invalidate_page_cache=*/false);
    files_.push_back(absl::StrCat(name_, "-", files_.size(), ".sst"));
    return Check(writer_->Open(files_.back()), "creating");
  }
  absl::Status Check(const rocksdb::Status& s, absl::string_view what) {
    return FromRocks(s, absl::StrCat(what, " SST file ", files_.back()));
  }

  rocksdb::Options options_;
  rocksdb::ColumnFamilyHandle* handle_;
  std::string name_;
  uint64_t file_bytes_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  std::vector<std::string> files_;
  uint64_t bytes_ = 0;
};

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
  auto report = [&progress](absl::string_view phase, uint64_t done,
                            uint64_t total) {
    if (progress) progress(phase, done, total);
  };
  const absl::Time sort_start = absl::Now();
  const StoreOptions& store_options = store_->options();
  // Column family indexes as StoreOptions orders them (storage/options.h).
  SstSink points(store_options, 1, store_->engine().points(), temp_dir_,
                 options_.sst_file_bytes);
  SstSink latest(store_options, 2, store_->engine().latest(), temp_dir_,
                 options_.sst_file_bytes);
  SstSink geo(store_options, 3, store_->engine().geo(), temp_dir_,
              options_.sst_file_bytes);
  // The next two sorters hold one record per entity.
  ExternalSorter newest(ExternalSortOptions{
      temp_dir_, options_.sort_memory_bytes / 2, std::string(kLatestCf)});
  ExternalSorter geo_sorter(ExternalSortOptions{
      temp_dir_, options_.sort_memory_bytes / 2, std::string(kGeoCf)});
  std::string key = collection_prefix_;

  // Step 2: history, and each entity's newest point.
  report("sorting", 0, 0);
  {
    auto stream = points_->Finish();
    if (!stream.ok()) return stream.status();
    stats_.spilled_runs = points_->spilled_runs();
    std::string entity_part;  // of the current entity
    std::string last_value;   // its newest point so far
    auto flush_entity = [&]() -> absl::Status {
      if (entity_part.empty()) return absl::OkStatus();
      ++stats_.entities;
      absl::string_view in = entity_part;
      uint32_t len = 0;
      ReadVarint32(&in, &len);
      return newest.Add(in, last_value);  // the latest key's suffix: entity
    };
    SortedStream& s = **stream;
    while (s.Next()) {
      const absl::string_view suffix = s.key();
      const absl::string_view entity = EntityPart(suffix);
      const bool new_entity = entity != entity_part;
      if (new_entity) {
        if (absl::Status f = flush_entity(); !f.ok()) return f;
        entity_part.assign(entity.data(), entity.size());
      }
      // Files are cut between entities, so that an entity's history is in
      // one file, unless it alone outgrows several.
      if (absl::Status c = points.MaybeCut(new_entity ? 1 : 4); !c.ok()) {
        return c;
      }
      key.resize(collection_prefix_.size());
      key.append(suffix.data(), suffix.size());
      if (absl::Status w = points.Put(key, ToSlice(s.value())); !w.ok()) {
        return w;
      }
      last_value.assign(s.value().data(), s.value().size());
      if (++stats_.points_written % 65536 == 0) {
        report("writing points", stats_.points_written, stats_.points_added);
      }
    }
    if (!s.status().ok()) return s.status();
    if (absl::Status f = flush_entity(); !f.ok()) return f;
    if (absl::Status c = points.Cut(); !c.ok()) return c;
    report("writing points", stats_.points_written, stats_.points_added);
  }
  points_.reset();  // frees the sort buffer and spill files

  // Step 3: latest and geo, joined with what the store holds.
  int64_t new_entities = 0;
  {
    auto stream = newest.Finish();
    if (!stream.ok()) return stream.status();
    LatestJoin stored(store_->engine().db.get(), store_->engine().latest(),
                      collection_prefix_);
    std::string geo_key, geo_value;
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
      const std::optional<PointPosition> now = DecodePosition(s.value());
      if (!old) ++new_entities;
      if (old && old->loc_time_ms > now->loc_time_ms) {
        ++stats_.latest_kept;  // stored is newer: history only
        continue;
      }
      ++stats_.latest_updated;
      if (absl::Status w = latest.Put(key, ToSlice(s.value())); !w.ok()) {
        return w;
      }
      const uint64_t cell = index::CellIdOf({now->lat, now->lon});
      geo_key = GeoKey(collection_, cell, entity);
      geo_value.assign(1, kGeoPut);
      geo_value.append(s.value().data(), s.value().size());
      if (absl::Status a = geo_sorter.Add(
              absl::string_view(geo_key).substr(collection_prefix_.size()),
              geo_value);
          !a.ok()) {
        return a;
      }
      if (old) {
        const uint64_t old_cell = index::CellIdOf({old->lat, old->lon});
        if (old_cell != cell) {
          ++stats_.geo_deleted;
          geo_key = GeoKey(collection_, old_cell, entity);
          geo_value.assign(1, kGeoDelete);
          if (absl::Status a = geo_sorter.Add(
                  absl::string_view(geo_key).substr(collection_prefix_.size()),
                  geo_value);
              !a.ok()) {
            return a;
          }
        }
      }
      if (++done % 65536 == 0) {
        report("writing latest", done, stats_.entities);
      }
      if (absl::Status c = latest.MaybeCut(); !c.ok()) return c;
    }
    if (!s.status().ok()) return s.status();
    if (absl::Status c = latest.Cut(); !c.ok()) return c;
    report("writing latest", stats_.entities, stats_.entities);
  }
  {
    auto stream = geo_sorter.Finish();
    if (!stream.ok()) return stream.status();
    uint64_t done = 0;
    SortedStream& s = **stream;
    while (s.Next()) {
      key.resize(collection_prefix_.size());
      key.append(s.key().data(), s.key().size());
      absl::string_view value = s.value();
      const bool put = value[0] == kGeoPut;
      value.remove_prefix(1);
      absl::Status w = put ? geo.Put(key, ToSlice(value)) : geo.Delete(key);
      if (!w.ok()) return w;
      if (absl::Status c = geo.MaybeCut(); !c.ok()) return c;
      if (++done % 65536 == 0) report("writing geo", done, 0);
    }
    if (!s.status().ok()) return s.status();
    if (absl::Status c = geo.Cut(); !c.ok()) return c;
  }
  // The collection's registry count (I4): nothing else writes the store
  // meanwhile, so the new total is exact, and it lands in the same atomic
  // ingestion as the entities it counts.
  SstSink registry(store_options, 0, store_->engine().db->DefaultColumnFamily(),
                   temp_dir_, 0);
  if (new_entities > 0) {
    absl::StatusOr<int64_t> prior = store_->CollectionSize(collection_);
    if (!prior.ok()) return prior.status();
    if (absl::Status w = registry.Put(RegistryKey(collection_),
                                      EncodeCounter(*prior + new_entities));
        !w.ok()) {
      return w;
    }
    if (absl::Status c = registry.Cut(); !c.ok()) return c;
  }
  stats_.sort_seconds = SecondsSince(sort_start);

  // Step 4: all four column families in one atomic ingestion.
  std::vector<rocksdb::IngestExternalFileArg> args;
  for (const SstSink* sink : {&points, &latest, &geo, &registry}) {
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
  if (args.empty()) return stats_;
  report("ingesting", 0, 0);
  const absl::Time ingest_start = absl::Now();
  if (absl::Status s = FromRocks(store_->engine().db->IngestExternalFiles(args),
                                 "ingesting SST files");
      !s.ok()) {
    return s;
  }
  stats_.ingest_seconds = SecondsSince(ingest_start);

  // Step 5: compact the collection's range of each column family.
  report("compacting", 0, 0);
  const absl::Time compact_start = absl::Now();
  const std::string end = PrefixEnd(collection_prefix_);
  const rocksdb::Slice begin_slice(collection_prefix_), end_slice(end);
  rocksdb::CompactRangeOptions compact;
  compact.exclusive_manual_compaction = false;
  for (rocksdb::ColumnFamilyHandle* cf :
       {store_->engine().points(), store_->engine().latest(),
        store_->engine().geo()}) {
    if (absl::Status s = FromRocks(
            store_->engine().db->CompactRange(
                compact, cf, &begin_slice, end.empty() ? nullptr : &end_slice),
            "compacting after the import");
        !s.ok()) {
      return s;
    }
  }
  stats_.compact_seconds = SecondsSince(compact_start);
  return stats_;
}

}  // namespace trackdb::storage
