// Set commands: SADD, SREM, SISMEMBER, SMISMEMBER, SCARD, SMEMBERS, SPOP,
// SRANDMEMBER, SMOVE, SINTER, SUNION, SDIFF, SINTERSTORE, SUNIONSTORE,
// SDIFFSTORE, SINTERCARD and SSCAN, with Redis 7.0's replies and errors,
// checked in Redis's order.
//
// A set is a typed value (storage/format/typed_codec.h): one key per member, in
// member byte order. Each command is one transaction over every key it
// names (RunTyped), so SMOVE and the set algebra read and write their keys
// atomically. A STORE replaces its destination whatever it holds (a
// string, a GEO key, any typed value) in the batch that writes the result,
// as Redis overwrites a key of any type. Replies whose order Redis leaves
// unspecified list members in byte order (SRANDMEMBER with a negative
// count: in the order drawn).
//
// Where trackdb differs from Redis, on purpose:
//  - SPOP and SRANDMEMBER pick uniformly at random, as Redis does, but
//    trackdb keeps no index of members by position: a pick walks the set
//    (O(N), where Redis takes O(1)), so both run on the worker pool.
//    SRANDMEMBER with a negative count makes at most kMaxRepeatedPicks
//    draws from a non-empty set (its reply is built whole in memory), and
//    answers "value is out of range" past it.
//  - SSCAN replies a set that Redis 7.0 keeps in an intset (up to 512
//    integers, object_encoding.h) whole, with cursor 0, as Redis does.
//    Any other set is paged, as Redis pages its hashtable: each call
//    examines COUNT members in byte order from where the last stopped, and the
//    member to resume at is kept under the cursor number it replies
//    (ServerState::SaveCursor, shared with SCAN). A cursor this server did not
//    issue for that key (0, evicted, another key's, from before a restart)
//    starts at the first member, which SSCAN's guarantees allow.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "model/glob.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/set.h"
#include "types/typed_key.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

constexpr char kNotPositiveError[] = "value is out of range, must be positive";

std::vector<std::string> NamesOf(CommandContext& ctx, size_t first,
                                 size_t end) {
  std::vector<std::string> names;
  for (size_t i = first; i < end; ++i) names.push_back(ctx.Name(ctx.argv[i]));
  return names;
}

// A set key looked up for a command: replies WRONGTYPE into `reply` when
// it holds another type (*stop is then true). The meta is nullopt for a
// missing key.
absl::StatusOr<std::optional<TypedMeta>> LookupSet(TypedTxn& txn,
                                                   absl::string_view name,
                                                   Reply& reply, bool* stop) {
  absl::StatusOr<types::TypedKey> key =
      types::LookupTyped(txn, name, ValueType::kSet);
  if (!key.ok()) return key.status();
  *stop = key->wrong_type;
  if (*stop) reply.Error(kWrongTypeError);
  return key->meta;
}

void ReplySet(Reply& reply, const std::vector<std::string>& members) {
  reply.Set(members.size());
  for (const std::string& m : members) reply.Bulk(m);
}

void ReplyArray(Reply& reply, const std::vector<std::string>& members) {
  reply.Array(members.size());
  for (const std::string& m : members) reply.Bulk(m);
}

// ---- SADD, SREM, SISMEMBER, SMISMEMBER, SCARD, SMEMBERS ----

void SAdd(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunTyped(ctx, {name}, [&](TypedTxn& txn, Reply& reply) -> absl::Status {
    absl::StatusOr<types::TypedKey> key =
        types::LookupOrCreate(txn, name, ValueType::kSet);
    if (!key.ok()) return key.status();
    if (key->wrong_type) {
      reply.Error(kWrongTypeError);
      return absl::OkStatus();
    }
    types::SetWriter set(txn, name, *key->meta);
    int64_t added = 0;
    for (size_t i = 2; i < ctx.argv.size(); ++i) {
      absl::StatusOr<bool> added_one = set.Add(ctx.argv[i]);
      if (!added_one.ok()) return added_one.status();
      if (*added_one) ++added;
    }
    set.Finish();
    reply.Integer(added);
    return absl::OkStatus();
  });
}

