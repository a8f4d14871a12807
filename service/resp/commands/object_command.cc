// OBJECT ENCODING, REFCOUNT, IDLETIME, FREQ and HELP, with Redis 7.0's
// replies: nil for a missing key, its errors in its words.
//
// ENCODING and REFCOUNT answer what Redis gives the value as it is now
// (object_encoding.h: a fresh build of it, as after a restart; Redis also
// remembers encodings a value grew out of). IDLETIME is refused: trackdb
// keeps no access times, and an idle time of 0 would tell a cache cleaner
// that every key is in use. FREQ answers Redis's own error for a server
// without an LFU eviction policy, which trackdb is.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/clock.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/dispatch/command.h"
#include "storage/format/typed_codec.h"
#include "storage/format/typed_values.h"
#include "types/codec/object_encoding.h"
#include "types/codec/rdb_payload.h"
#include "types/key_dump.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;

constexpr char kIdleTimeNotTracked[] =
    "trackdb keeps no access times, idle time not tracked";
constexpr char kFreqNotTracked[] =
    "An LFU maxmemory policy is not selected, access frequency not tracked. "
    "Please note that when switching between policies at runtime LRU and "
    "LFU data will take some time to adjust.";

enum class Asked { kEncoding, kRefcount, kIdleTime, kFreq };

// The encoding of `name`'s hash, set, list, sorted set or GEO key; nullptr
// when it holds none. Members are read only when the size does not decide
// (at most SetMaxIntsetEntries() of them).
absl::StatusOr<const char*> KeyEncoding(storage::TrackStore& store,
                                        TypedTxn& txn,
                                        const std::string& name) {
  absl::StatusOr<std::optional<TypedMeta>> meta = txn.Meta(name);
  if (!meta.ok()) return meta.status();
  if (*meta) return TypedEncoding(txn, name, **meta);
  absl::StatusOr<bool> geo = types::IsGeoKey(store, name);
  if (!geo.ok()) return geo.status();
  if (!*geo) return nullptr;
  absl::StatusOr<int64_t> size = store.CollectionSize(name);
  if (!size.ok()) return size.status();
  const char* by_size =
      types::EncodingBySize(types::RdbValue::Kind::kZset, *size);
  if (by_size != nullptr) return by_size;
  absl::StatusOr<std::optional<types::RdbValue>> value =
      types::LoadTypedValue(store, txn, name);
  if (!value.ok()) return value.status();
  return *value ? types::Encoding(**value) : nullptr;
}

// The answer about an existing key whose encoding is `encoding`.
void ReplyAbout(Reply& reply, Asked asked, const char* encoding,
                int64_t refcount) {
  switch (asked) {
    case Asked::kEncoding:
      return reply.Bulk(encoding);
    case Asked::kRefcount:
      return reply.Integer(refcount);
    case Asked::kIdleTime:
      return reply.Error(kIdleTimeNotTracked);
    case Asked::kFreq:
      return reply.Error(kFreqNotTracked);
  }
}

// Redis's objectCommand: OBJECT <subcommand> key, nil for a missing key.
void ObjectAbout(CommandContext& ctx, Asked asked) {
  const std::string name = ctx.Name(ctx.argv[2]);
  absl::StatusOr<std::optional<storage::StringValue>> string =
      ctx.store().GetString(name, NowMs());
  if (!ctx.Check(string.status())) return;
  if (*string) {
    const std::string& value = (*string)->value;
    return ReplyAbout(ctx.reply, asked, types::StringEncoding(value),
                      types::StringRefcount(value));
  }
  RunTyped(ctx, {name}, [&](TypedTxn& txn, Reply& reply) -> absl::Status {
    absl::StatusOr<const char*> encoding = KeyEncoding(ctx.store(), txn, name);
    if (!encoding.ok()) return encoding.status();
    if (*encoding == nullptr) {
      reply.Null();
    } else {
      ReplyAbout(reply, asked, *encoding, /*refcount=*/1);
    }
    return absl::OkStatus();
  });
}

void ObjectHelp(CommandContext& ctx) {
  const char* lines[] = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store "
      "the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned "
      "integer is",
      "    proportional to the logarithm of the recent access frequency of "
      "the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number "
      "of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the "
      "specified",
      "    <key>.",
      "HELP",
      "    Prints this help."};
  ctx.reply.StatusLines(lines);
}

CommandSpec ObjectCommand() {
  CommandSpec object = CommandWithSubcommands("object");
  auto about = [&](const char* sub, Asked asked) {
    AddSubcommand(object, {sub, 3, {"readonly"}, 2, 2, 1},
                  [asked](CommandContext& ctx) { ObjectAbout(ctx, asked); });
  };
  about("encoding", Asked::kEncoding);
  about("refcount", Asked::kRefcount);
  about("idletime", Asked::kIdleTime);
  about("freq", Asked::kFreq);
  AddSubcommand(object, {"help", 2, {"loading", "stale"}}, ObjectHelp);
  return object;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(object, table) { table->Add(ObjectCommand()); }

}  // namespace trackdb::resp
