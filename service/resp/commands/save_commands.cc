// BGSAVE [SCHEDULE], SAVE and LASTSAVE, in Redis's words, over backups
// (service/jobs/backup_job.h): where Redis writes an RDB file, trackdb
// makes a RocksDB backup into storage.backup_dir (as Kvrocks's BGSAVE
// does), which `trackdb_backup restore` turns into a data dir. INFO's
// persistence section reports them with Redis's rdb_ fields.

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"

namespace trackdb::resp {
namespace {

constexpr char kInProgress[] = "Background save already in progress";

// BGSAVE [SCHEDULE]: a backup in the background. With one running, Redis
// refuses even SCHEDULE (which waits only for another kind of child).
void Bgsave(CommandContext& ctx) {
  if (ctx.argv.size() > 2 ||
      (ctx.argv.size() == 2 && !EqualsIgnoreCase(ctx.argv[1], "SCHEDULE"))) {
    return ctx.reply.Error(kSyntaxError);
  }
  if (!ctx.server.backups().StartInBackground()) {
    return ctx.reply.Error(kInProgress);
  }
  ctx.reply.Status("Background saving started");
}

// SAVE: a backup now, replying when it is done.
void Save(CommandContext& ctx) {
  if (ctx.server.backups().state().in_progress) {
    return ctx.reply.Error(kInProgress);
  }
  absl::StatusOr<storage::BackupInfo> info = ctx.server.backups().RunNow();
  // The backup dir's errors are not the data dir's: no MISCONF for them.
  if (!info.ok()) {
    return ctx.reply.Error(
        absl::StrCat("backup failed: ", info.status().message()));
  }
  ctx.reply.Ok();
}

// LASTSAVE: the unix time of the last backup that succeeded; the server's
// start before any, as Redis answers before its first save.
void Lastsave(CommandContext& ctx) {
  const int64_t last = ctx.server.backups().state().last_success_unix_s;
  ctx.reply.Integer(last > 0 ? last : ctx.server.start_ms() / 1000);
}

}  // namespace

std::string PersistenceInfoSection(CommandContext& ctx) {
  const service::BackupJob::State s = ctx.server.backups().state();
  const int64_t now_s = absl::ToUnixSeconds(absl::Now());
  const int64_t last = s.last_success_unix_s > 0 ? s.last_success_unix_s
                                                 : ctx.server.start_ms() / 1000;
  return absl::StrCat("# Persistence\r\nloading:0\r\nrdb_bgsave_in_progress:",
                      s.in_progress ? 1 : 0, "\r\nrdb_last_save_time:", last,
                      "\r\nrdb_last_bgsave_status:", s.last_ok ? "ok" : "err",
                      "\r\nrdb_last_bgsave_time_sec:",
                      s.last_duration_ms < 0 ? -1 : s.last_duration_ms / 1000,
                      "\r\nrdb_current_bgsave_time_sec:",
                      s.in_progress ? now_s - s.started_unix_s : -1,
                      "\r\naof_enabled:0\r\nbackup_dir:",
                      ctx.server.backups().backup_dir(), "\r\n\r\n");
}

TRACKDB_RESP_COMMAND_FAMILY(save, table) {
  table->Add("bgsave", -1, Bgsave, {"admin", "noscript", "no-async-loading"}, 0,
             0, 0);
  table->Add("save", 1, Save,
             {"admin", "noscript", "no-async-loading", "no-multi"}, 0, 0, 0,
             RunsOn::kWorker);
  table->Add("lastsave", 1, Lastsave, {"loading", "stale", "fast"}, 0, 0, 0);
}

}  // namespace trackdb::resp