void SRem(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kSet, /*create=*/false,
           [&](TypedTxn& txn, std::optional<TypedMeta>& found,
               Reply& reply) -> absl::Status {
             int64_t removed = 0;
             if (found) {
               types::SetWriter set(txn, name, *found);
               for (size_t i = 2; i < ctx.argv.size(); ++i) {
                 absl::StatusOr<bool> was = set.Remove(ctx.argv[i]);
                 if (!was.ok()) return was.status();
                 if (*was) ++removed;
               }
               set.Finish();
             }
             reply.Integer(removed);
             return absl::OkStatus();
           });
}

// SISMEMBER (one member, an integer) and SMISMEMBER (an array of them).
void SIsMemberGeneric(CommandContext& ctx, bool multi) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kSet, /*create=*/false,
           [&](TypedTxn& txn, std::optional<TypedMeta>& found,
               Reply& reply) -> absl::Status {
             std::optional<TypedMeta>* meta = &found;
             if (multi) reply.Array(ctx.argv.size() - 2);
             for (size_t i = 2; i < ctx.argv.size(); ++i) {
               bool is = false;
               if (*meta) {
                 absl::StatusOr<bool> got =
                     types::IsSetMember(txn, name, **meta, ctx.argv[i]);
                 if (!got.ok()) return got.status();
                 is = *got;
               }
               reply.Integer(is ? 1 : 0);
             }
             return absl::OkStatus();
           });
}

void SCard(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kSet, /*create=*/false,
           [&](TypedTxn&, std::optional<TypedMeta>& meta, Reply& reply) {
             reply.Integer(meta ? static_cast<int64_t>(meta->size) : 0);
             return absl::OkStatus();
           });
}

void SMembers(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kSet, [&](Reply& reply) { reply.Set(0); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        absl::StatusOr<std::vector<std::string>> members =
            types::SetMembers(txn, name, meta);
        if (!members.ok()) return members.status();
        ReplySet(reply, *members);
        return absl::OkStatus();
      });
}

// ---- Random picks: SPOP, SRANDMEMBER ----

// The member at a uniformly random position; nullopt if the walk finds
// fewer members than the meta counts.
absl::StatusOr<std::optional<std::string>> RandomMember(TypedTxn& txn,
                                                        absl::string_view name,
                                                        const TypedMeta& meta) {
  uint64_t left = absl::Uniform<uint64_t>(PickRandom(), 0, meta.size);
  std::optional<std::string> picked;
  absl::Status s = txn.Scan(name, meta, "", "", false,
                            [&](absl::string_view member, absl::string_view) {
                              if (left-- > 0) return true;
                              picked.emplace(member);
                              return false;
                            });
  if (!s.ok()) return s;
  return picked;
}

// `k` distinct members (k < meta.size) chosen uniformly at random, in byte
// order, in one walk: selection sampling, which takes each member with
// probability (members still wanted) / (members not yet seen).
absl::StatusOr<std::vector<std::string>> RandomDistinct(TypedTxn& txn,
                                                        absl::string_view name,
                                                        const TypedMeta& meta,
                                                        uint64_t k) {
  std::vector<std::string> picked;
  picked.reserve(k);
  uint64_t wanted = k, unseen = meta.size;
  absl::Status s = txn.Scan(
      name, meta, "", "", false,
      [&](absl::string_view member, absl::string_view) {
        if (absl::Uniform<uint64_t>(PickRandom(), 0, unseen) < wanted) {
          picked.emplace_back(member);
          --wanted;
        }
        --unseen;
        return wanted > 0 && unseen > 0;
      });
  if (!s.ok()) return s;
  return picked;
}

// `n` members drawn uniformly with replacement (n < meta.size), in the
// order drawn: the draws' positions, sorted, are filled in one walk.
absl::StatusOr<std::vector<std::string>> RandomDraws(TypedTxn& txn,
                                                     absl::string_view name,
                                                     const TypedMeta& meta,
                                                     uint64_t n) {
  std::vector<std::pair<uint64_t, size_t>> draws;  // position, draw
  draws.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    draws.emplace_back(absl::Uniform<uint64_t>(PickRandom(), 0, meta.size), i);
  }
  std::sort(draws.begin(), draws.end());
  std::vector<std::string> out(n);
  size_t next = 0;
  uint64_t position = 0;
  absl::Status s = txn.Scan(
      name, meta, "", "", false,
      [&](absl::string_view member, absl::string_view) {
        for (; next < draws.size() && draws[next].first == position; ++next) {
          out[draws[next].second] = std::string(member);
        }
        ++position;
        return next < draws.size();
      });
  if (!s.ok()) return s;
  return out;
}

