#include "storage/backup/backups.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rocksdb/env.h"
#include "rocksdb/utilities/backup_engine.h"
#include "storage/engine/engine.h"
#include "storage/format/rocks_util.h"
#include "storage/replication/replication.h"

namespace trackdb::storage {
namespace {

// The data dir's files outside RocksDB that a backup keeps.
constexpr const char* kKeptFiles[] = {"cluster_nodes.conf"};
constexpr char kMetadataHeader[] = "trackdb-backup 1";

// The metadata: a header line, "sequence N", then per kept file
// "file NAME LENGTH" and its bytes.
struct Metadata {
  uint64_t sequence = 0;
  std::vector<std::pair<std::string, std::string>> files;
};

std::string EncodeMetadata(const Metadata& m) {
  std::string out =
      absl::StrCat(kMetadataHeader, "\nsequence ", m.sequence, "\n");
  for (const auto& [name, bytes] : m.files) {
    absl::StrAppend(&out, "file ", name, " ", bytes.size(), "\n", bytes);
  }
  return out;
}

std::optional<Metadata> DecodeMetadata(absl::string_view in) {
  Metadata m;
  const auto line = [&in](std::string* out) {
    const size_t end = in.find('\n');
    if (end == absl::string_view::npos) return false;
    *out = std::string(in.substr(0, end));
    in.remove_prefix(end + 1);
    return true;
  };
  std::string header, sequence;
  if (!line(&header) || header != kMetadataHeader || !line(&sequence) ||
      !absl::StartsWith(sequence, "sequence ") ||
      !absl::SimpleAtoi(absl::string_view(sequence).substr(9), &m.sequence)) {
    return std::nullopt;
  }
  std::string file;
  while (!in.empty()) {
    std::vector<std::string> words;
    size_t len = 0;
    if (!line(&file) || (words = absl::StrSplit(file, ' ')).size() != 3 ||
        words[0] != "file" || !absl::SimpleAtoi(words[2], &len) ||
        len > in.size()) {
      return std::nullopt;
    }
    // Only the names a backup keeps: a hostile one could name a path out
    // of the target, or one of RocksDB's own files.
    if (std::find(std::begin(kKeptFiles), std::end(kKeptFiles), words[1]) ==
        std::end(kKeptFiles)) {
      return std::nullopt;
    }
    m.files.emplace_back(words[1], std::string(in.substr(0, len)));
    in.remove_prefix(len);
  }
  return m;
}

BackupInfo FromRocksInfo(const rocksdb::BackupInfo& r) {
  BackupInfo info{r.backup_id, r.timestamp, r.size, r.number_files, 0};
  if (std::optional<Metadata> m = DecodeMetadata(r.app_metadata)) {
    info.sequence = m->sequence;
  }
  return info;
}

// Every backup the engine holds, oldest first.
std::vector<BackupInfo> InfosOf(const rocksdb::BackupEngineReadOnlyBase& e) {
  std::vector<rocksdb::BackupInfo> infos;
  e.GetBackupInfo(&infos);
  std::vector<BackupInfo> out;
  for (const rocksdb::BackupInfo& info : infos) {
    out.push_back(FromRocksInfo(info));
  }
  return out;
}

absl::Status FromRocksIo(const rocksdb::IOStatus& s, const std::string& what) {
  return FromRocks(rocksdb::Status(s), what);
}

// The kept files that exist in `data_dir`.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ReadKept(
    const std::string& data_dir) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const char* name : kKeptFiles) {
    const std::string path = absl::StrCat(data_dir, "/", name);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    if (!in.is_open() || in.bad()) {
      return absl::InternalError(absl::StrCat("reading ", path));
    }
    files.emplace_back(name, std::move(bytes));
  }
  return files;
}

absl::Status WriteKept(
    const std::string& dir,
    const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [name, bytes] : files) {
    const std::string path = absl::StrCat(dir, "/", name);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    out.close();
    if (!out) return absl::InternalError(absl::StrCat("writing ", path));
  }
  return absl::OkStatus();
}

rocksdb::BackupEngineOptions EngineOptions(const std::string& backup_dir) {
  rocksdb::BackupEngineOptions options(backup_dir);
  options.sync = true;  // a backup that returned survives a power loss
  return options;
}

absl::Status RequireEmptyDir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return absl::OkStatus();
  if (!std::filesystem::is_directory(dir, ec) ||
      !std::filesystem::is_empty(dir, ec)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "restore target ", dir, " is not an empty directory: pick a new one"));
  }
  return absl::OkStatus();
}

}  // namespace

Backups::Backups(std::unique_ptr<rocksdb::BackupEngine> engine)
    : engine_(std::move(engine)) {}
Backups::~Backups() = default;

absl::StatusOr<std::unique_ptr<Backups>> Backups::Open(
    const std::string& backup_dir) {
  if (backup_dir.empty()) {
    return absl::FailedPreconditionError("no backup dir configured");
  }
  rocksdb::BackupEngine* engine = nullptr;
  rocksdb::IOStatus s = rocksdb::BackupEngine::Open(
      EngineOptions(backup_dir), rocksdb::Env::Default(), &engine);
  if (!s.ok()) {
    return FromRocksIo(s, absl::StrCat("opening the backup dir ", backup_dir));
  }
  return std::unique_ptr<Backups>(
      new Backups(std::unique_ptr<rocksdb::BackupEngine>(engine)));
}

