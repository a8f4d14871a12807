// MIGRATE: keys sent to another server as RESTOREs of their DUMP payloads
// (key_dump.h), as Redis's migrateCommand sends them, and removed here
// unless COPY. The target is any server that speaks RESTORE: Redis, or
// another trackd. What redis-cli --cluster and migration scripts send.
//
// Unlike Redis, trackdb serves other clients while MIGRATE waits on the
// target, so a key may change between being read and being removed here.
// A key is removed only if it still holds what was sent, in one atomic
// check-and-remove; one that changed is kept, and MIGRATE answers an error
// naming it, so that nothing written here is lost. Each call opens its own
// connection (Redis caches one per target for 10 s).

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "model/clock.h"
#include "service/replication/resp_client.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/track_store.h"
#include "types/codec/rdb_payload.h"
#include "types/codec/redis_number.h"
#include "types/key_dump.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

using replication::RespClient;
using replication::RespValue;

struct MigrateArgs {
  bool copy = false;
  bool replace = false;
  std::optional<std::string> user;  // AUTH2's
  std::optional<std::string> password;
  std::vector<std::string> keys;
  int64_t db = 0;
  int64_t timeout_ms = 0;
};

// Redis's migrateCommand options, after `host port key db timeout`: COPY,
// REPLACE, AUTH password, AUTH2 username password, KEYS key... (the rest;
// the key argument must then be empty). False once it has replied.
bool ParseMigrateOptions(CommandContext& ctx, MigrateArgs* args) {
  const std::vector<std::string>& argv = ctx.argv;
  args->keys = {argv[3]};
  for (size_t j = 6; j < argv.size(); ++j) {
    const size_t more = argv.size() - 1 - j;
    if (IsWord(argv[j], "copy")) {
      args->copy = true;
    } else if (IsWord(argv[j], "replace")) {
      args->replace = true;
    } else if (IsWord(argv[j], "auth") && more >= 1) {
      args->password = argv[++j];
    } else if (IsWord(argv[j], "auth2") && more >= 2) {
      args->user = argv[++j];
      args->password = argv[++j];
    } else if (IsWord(argv[j], "keys")) {
      if (!argv[3].empty()) {
        ctx.reply.Error(
            "When using MIGRATE KEYS option, the key argument must be set to "
            "the empty string");
        return false;
      }
      args->keys.assign(argv.begin() + j + 1, argv.end());
      break;
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

// The whole of MIGRATE's arguments, checked in Redis's order.
bool ParseMigrateArgs(CommandContext& ctx, MigrateArgs* args) {
  if (!ParseMigrateOptions(ctx, args)) return false;
  if (!types::ParseInt64(ctx.argv[5], &args->timeout_ms) ||
      !types::ParseInt64(ctx.argv[4], &args->db)) {
    ctx.reply.Error(kNotIntegerError);
    return false;
  }
  if (args->timeout_ms <= 0) args->timeout_ms = 1000;
  return true;
}

// A key read for sending: what its RESTORE carries, and what it held, so
// that it is removed only if it still holds that.
struct OutgoingKey {
  std::string key;
  std::string name;  // storage name
  std::optional<storage::StringValue> string;
  std::string payload;
  int64_t ttl_ms = 0;  // 0: none
};

// `key` as it is now; nullopt when it holds nothing.
absl::StatusOr<std::optional<OutgoingKey>> ReadOutgoingKey(
    CommandContext& ctx, const std::string& key, int64_t now_ms) {
  OutgoingKey out{key, ctx.Name(key)};
  absl::StatusOr<std::optional<types::DumpedKey>> dumped =
      types::DumpKey(ctx.store(), out.name, now_ms);
  if (!dumped.ok()) return dumped.status();
  if (!*dumped) return std::nullopt;
  out.payload = std::move((*dumped)->payload);
  out.string = std::move((*dumped)->string);
  const int64_t expire_at = (*dumped)->expire_at_ms;
  if (expire_at != 0) out.ttl_ms = std::max<int64_t>(expire_at - now_ms, 1);
  return out;
}

// Removes `sent`'s key if it still holds what was sent. Returns whether
// it did (false: it changed or went meanwhile).
absl::StatusOr<bool> RemoveIfUnchanged(CommandContext& ctx,
                                       const OutgoingKey& sent) {
  storage::TrackStore& store = ctx.store();
  const std::string names[] = {sent.name};
  bool removed = false;
  absl::Status s;
  if (sent.string) {
    s = store.UpdateStrings(
        names, NowMs(),
        [&](std::vector<std::optional<storage::StringValue>>* values) {
          std::optional<storage::StringValue>& v = (*values)[0];
          removed = v == sent.string;
          if (removed) v.reset();
          return absl::OkStatus();
        });
  } else {
    s = store.UpdateTyped(
        names, NowMs(),
        [&](storage::TypedTxn& txn) -> absl::Status {
          absl::StatusOr<std::optional<types::RdbValue>> now =
              types::LoadTypedValue(store, txn, sent.name);
          if (!now.ok()) return now.status();
          removed = *now && types::EncodeDumpPayload(**now) == sent.payload;
          if (!removed) return absl::OkStatus();
          absl::StatusOr<std::optional<storage::TypedMeta>> meta =
              txn.Meta(sent.name);
          if (!meta.ok()) return meta.status();
          if (*meta) txn.DeleteMeta(sent.name);
          return txn.RemoveOtherTypes(sent.name);
        },
        names);
  }
  if (!s.ok()) return s;
  return removed;
}

// What the target said: nullopt for a lost connection or a timeout.
std::optional<RespValue> CallTarget(RespClient& target,
                                    const std::vector<std::string>& argv,
                                    absl::Duration timeout) {
  absl::StatusOr<RespValue> reply = target.Call(argv, timeout);
  if (!reply.ok()) return std::nullopt;
  return *std::move(reply);
}

constexpr char kReadError[] =
    "-IOERR error or timeout reading to target instance";

void ReplyTargetError(CommandContext& ctx, const RespValue& reply) {
  ctx.reply.Error(
      absl::StrCat("Target instance replied with error: ", reply.text));
}

// AUTH and SELECT on the target. False once it has replied.
bool OpenSession(CommandContext& ctx, RespClient& target,
                 const MigrateArgs& args, absl::Duration timeout) {
  std::vector<std::vector<std::string>> calls;
  if (args.password) {
    calls.push_back(
        args.user ? std::vector<std::string>{"AUTH", *args.user, *args.password}
                  : std::vector<std::string>{"AUTH", *args.password});
  }
  calls.push_back({"SELECT", absl::StrCat(args.db)});
  for (const std::vector<std::string>& call : calls) {
    std::optional<RespValue> reply = CallTarget(target, call, timeout);
    if (!reply) {
      ctx.reply.Error(kReadError);
      return false;
    }
    if (reply->is_error()) {
      ReplyTargetError(ctx, *reply);
      return false;
    }
  }
  return true;
}

// Sends each key's RESTORE and, unless COPY, removes each key the target
// took. Replies OK, the target's first error, a lost connection, or the
// keys kept because they changed meanwhile.
void SendKeys(CommandContext& ctx, RespClient& target, const MigrateArgs& args,
              const std::vector<OutgoingKey>& keys, absl::Duration timeout) {
  const char* restore =
      ctx.server.cluster() != nullptr ? "RESTORE-ASKING" : "RESTORE";
  std::optional<RespValue> target_error;
  bool lost = false;
  std::vector<std::string> changed;
  for (const OutgoingKey& k : keys) {
    std::vector<std::string> call = {restore, k.key, absl::StrCat(k.ttl_ms),
                                     k.payload};
    if (args.replace) call.push_back("REPLACE");
    std::optional<RespValue> reply = CallTarget(target, call, timeout);
    if (!reply) {
      lost = true;
      break;
    }
    if (reply->is_error()) {
      if (!target_error) target_error = *reply;
      continue;
    }
    if (args.copy) continue;
    absl::StatusOr<bool> removed = RemoveIfUnchanged(ctx, k);
    if (!ctx.Check(removed.status())) return;
    if (!*removed) changed.push_back(k.key);
  }
  if (target_error) return ReplyTargetError(ctx, *target_error);
  if (lost) return ctx.reply.Error(kReadError);
  if (!changed.empty()) {
    return ctx.reply.Error(absl::StrCat(
        "keys changed while MIGRATE sent them, so they were copied and kept "
        "here: ",
        absl::StrJoin(changed, " ")));
  }
  ctx.reply.Ok();
}

// Redis's migrateCommand: MIGRATE host port key|"" destination-db timeout
// [COPY] [REPLACE] [AUTH password | AUTH2 username password]
// [KEYS key [key ...]].
void Migrate(CommandContext& ctx) {
  MigrateArgs args;
  if (!ParseMigrateArgs(ctx, &args)) return;
  const int64_t now = NowMs();
  std::vector<OutgoingKey> keys;
  for (const std::string& key : args.keys) {
    absl::StatusOr<std::optional<OutgoingKey>> k =
        ReadOutgoingKey(ctx, key, now);
    if (!ctx.Check(k.status())) return;
    if (*k) keys.push_back(**std::move(k));
  }
  if (keys.empty()) return ctx.reply.Status("NOKEY");
  // Redis reads the port with atoi: what is not a number is 0, where
  // nothing listens.
  const int port = std::atoi(ctx.argv[2].c_str());
  const absl::Duration timeout = absl::Milliseconds(args.timeout_ms);
  absl::StatusOr<RespClient> target =
      RespClient::Connect(ctx.argv[1], port, timeout);
  if (!target.ok()) {
    // Redis 7.0 answers "connecting" only when the address does not
    // resolve: a refused or timed-out connection fails its first write.
    return ctx.reply.Error(
        absl::StartsWith(target.status().message(), "resolving")
            ? "-IOERR error or timeout connecting to the client"
            : "-IOERR error or timeout writing to target instance");
  }
  if (!OpenSession(ctx, *target, args, timeout)) return;
  SendKeys(ctx, *target, args, keys, timeout);
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(migrate, table) {
  table->Add("migrate", -6, Migrate, {"write", "movablekeys"}, 3, 3, 1,
             RunsOn::kWorker);
}

}  // namespace trackdb::resp