void SPopOne(CommandContext& ctx, const std::string& name) {
  RunOnExistingKey(
      ctx, name, ValueType::kSet, [&](Reply& reply) { reply.Null(); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        absl::StatusOr<std::optional<std::string>> member =
            RandomMember(txn, name, meta);
        if (!member.ok()) return member.status();
        if (!*member) {
          reply.Null();
          return absl::OkStatus();
        }
        types::SetWriter set(txn, name, meta);
        set.RemoveMember(**member);
        set.Finish();
        reply.Bulk(**member);
        return absl::OkStatus();
      });
}

// SPOP key count: the count is checked before the key (Redis's order).
void SPopCount(CommandContext& ctx, const std::string& name) {
  int64_t count = 0;
  if (!types::ParseInt64(ctx.argv[2], &count) || count < 0) {
    return ctx.reply.Error(kNotPositiveError);
  }
  RunOnKey(ctx, name, ValueType::kSet, /*create=*/false,
           [&](TypedTxn& txn, std::optional<TypedMeta>& found,
               Reply& reply) -> absl::Status {
             std::optional<TypedMeta>* meta = &found;
             if (!*meta || count == 0) {
               reply.Set(0);
               return absl::OkStatus();
             }
             TypedMeta& m = **meta;
             const bool all = static_cast<uint64_t>(count) >= m.size;
             absl::StatusOr<std::vector<std::string>> popped =
                 all ? types::SetMembers(txn, name, m)
                     : RandomDistinct(txn, name, m,
                                      static_cast<uint64_t>(count));
             if (!popped.ok()) return popped.status();
             if (all) {
               txn.DeleteMeta(name);
             } else {
               types::SetWriter set(txn, name, m);
               for (const std::string& member : *popped)
                 set.RemoveMember(member);
               set.Finish();
             }
             ReplySet(reply, *popped);
             return absl::OkStatus();
           });
}

void SPop(CommandContext& ctx) {
  if (ctx.argv.size() > 3) return ctx.reply.Error(kSyntaxError);
  const std::string name = ctx.Name(ctx.argv[1]);
  if (ctx.argv.size() == 3) return SPopCount(ctx, name);
  SPopOne(ctx, name);
}

// SRANDMEMBER key count, count != 0, on an existing set: distinct members
// for a positive count, draws with replacement for a negative one.
absl::Status ReplyRandomMembers(TypedTxn& txn, const std::string& name,
                                const TypedMeta& meta, int64_t count,
                                Reply& reply) {
  if (count > 0 && static_cast<uint64_t>(count) >= meta.size) {
    absl::StatusOr<std::vector<std::string>> all =
        types::SetMembers(txn, name, meta);
    if (!all.ok()) return all.status();
    ReplyArray(reply, *all);
    return absl::OkStatus();
  }
  if (count > 0) {
    absl::StatusOr<std::vector<std::string>> picked =
        RandomDistinct(txn, name, meta, static_cast<uint64_t>(count));
    if (!picked.ok()) return picked.status();
    ReplyArray(reply, *picked);
    return absl::OkStatus();
  }
  const uint64_t draws = static_cast<uint64_t>(-count);
  if (draws < meta.size) {
    absl::StatusOr<std::vector<std::string>> drawn =
        RandomDraws(txn, name, meta, draws);
    if (!drawn.ok()) return drawn.status();
    ReplyArray(reply, *drawn);
    return absl::OkStatus();
  }
  // More draws than members: hold the members, not the draws.
  absl::StatusOr<std::vector<std::string>> all =
      types::SetMembers(txn, name, meta);
  if (!all.ok()) return all.status();
  if (all->empty()) {
    reply.Array(0);
    return absl::OkStatus();
  }
  if (draws > kMaxRepeatedPicks) {
    reply.Error("value is out of range");
    return absl::OkStatus();
  }
  reply.Array(draws);
  for (uint64_t i = 0; i < draws; ++i) {
    reply.Bulk((*all)[absl::Uniform<size_t>(PickRandom(), 0, all->size())]);
  }
  return absl::OkStatus();
}

