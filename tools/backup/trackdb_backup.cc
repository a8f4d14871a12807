// trackdb_backup: the backups that BGSAVE and SAVE make (storage.backup_dir),
// listed, checked, and restored into a data dir that trackd then opens.
//
//   trackdb_backup list    --backup_dir=DIR
//   trackdb_backup restore --backup_dir=DIR --to=NEW_DATA_DIR [--id=N]
//
// `restore` checks every file of the backup against its checksum first
// (a corrupt one is refused, naming the backup), into a dir that must be
// missing or empty; the newest backup unless --id. Run it with trackd
// stopped or not: it reads only the backup dir.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "storage/backup/backups.h"

ABSL_FLAG(std::string, backup_dir, "", "the backup dir (storage.backup_dir)");
ABSL_FLAG(std::string, to, "", "restore: the new data dir");
ABSL_FLAG(uint32_t, id, 0, "restore: the backup (0: the newest)");

namespace trackdb {
namespace {

constexpr char kUsage[] =
    "trackdb_backup list --backup_dir=DIR\n"
    "trackdb_backup restore --backup_dir=DIR --to=NEW_DATA_DIR [--id=N]";

int Fail(const std::string& message) {
  std::fprintf(stderr, "trackdb_backup: %s\n", message.c_str());
  return 1;
}

std::string Describe(const storage::BackupInfo& b) {
  return absl::StrCat(
      "backup ", b.id, "  ",
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixSeconds(b.unix_s),
                       absl::UTCTimeZone()),
      "  ", b.files, " files  ", b.bytes,
      " bytes  holds writes up to "
      "sequence ",
      b.sequence);
}

int List(const std::string& dir) {
  auto list = storage::ListBackupsIn(dir);
  if (!list.ok()) return Fail(list.status().ToString());
  if (list->empty()) std::printf("no backups in %s\n", dir.c_str());
  for (const storage::BackupInfo& b : *list) {
    std::printf("%s\n", Describe(b).c_str());
  }
  return 0;
}

int Restore(const std::string& dir) {
  const std::string to = absl::GetFlag(FLAGS_to);
  if (to.empty()) return Fail("restore needs --to=NEW_DATA_DIR");
  auto restored = storage::RestoreBackup(dir, absl::GetFlag(FLAGS_id), to);
  if (!restored.ok()) return Fail(restored.status().ToString());
  std::printf("restored %s into %s; start trackd with --data_dir=%s\n",
              Describe(*restored).c_str(), to.c_str(), to.c_str());
  return 0;
}

int Run(const std::vector<char*>& args) {
  if (args.size() != 2) return Fail(absl::StrCat("usage:\n", kUsage));
  const std::string dir = absl::GetFlag(FLAGS_backup_dir);
  if (dir.empty()) return Fail("--backup_dir is required");
  const std::string command = args[1];
  if (command == "list") return List(dir);
  if (command == "restore") return Restore(dir);
  return Fail(
      absl::StrCat("unknown command '", command, "'; usage:\n", kUsage));
}

}  // namespace
}  // namespace trackdb

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(trackdb::kUsage);
  return trackdb::Run(absl::ParseCommandLine(argc, argv));
}
