#include "service/resp/commands/typed_command.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "model/clock.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/format/typed_codec.h"
#include "types/codec/object_encoding.h"
#include "types/codec/rdb_payload.h"
#include "types/codec/redis_number.h"
#include "types/keyspace.h"
#include "types/typed_key.h"

namespace trackdb::resp {

namespace {

// A group's transaction, while its calls run on this thread.
struct TypedGroup {
  std::vector<std::string> names;  // sorted, distinct
  storage::TypedTxn* txn = nullptr;
  bool start_over = false;  // a call could not run in the group
  // Keys pushed to, whose blocking pops wake once the group commits.
  std::vector<std::string> pushed;
};
thread_local TypedGroup* current_group = nullptr;

// Whether `spec` only reads (COMMAND INFO's "readonly"): its transaction
// shares its keys' stripes with other reads (TrackStore::ReadTyped), so
// reads of one hot key run on both loops.
bool ReadsOnly(const CommandSpec* spec) {
  return spec != nullptr && HasFlag(*spec, "readonly");
}

// Whether `spec` only removes: on a key that holds no typed value it stages
// nothing (it replies nil, 0 or an empty array, or WRONGTYPE), like a
// worker polling an empty queue with RPOP.
bool OnlyRemoves(const CommandSpec* spec) {
  static constexpr absl::string_view kRemovers[] = {
      "lpop", "rpop", "zpopmin", "zpopmax", "spop", "srem", "zrem", "hdel"};
  return spec != nullptr &&
         std::find(std::begin(kRemovers), std::end(kRemovers), spec->name) !=
             std::end(kRemovers);
}

// Whether calls of `specs` on `names` run first as a read (ReadTyped):
// they only read, or they only remove and the names are known to hold no
// typed value, so that they most likely stage nothing. A guess that was
// wrong costs one run that stages and is thrown away.
// The spec of each of a run's `calls`, in order.
std::vector<const CommandSpec*> SpecsOf(
    ServerState& server, absl::Span<const std::vector<std::string>> calls) {
  std::vector<const CommandSpec*> specs;
  specs.reserve(calls.size());
  for (const std::vector<std::string>& call : calls) {
    specs.push_back(server.commands().Find(call[0]));
  }
  return specs;
}

bool RunFirstAsRead(ServerState& server,
                    absl::Span<const CommandSpec* const> specs,
                    absl::Span<const std::string> names) {
  bool removes = false;
  for (const CommandSpec* spec : specs) {
    if (ReadsOnly(spec)) continue;
    if (!OnlyRemoves(spec)) return false;
    removes = true;
  }
  return !removes || server.store().TypedValuesKnownAbsent(names);
}

// ReadTyped's refusal of a transaction that staged a write after all.
bool StagedAWrite(const absl::Status& s) {
  return absl::IsFailedPrecondition(s) &&
         s.message() == storage::kReadOnlyTxnStagedWrite;
}

// Runs `run` over `names` as a read (ReadTyped) when `read_first`, else as
// an update; a read that staged a write after all wrote nothing, and runs
// again as an update once `before_rerun` has cleared what it left.
absl::Status ReadFirstElseUpdate(ServerState& server,
                                 absl::Span<const std::string> names,
                                 bool read_first,
                                 const storage::TypedUpdate& run,
                                 absl::Span<const std::string> replaceable,
                                 const std::function<void()>& before_rerun) {
  if (read_first) {
    absl::Status s = server.store().ReadTyped(names, NowMs(), run);
    if (!StagedAWrite(s)) return s;
    before_rerun();
  }
  return server.store().UpdateTyped(names, NowMs(), run, replaceable);
}

// Runs `body` as one call of the group under way.
void RunInGroup(TypedGroup& group, CommandContext& ctx,
                absl::Span<const std::string> names, const TypedBody& body,
                absl::Span<const std::string> replaceable) {
  for (const std::string& name : names) {
    if (!std::binary_search(group.names.begin(), group.names.end(), name)) {
      group.start_over = true;
    }
  }
  if (!replaceable.empty()) group.start_over = true;
  if (group.start_over) return;
  if (!body(*group.txn, ctx.reply).ok()) group.start_over = true;
}

// The storage names of `groups`' calls (argv[1] each), sorted, distinct.
std::vector<std::string> NamesOf(absl::Span<const PendingGroup> groups) {
  std::vector<std::string> names;
  for (const PendingGroup& g : groups) {
    for (const std::vector<std::string>& call : g.calls) {
      names.push_back(
          types::KeyName(g.client->db, call.size() > 1 ? call[1] : ""));
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Serves the calls of `groups` (one client's run each, each call joined by
// TypedJoins) in one transaction, each group's replies in its own reply,
// or, if a call cannot run in it or the commit fails, each call alone.
void ServeTypedGroups(ServerState& server,
                      absl::Span<const PendingGroup> groups) {
  TypedGroup group;
  group.names = NamesOf(groups);
  std::vector<const CommandSpec*> specs;
  for (const PendingGroup& g : groups) {
    for (const CommandSpec* spec : SpecsOf(server, g.calls)) {
      specs.push_back(spec);
    }
  }
  std::vector<std::string> outs(groups.size());
  int64_t dispatched = 0;
  const storage::TypedUpdate run = [&](storage::TypedTxn& txn) {
    group.txn = &txn;
    current_group = &group;
    for (size_t i = 0; i < groups.size() && !group.start_over; ++i) {
      Reply scratch(&outs[i], groups[i].reply->protocol());
      for (const std::vector<std::string>& call : groups[i].calls) {
        Dispatch(server, *groups[i].client, call, scratch);
        ++dispatched;
        if (group.start_over) break;
      }
    }
    current_group = nullptr;
    return group.start_over ? absl::AbortedError("each call alone")
                            : absl::OkStatus();
  };
  const absl::Status s = ReadFirstElseUpdate(
      server, group.names, RunFirstAsRead(server, specs, group.names), run, {},
      [&] {
        for (std::string& out : outs) out.clear();
        group.start_over = false;
        group.pushed.clear();
      });
  current_group = nullptr;
  if (s.ok()) {
    // Dispatch took each call's error kinds already.
    for (size_t i = 0; i < groups.size(); ++i) {
      groups[i].reply->EncodedNoted(outs[i]);
    }
    for (const std::string& name : group.pushed) {
      server.pop_waiters().NotifyPush(name);
    }
  } else {
    // Nothing was written: each call runs alone, as if never grouped.
    for (const PendingGroup& g : groups) {
      for (const std::vector<std::string>& call : g.calls) {
        Dispatch(server, *g.client, call, *g.reply);
        ++dispatched;
      }
    }
  }
  // DispatchGroup (or DispatchGroups) counted the calls; Dispatch counted
  // them again.
  server.commands_processed.fetch_sub(dispatched, std::memory_order_relaxed);
}

// One client's run: ServeTypedGroups of it alone.
void ServeTypedGroup(ServerState& server, ClientState& client,
                     absl::Span<const std::vector<std::string>> calls,
                     Reply& reply) {
  PendingGroup g;
  g.client = &client;
  g.calls = calls;
  g.reply = &reply;
  ServeTypedGroups(server, absl::MakeConstSpan(&g, 1));
}

// Whether `spec` serves its runs with ServeTypedGroup (AddTypedGroup made
// it so): a run may mix all such commands.
bool ServedByTypedGroup(const CommandSpec& spec) {
  using Serve = decltype(&ServeTypedGroup);
  const Serve* serve = spec.group.target<Serve>();
  return serve != nullptr && *serve == &ServeTypedGroup;
}

}  // namespace

void WakePoppers(CommandContext& ctx, const std::string& name) {
  if (!ctx.server.pop_waiters().anyone_waiting()) return;
  if (current_group == nullptr)
    return ctx.server.pop_waiters().NotifyPush(name);
  std::vector<std::string>& pushed = current_group->pushed;
  if (pushed.empty() || pushed.back() != name) pushed.push_back(name);
}

void AddTypedGroup(CommandTable* table,
                   std::initializer_list<const char*> commands) {
  // The run goes on while the next call is a groupable command that runs
  // on the loop too (LPOP with a large count does not).
  // The run's first call is a command of this group (its joins is asking).
  JoinsGroup joins = [table](const std::vector<std::string>&,
                             const std::vector<std::string>& next) {
    const CommandSpec* spec = table->Find(next[0]);
    return spec != nullptr && ServedByTypedGroup(*spec) &&
           !CommandTable::RunsOnWorker(*spec, next);
  };
  for (const char* c : commands) {
    table->AddGroup(c, joins, ServeTypedGroup, ServeTypedGroups);
  }
}

std::optional<std::string> ExclusiveNameOfRun(
    ServerState& server, const ClientState& client, const CommandSpec& spec,
    absl::Span<const std::vector<std::string>> calls) {
  if (!ServedByTypedGroup(spec) || calls.empty()) return std::nullopt;
  const std::vector<std::string>& first = calls.front();
  if (first.size() < 2) return std::nullopt;
  for (const std::vector<std::string>& call : calls) {
    if (call.size() < 2 || call[1] != first[1]) return std::nullopt;
  }
  std::string name = types::KeyName(client.db, first[1]);
  if (RunFirstAsRead(server, SpecsOf(server, calls),
                     absl::MakeConstSpan(&name, 1))) {
    return std::nullopt;
  }
  return name;
}

namespace {

constexpr absl::string_view kFallBack = "served another way";

bool IsFallBack(const absl::Status& s) {
  return s.code() == absl::StatusCode::kAborted && s.message() == kFallBack;
}

// RunTyped, false when the body fell back (nothing replied).
bool RunTypedOnce(CommandContext& ctx, absl::Span<const std::string> names,
                  const TypedBody& body,
                  absl::Span<const std::string> replaceable) {
  if (current_group != nullptr) {
    RunInGroup(*current_group, ctx, names, body, replaceable);
    return true;
  }
  std::string out;
  Reply scratch(&out, ctx.reply.protocol());
  const storage::TypedUpdate run = [&](storage::TypedTxn& txn) {
    return body(txn, scratch);
  };
  const CommandSpec* const spec[] = {ctx.spec};
  const absl::Status s = ReadFirstElseUpdate(
      ctx.server, names,
      replaceable.empty() && RunFirstAsRead(ctx.server, spec, names), run,
      replaceable, [&] { out.clear(); });
  if (IsFallBack(s)) return false;
  if (ctx.Check(s)) ctx.reply.Encoded(out);
  return true;
}

}  // namespace

bool SmallPopCount(const std::vector<std::string>& argv) {
  int64_t count = 0;
  return argv.size() <= 2 ||
         (argv.size() == 3 && types::ParseInt64(argv[2], &count) &&
          count <= kLoopMembers);
}

void RunTyped(CommandContext& ctx, absl::Span<const std::string> names,
              const TypedBody& body,
              absl::Span<const std::string> replaceable) {
  RunTypedOnce(ctx, names, body, replaceable);
}

absl::Status FallBack() { return absl::AbortedError(kFallBack); }

bool RunTypedOrFallBack(CommandContext& ctx,
                        absl::Span<const std::string> names,
                        const TypedBody& body) {
  return RunTypedOnce(ctx, names, body, {});
}

void RunOnKey(CommandContext& ctx, const std::string& name,
              storage::ValueType want, bool create, const TypedKeyBody& body) {
  RunTyped(ctx, {name}, [&](storage::TypedTxn& txn, Reply& reply) {
    absl::StatusOr<types::TypedKey> key =
        create ? types::LookupOrCreate(txn, name, want)
               : types::LookupTyped(txn, name, want);
    if (!key.ok()) return key.status();
    if (key->wrong_type) {
      reply.Error(kWrongTypeError);
      return absl::OkStatus();
    }
    return body(txn, key->meta, reply);
  });
}

void RunOnExistingKey(CommandContext& ctx, const std::string& name,
                      storage::ValueType want,
                      const std::function<void(Reply&)>& absent,
                      const ExistingKeyBody& body) {
  RunOnKey(ctx, name, want, /*create=*/false,
           [&](storage::TypedTxn& txn, std::optional<storage::TypedMeta>& meta,
               Reply& reply) -> absl::Status {
             if (!meta) {
               absent(reply);
               return absl::OkStatus();
             }
             return body(txn, *meta, reply);
           });
}

bool ParseRandomPickArgs(CommandContext& ctx, absl::string_view word,
                         RandomPickArgs* args) {
  const auto& argv = ctx.argv;
  if (argv.size() < 3) return true;
  args->with_count = true;
  if (!types::ParseInt64(argv[2], &args->count)) {
    ctx.reply.Error(kNotIntegerError);
    return false;
  }
  if (args->count == INT64_MIN) {
    ctx.reply.Error(absl::StrCat("value is out of range, value must between ",
                                 -INT64_MAX, " and ", INT64_MAX));
    return false;
  }
  if (argv.size() > 4 || (argv.size() == 4 && !IsWord(argv[3], word))) {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  if (argv.size() == 4) {
    args->with_values = true;
    // Redis's bound, so that a RESP2 reply's length (2 * count) fits.
    if (args->count < -INT64_MAX / 2 || args->count > INT64_MAX / 2) {
      ctx.reply.Error("value is out of range");
      return false;
    }
  }
  return true;
}

bool ParseKeyScanOptions(const std::vector<std::string>& argv, Reply& reply,
                         KeyScanOptions* options) {
  for (size_t i = 3; i < argv.size(); i += 2) {
    const bool has_value = i + 1 < argv.size();
    if (IsWord(argv[i], "count") && has_value) {
      if (!types::ParseInt64(argv[i + 1], &options->count)) {
        reply.Error(kNotIntegerError);
        return false;
      }
      if (options->count < 1) {
        reply.Error(kSyntaxError);
        return false;
      }
    } else if (IsWord(argv[i], "match") && has_value) {
      options->pattern = argv[i + 1] == "*" ? nullptr : &argv[i + 1];
    } else {
      reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

namespace {

std::string KeyScanPrefix(char tag, const std::string& name) {
  return absl::StrCat(std::string(1, tag), name.size(), ":", name);
}

}  // namespace

int64_t SaveKeyScanCursor(ServerState& server, char tag,
                          const std::string& name, absl::string_view resume) {
  return server.SaveCursor(absl::StrCat(KeyScanPrefix(tag, name), resume));
}

std::string KeyScanResumeAt(ServerState& server, char tag, uint64_t cursor,
                            const std::string& name) {
  if (cursor == 0 || cursor > static_cast<uint64_t>(INT64_MAX)) return "";
  std::optional<std::string> saved =
      server.LoadCursor(static_cast<int64_t>(cursor));
  const std::string prefix = KeyScanPrefix(tag, name);
  if (!saved || !absl::StartsWith(*saved, prefix)) return "";
  return saved->substr(prefix.size());
}

std::mt19937_64& PickRandom() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

absl::StatusOr<const char*> TypedEncoding(storage::TypedTxn& txn,
                                          const std::string& name,
                                          const storage::TypedMeta& meta) {
  using storage::ValueType;
  const types::RdbValue::Kind kind =
      meta.type == ValueType::kHash   ? types::RdbValue::Kind::kHash
      : meta.type == ValueType::kSet  ? types::RdbValue::Kind::kSet
      : meta.type == ValueType::kZset ? types::RdbValue::Kind::kZset
                                      : types::RdbValue::Kind::kList;
  if (const char* by_size = types::EncodingBySize(kind, meta.size))
    return by_size;
  const bool zset = meta.type == ValueType::kZset;
  const std::string walked =
      zset ? std::string(1, storage::kZsetMemberTag) : std::string();
  bool small = true;
  absl::Status s =
      txn.Scan(name, meta, walked, "", /*reverse=*/false,
               [&](absl::string_view subkey, absl::string_view value) {
                 switch (meta.type) {
                   case ValueType::kHash:
                     small = types::FitsHashListpack(subkey, value);
                     break;
                   case ValueType::kSet:
                     small = types::FitsIntset(subkey);
                     break;
                   default:  // a zset member's subkey is its tag and the member
                     small = subkey.size() - 1 <= types::ZsetMaxListpackValue();
                 }
                 return small;
               });
  if (!s.ok()) return s;
  if (meta.type == ValueType::kSet) return small ? "intset" : "hashtable";
  if (zset) return small ? "listpack" : "skiplist";
  return small ? "listpack" : "hashtable";
}

}  // namespace trackdb::resp