void SRandMember(CommandContext& ctx) {
  if (ctx.argv.size() > 3) return ctx.reply.Error(kSyntaxError);
  const bool with_count = ctx.argv.size() == 3;
  int64_t count = 0;
  if (with_count) {
    if (!types::ParseInt64(ctx.argv[2], &count)) {
      return ctx.reply.Error(kNotIntegerError);
    }
    if (count == INT64_MIN) {
      return ctx.reply.Error(
          "value is out of range, value must between -9223372036854775807 "
          "and 9223372036854775807");
    }
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kSet, /*create=*/false,
           [&](TypedTxn& txn, std::optional<TypedMeta>& found,
               Reply& reply) -> absl::Status {
             std::optional<TypedMeta>* meta = &found;
             if (with_count && (!*meta || count == 0)) {
               reply.Array(0);
               return absl::OkStatus();
             }
             if (with_count)
               return ReplyRandomMembers(txn, name, **meta, count, reply);
             if (!*meta) {
               reply.Null();
               return absl::OkStatus();
             }
             absl::StatusOr<std::optional<std::string>> member =
                 RandomMember(txn, name, **meta);
             if (!member.ok()) return member.status();
             if (*member) {
               reply.Bulk(**member);
             } else {
               reply.Null();
             }
             return absl::OkStatus();
           });
}

// ---- SMOVE ----

// Redis's smoveCommand: a missing source is 0 whatever the destination
// holds; then both types are checked; moving within one set is a
// membership test.
absl::Status SMoveBody(TypedTxn& txn, const std::string& src,
                       const std::string& dst, const std::string& member,
                       Reply& reply) {
  bool stop = false;
  absl::StatusOr<std::optional<TypedMeta>> from =
      LookupSet(txn, src, reply, &stop);
  if (!from.ok()) return from.status();
  if (stop) return absl::OkStatus();
  if (!*from) {
    reply.Integer(0);
    return absl::OkStatus();
  }
  absl::StatusOr<types::TypedKey> to =
      types::LookupOrCreate(txn, dst, ValueType::kSet);
  if (!to.ok()) return to.status();
  if (to->wrong_type) {
    reply.Error(kWrongTypeError);
    return absl::OkStatus();
  }
  absl::StatusOr<bool> had = types::IsSetMember(txn, src, **from, member);
  if (!had.ok()) return had.status();
  if (src == dst || !*had) {
    reply.Integer(*had ? 1 : 0);
    return absl::OkStatus();
  }
  types::SetWriter from_set(txn, src, **from);
  from_set.RemoveMember(member);
  from_set.Finish();
  types::SetWriter to_set(txn, dst, *to->meta);
  absl::StatusOr<bool> added = to_set.Add(member);
  if (!added.ok()) return added.status();
  to_set.Finish();
  reply.Integer(1);
  return absl::OkStatus();
}

void SMove(CommandContext& ctx) {
  const std::string src = ctx.Name(ctx.argv[1]);
  const std::string dst = ctx.Name(ctx.argv[2]);
  RunTyped(ctx, {src, dst}, [&](TypedTxn& txn, Reply& reply) {
    return SMoveBody(txn, src, dst, ctx.argv[3], reply);
  });
}

// ---- SINTER, SUNION, SDIFF, their STORE forms, SINTERCARD ----

enum class SetOp { kInter, kUnion, kDiff };

// The sources of a set operation: each name's set, nullopt when missing.
struct Sources {
  std::vector<std::string> names;
  std::vector<std::optional<TypedMeta>> metas;
};