absl::StatusOr<BackupInfo> Backups::Create(TrackStore& store,
                                           const std::string& data_dir,
                                           int keep) {
  Metadata metadata;
  // Read before the copy begins: every write acknowledged by now is in it.
  metadata.sequence = LatestSequence(store);
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> kept =
      ReadKept(data_dir);
  if (!kept.ok()) return kept.status();
  metadata.files = *std::move(kept);
  // Refused on a failed disk, as every flush is (TrackStore::Flush).
  if (absl::Status s = store.Flush(); !s.ok()) return s;
  absl::MutexLock l(&mu_);
  rocksdb::CreateBackupOptions options;
  options.flush_before_backup = true;  // what came since Flush
  rocksdb::BackupID id = 0;
  rocksdb::IOStatus s = engine_->CreateNewBackupWithMetadata(
      options, store.engine().db.get(), EncodeMetadata(metadata), &id);
  if (!s.ok()) return FromRocksIo(s, "backing up");
  // The new backup stands whether or not the old ones could go: the next
  // backup tries again.
  if (keep > 0) {
    s = engine_->PurgeOldBackups(static_cast<uint32_t>(keep));
    if (!s.ok()) {
      std::fprintf(stderr, "trackd: backup %u made; deleting old ones: %s\n",
                   id, s.ToString().c_str());
    }
  }
  rocksdb::BackupInfo info;
  rocksdb::Status got = engine_->GetBackupInfo(id, &info);
  if (!got.ok()) return FromRocks(got, "reading the new backup's info");
  return FromRocksInfo(info);
}

absl::StatusOr<std::vector<BackupInfo>> Backups::List() {
  absl::MutexLock l(&mu_);
  return InfosOf(*engine_);
}

absl::Status Backups::Delete(uint32_t id) {
  absl::MutexLock l(&mu_);
  rocksdb::BackupInfo info;
  if (!engine_->GetBackupInfo(id, &info).ok()) {
    return absl::NotFoundError(absl::StrCat("no backup ", id));
  }
  return FromRocksIo(engine_->DeleteBackup(id),
                     absl::StrCat("deleting backup ", id));
}

namespace {
absl::StatusOr<std::unique_ptr<rocksdb::BackupEngineReadOnly>> OpenReadOnly(
    const std::string& backup_dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(backup_dir, ec)) {
    return absl::NotFoundError(absl::StrCat("no backup dir ", backup_dir));
  }
  rocksdb::BackupEngineReadOnly* raw = nullptr;
  rocksdb::IOStatus s = rocksdb::BackupEngineReadOnly::Open(
      EngineOptions(backup_dir), rocksdb::Env::Default(), &raw);
  if (!s.ok()) {
    return FromRocksIo(s, absl::StrCat("opening the backup dir ", backup_dir));
  }
  return std::unique_ptr<rocksdb::BackupEngineReadOnly>(raw);
}
}  // namespace

absl::StatusOr<std::vector<BackupInfo>> ListBackupsIn(
    const std::string& backup_dir) {
  auto engine = OpenReadOnly(backup_dir);
  if (!engine.ok()) return engine.status();
  return InfosOf(**engine);
}

absl::StatusOr<BackupInfo> RestoreBackup(const std::string& backup_dir,
                                         uint32_t id,
                                         const std::string& target_dir) {
  if (absl::Status s = RequireEmptyDir(target_dir); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<rocksdb::BackupEngineReadOnly>> opened =
      OpenReadOnly(backup_dir);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<rocksdb::BackupEngineReadOnly> engine = *std::move(opened);
  std::vector<rocksdb::BackupInfo> infos;
  engine->GetBackupInfo(&infos);
  if (id == 0 && !infos.empty()) id = infos.back().backup_id;
  rocksdb::BackupInfo info;
  if (id == 0 || !engine->GetBackupInfo(id, &info).ok()) {
    return absl::NotFoundError(absl::StrCat(
        "no backup ", id == 0 ? "" : absl::StrCat(id, " "), "in ", backup_dir));
  }
  const std::optional<Metadata> metadata = DecodeMetadata(info.app_metadata);
  if (!metadata) {
    return absl::DataLossError(absl::StrCat("backup ", id, " in ", backup_dir,
                                            " was not made by trackdb"));
  }
  rocksdb::IOStatus s = engine->VerifyBackup(id, /*verify_with_checksum=*/true);
  if (!s.ok()) {
    return absl::DataLossError(absl::StrCat("backup ", id, " in ", backup_dir,
                                            " is corrupt: ", s.ToString()));
  }
  s = engine->RestoreDBFromBackup(rocksdb::RestoreOptions(), id, target_dir,
                                  target_dir);
  if (!s.ok()) {
    return absl::DataLossError(absl::StrCat("restoring backup ", id, " from ",
                                            backup_dir, ": ", s.ToString()));
  }
  if (absl::Status w = WriteKept(target_dir, metadata->files); !w.ok()) {
    return w;
  }
  // A history of its own: its sequence numbers go on from the backup's and
  // would otherwise mean other writes to the primary's replicas.
  absl::StatusOr<std::unique_ptr<TrackStore>> store =
      TrackStore::Open(target_dir, v1::StorageConfig());
  if (!store.ok()) return store.status();
  if (absl::StatusOr<std::string> replid = NewPrimaryReplid(**store);
      !replid.ok()) {
    return replid.status();
  }
  if (absl::Status c = (*store)->Close(); !c.ok()) return c;
  return FromRocksInfo(info);
}

}  // namespace trackdb::storage