// Looks every source up before reading any, as Redis does: WRONGTYPE for
// any source of another type, wherever it stands (*stop is then true).
absl::Status LookupSources(TypedTxn& txn, Sources& sources, Reply& reply,
                           bool* stop) {
  sources.metas.clear();
  for (const std::string& name : sources.names) {
    absl::StatusOr<types::TypedKey> key =
        types::LookupTyped(txn, name, ValueType::kSet);
    if (!key.ok()) return key.status();
    if (key->wrong_type) {
      *stop = true;
      reply.Error(kWrongTypeError);
      return absl::OkStatus();
    }
    sources.metas.push_back(key->meta);
  }
  return absl::OkStatus();
}

// Visits the members in every source, in byte order, until `visit` returns
// false: walks the smallest set and looks each member up in the others.
absl::Status ForEachInAll(
    TypedTxn& txn, const Sources& sources,
    const std::function<bool(absl::string_view member)>& visit) {
  const size_t n = sources.names.size();
  for (const std::optional<TypedMeta>& meta : sources.metas) {
    if (!meta) return absl::OkStatus();  // with an empty set: empty
  }
  size_t smallest = 0;
  for (size_t i = 1; i < n; ++i) {
    if (sources.metas[i]->size < sources.metas[smallest]->size) smallest = i;
  }
  const std::string& walked = sources.names[smallest];
  absl::Status failed;
  absl::Status s =
      txn.Scan(walked, *sources.metas[smallest], "", "", false,
               [&](absl::string_view member, absl::string_view) {
                 for (size_t i = 0; i < n; ++i) {
                   if (sources.names[i] == walked) continue;
                   absl::StatusOr<bool> in = types::IsSetMember(
                       txn, sources.names[i], *sources.metas[i], member);
                   if (!in.ok()) {
                     failed = in.status();
                     return false;
                   }
                   if (!*in) return true;
                 }
                 return visit(member);
               });
  return failed.ok() ? s : failed;
}

absl::StatusOr<std::vector<std::string>> Union(TypedTxn& txn,
                                               const Sources& sources) {
  std::vector<std::string> all;
  absl::flat_hash_set<absl::string_view> walked;
  for (size_t i = 0; i < sources.names.size(); ++i) {
    if (!sources.metas[i] || !walked.insert(sources.names[i]).second) continue;
    absl::Status s =
        txn.Scan(sources.names[i], *sources.metas[i], "", "", false,
                 [&](absl::string_view member, absl::string_view) {
                   all.emplace_back(member);
                   return true;
                 });
    if (!s.ok()) return s;
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

// The first source's members that no other source holds. Each other set
// is taken away the cheaper way: walked and merged when it is no bigger
// than what is left, else by looking up what is left in it.
absl::StatusOr<std::vector<std::string>> Difference(TypedTxn& txn,
                                                    const Sources& sources) {
  if (!sources.metas[0]) return std::vector<std::string>();
  absl::StatusOr<std::vector<std::string>> left =
      types::SetMembers(txn, sources.names[0], *sources.metas[0]);
  if (!left.ok()) return left.status();
  for (size_t i = 1; i < sources.names.size() && !left->empty(); ++i) {
    const std::optional<TypedMeta>& meta = sources.metas[i];
    if (!meta) continue;
    if (sources.names[i] == sources.names[0]) return std::vector<std::string>();
    std::vector<std::string> kept;
    if (meta->size <= left->size()) {
      absl::StatusOr<std::vector<std::string>> other =
          types::SetMembers(txn, sources.names[i], *meta);
      if (!other.ok()) return other.status();
      std::set_difference(left->begin(), left->end(), other->begin(),
                          other->end(), std::back_inserter(kept));
    } else {
      for (std::string& member : *left) {
        absl::StatusOr<bool> in =
            types::IsSetMember(txn, sources.names[i], *meta, member);
        if (!in.ok()) return in.status();
        if (!*in) kept.push_back(std::move(member));
      }
    }
    *left = std::move(kept);
  }
  return left;
}

absl::StatusOr<std::vector<std::string>> Combine(TypedTxn& txn,
                                                 const Sources& sources,
                                                 SetOp op) {
  switch (op) {
    case SetOp::kInter: {
      std::vector<std::string> members;
      absl::Status s = ForEachInAll(txn, sources, [&](absl::string_view m) {
        members.emplace_back(m);
        return true;
      });
      if (!s.ok()) return s;
      return members;
    }
    case SetOp::kUnion:
      return Union(txn, sources);
    default:
      return Difference(txn, sources);
  }
}

// SINTER, SUNION, SDIFF key [key ...]: a set reply.
void SetOpCommand(CommandContext& ctx, SetOp op) {
  Sources sources{NamesOf(ctx, 1, ctx.argv.size()), {}};
  RunTyped(ctx, sources.names,
           [&](TypedTxn& txn, Reply& reply) -> absl::Status {
             bool stop = false;
             absl::Status s = LookupSources(txn, sources, reply, &stop);
             if (!s.ok() || stop) return s;
             absl::StatusOr<std::vector<std::string>> members =
                 Combine(txn, sources, op);
             if (!members.ok()) return members.status();
             ReplySet(reply, *members);
             return absl::OkStatus();
           });
}

// A STORE's transaction: every source is type-checked and read, then
// `dest` is replaced in the same batch, whatever it held (a string or a
// GEO key too, which RemoveOtherTypes stages the removal of).
absl::Status StoreBody(TypedTxn& txn, const std::string& dest, Sources& sources,
                       SetOp op, Reply& reply) {
  bool stop = false;
  absl::Status s = LookupSources(txn, sources, reply, &stop);
  if (!s.ok() || stop) return s;
  absl::StatusOr<std::optional<TypedMeta>> old = txn.Meta(dest);
  if (!old.ok()) return old.status();
  // Every source is read before anything is staged: Scan does not see
  // staged writes, and `dest` may be a source.
  absl::StatusOr<std::vector<std::string>> members = Combine(txn, sources, op);
  if (!members.ok()) return members.status();
  if (s = txn.RemoveOtherTypes(dest); !s.ok()) return s;
  types::ReplaceSet(txn, dest, old->has_value(), *members);
  reply.Integer(static_cast<int64_t>(members->size()));
  return absl::OkStatus();
}

// SINTERSTORE, SUNIONSTORE, SDIFFSTORE destination key [key ...].
void SetOpStoreCommand(CommandContext& ctx, SetOp op) {
  const std::string dest[] = {ctx.Name(ctx.argv[1])};
  Sources sources{NamesOf(ctx, 2, ctx.argv.size()), {}};
  std::vector<std::string> names = sources.names;
  names.push_back(dest[0]);
  RunTyped(
      ctx, names,
      [&](TypedTxn& txn, Reply& reply) {
        return StoreBody(txn, dest[0], sources, op, reply);
      },
      dest);
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]: every argument is checked
// before any key is read.
void SInterCard(CommandContext& ctx) {
  const std::vector<std::string>& argv = ctx.argv;
  int64_t numkeys = 0;
  if (!types::ParseInt64(argv[1], &numkeys) || numkeys < 1) {
    return ctx.reply.Error("numkeys should be greater than 0");
  }
  if (numkeys > static_cast<int64_t>(argv.size()) - 2) {
    return ctx.reply.Error(
        "Number of keys can't be greater than number of args");
  }
  const size_t keys_end = 2 + static_cast<size_t>(numkeys);
  int64_t limit = 0;  // 0: no limit
  for (size_t j = keys_end; j < argv.size(); ++j) {
    if (IsWord(argv[j], "limit") && j + 1 < argv.size()) {
      if (!types::ParseInt64(argv[j + 1], &limit) || limit < 0) {
        return ctx.reply.Error("LIMIT can't be negative");
      }
      ++j;
    } else {
      return ctx.reply.Error(kSyntaxError);
    }
  }
  Sources sources{NamesOf(ctx, 2, keys_end), {}};
  RunTyped(ctx, sources.names,
           [&](TypedTxn& txn, Reply& reply) -> absl::Status {
             bool stop = false;
             absl::Status s = LookupSources(txn, sources, reply, &stop);
             if (!s.ok() || stop) return s;
             int64_t n = 0;
             s = ForEachInAll(txn, sources,
                              [&](absl::string_view) { return ++n != limit; });
             if (!s.ok()) return s;
             reply.Integer(n);
             return absl::OkStatus();
           });
}

// ---- SSCAN ----

// One SSCAN page of an existing set: the cursor to reply and the members.
absl::Status ScanPage(CommandContext& ctx, TypedTxn& txn,
                      const std::string& name, const TypedMeta& meta,
                      uint64_t cursor, const KeyScanOptions& options,
                      Reply& reply) {
  // Whole when Redis 7.0 would keep the set in an intset.
  bool whole = false;
  if (meta.size <= kMaxWholeScan) {
    const absl::StatusOr<const char*> encoding = TypedEncoding(txn, name, meta);
    if (!encoding.ok()) return encoding.status();
    whole = absl::string_view(*encoding) == "intset";
  }
  const std::string from =
      whole ? "" : KeyScanResumeAt(ctx.server, 'm', cursor, name);
  const int64_t examine = whole ? INT64_MAX : options.count;
  int64_t examined = 0;
  std::vector<std::string> page;
  std::optional<std::string> next;
  absl::Status s = txn.Scan(
      name, meta, "", from, false,
      [&](absl::string_view member, absl::string_view) {
        if (examined == examine) {
          next.emplace(member);
          return false;
        }
        ++examined;
        if (!options.pattern || model::GlobMatch(*options.pattern, member)) {
          page.emplace_back(member);
        }
        return true;
      });
  if (!s.ok()) return s;
  const int64_t next_cursor =
      next ? SaveKeyScanCursor(ctx.server, 'm', name, *next) : 0;
  reply.Array(2);
  reply.Bulk(absl::StrCat(next_cursor));
  ReplyArray(reply, page);
  return absl::OkStatus();
}

// SSCAN key cursor [MATCH pattern] [COUNT count]: the cursor is checked
// first, then the key, then the options (Redis's order).
void SScan(CommandContext& ctx) {
  uint64_t cursor = 0;
  if (!types::ParseScanCursor(ctx.argv[2], &cursor)) {
    return ctx.reply.Error("invalid cursor");
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kSet,
      [&](Reply& reply) {
        reply.Array(2);
        reply.Bulk("0");
        reply.Array(0);
      },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        KeyScanOptions options;
        if (!ParseKeyScanOptions(ctx.argv, reply, &options)) {
          return absl::OkStatus();
        }
        return ScanPage(ctx, txn, name, meta, cursor, options, reply);
      });
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(set, table) {
  table->Add("sadd", -3, SAdd, {"write", "denyoom", "fast"});
  table->Add("srem", -3, SRem, {"write", "fast"});
  table->Add("sismember", 3,
             [](CommandContext& ctx) { SIsMemberGeneric(ctx, false); },
             {"readonly", "fast"});
  table->Add("smismember", -3,
             [](CommandContext& ctx) { SIsMemberGeneric(ctx, true); },
             {"readonly", "fast"});
  table->Add("scard", 2, SCard, {"readonly", "fast"});
  table->Add("smove", 4, SMove, {"write", "fast"}, 1, 2, 1);
  // Whole-set reads, random picks (a walk, see the file comment) and set
  // algebra grow with the data.
  table->Add("smembers", 2, SMembers, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("spop", -2, SPop, {"write", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("srandmember", -2, SRandMember, {"readonly"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("sscan", -3, SScan, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  AddTypedGroup(table, {"sadd", "srem", "sismember", "smismember", "scard"});
  const struct {
    const char* name;
    const char* store;
    SetOp op;
  } kOps[] = {{"sinter", "sinterstore", SetOp::kInter},
              {"sunion", "sunionstore", SetOp::kUnion},
              {"sdiff", "sdiffstore", SetOp::kDiff}};
  for (const auto& op : kOps) {
    const SetOp which = op.op;
    table->Add(
        op.name, -2, [which](CommandContext& ctx) { SetOpCommand(ctx, which); },
        {"readonly"}, 1, -1, 1, RunsOn::kWorker);
    table->Add(
        op.store, -3,
        [which](CommandContext& ctx) { SetOpStoreCommand(ctx, which); },
        {"write", "denyoom"}, 1, -1, 1, RunsOn::kWorker);
  }
  table->Add("sintercard", -3, SInterCard, {"readonly", "movablekeys"}, 0, 0, 0,
             RunsOn::kWorker);
}

}  // namespace trackdb::resp
