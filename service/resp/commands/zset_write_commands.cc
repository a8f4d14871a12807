// Sorted-set commands that write: ZADD, ZINCRBY, ZPOPMIN, ZPOPMAX, ZMPOP,
// the blocking BZPOPMIN, BZPOPMAX and BZMPOP (which wait as
// blocking_pop.h says), ZREMRANGEBYSCORE, ZREMRANGEBYRANK and
// ZREMRANGEBYLEX. Each follows Redis
// 7.0's t_zset.c: the same checks in the same order, so that replies,
// errors included, are byte for byte Redis's (ZREM, and the reads, are in
// zset_commands.cc).
//
// On a typed zset (typed_zset.h) each command is one transaction
// (RunTyped): it reads, then stages its writes, and they commit in one
// batch. ZADD and ZINCRBY are point writes; ZPOPMIN/ZPOPMAX walk from the
// end they pop (O(count)); ZREMRANGEBYSCORE seeks to its min
// (O(log N + removed)), ZREMRANGEBYRANK walks from the nearer end (O(rank
// distance + removed)) and ZREMRANGEBYLEX as ZRANGE BYLEX does
// (zset_range.h).
//
// On a GEO key (geo_key.h) a member's score is the geohash of its position:
// ZADD and ZINCRBY write each member's fix at the position its new score
// decodes to (geo_zadd.h). ZPOPMIN,
// ZPOPMAX and ZREMRANGEBY* read and sort the collection (O(N log N)) and
// delete each member's entity as ZREM does, history included, one entity at
// a time (not atomically).
//
// Scores are stored as Redis keeps them in a set of up to 128 members,
// where -0 is 0: ZSCORE of a member added with score -0 is "0", as Redis's
// listpack answers (its skiplist, for bigger sets, would keep "-0").
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "model/clock.h"
#include "service/resp/commands/blocking_pop.h"
#include "service/resp/commands/geo_zadd.h"
#include "service/resp/commands/mpop_args.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/commands/typed_zset.h"
#include "service/resp/commands/zadd_args.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/key_type.h"
#include "types/typed_key.h"
#include "types/zset_range.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

// ---- ZADD, ZINCRBY ----

// zsetAdd for one member: what happened, and its score after.
absl::StatusOr<ZAddOutcome> ZAddOne(types::ZsetWriter& zset,
                                    const ZAddRequest& req,
                                    const std::string& member, double score,
                                    double* newscore) {
  absl::StatusOr<std::optional<double>> cur = zset.Score(member);
  if (!cur.ok()) return cur.status();
  const ZAddOutcome outcome = ZAddDecide(req, *cur, score, newscore);
  if (outcome == ZAddOutcome::kAdded || outcome == ZAddOutcome::kUpdated) {
    zset.Set(member, *cur, *newscore);
  }
  return outcome;
}

// ZADD's loop over its pairs, then its reply. Only INCR can meet NaN, and
// INCR takes one pair: a NaN is replied before anything is staged.
absl::Status ZAddPairs(CommandContext& ctx, TypedTxn& txn,
                       const std::string& name, const TypedMeta& meta,
                       const ZAddRequest& req, Reply& reply) {
  types::ZsetWriter zset(txn, name, meta);
  int64_t added = 0, updated = 0, processed = 0;
  double score = 0;
  for (size_t j = 0; j < req.scores.size(); ++j) {
    const std::string& member = ctx.argv[req.scoreidx + 2 * j + 1];
    absl::StatusOr<ZAddOutcome> outcome =
        ZAddOne(zset, req, member, req.scores[j], &score);
    if (!outcome.ok()) return outcome.status();
    if (*outcome == ZAddOutcome::kNan) {
      reply.Error("resulting score is not a number (NaN)");
      return absl::OkStatus();
    }
    if (*outcome == ZAddOutcome::kAdded) ++added;
    if (*outcome == ZAddOutcome::kUpdated) ++updated;
    if (*outcome != ZAddOutcome::kNop) ++processed;
  }
  zset.Finish();
  if (!req.incr) {
    reply.Integer(req.ch ? added + updated : added);
  } else if (processed > 0) {
    reply.Double(score);
  } else {
    reply.Null();
  }
  return absl::OkStatus();
}

// zaddGenericCommand; ZINCRBY is ZADD with INCR. A GEO key takes the
// scores as positions (geo_zadd.h).
void ZAddGeneric(CommandContext& ctx, bool incr) {
  ZAddRequest req;
  req.incr = incr;
  if (!ParseZAddOrReply(ctx, &req)) return;
  const std::string name = ctx.Name(ctx.argv[1]);
  bool added = false;
  const bool typed = RunTypedOrFallBack(
      ctx, {name}, [&](TypedTxn& txn, Reply& reply) -> absl::Status {
        absl::StatusOr<types::TypedKey> key =
            types::LookupTyped(txn, name, ValueType::kZset);
        if (!key.ok()) return key.status();
        if (key->wrong_type) {
          absl::StatusOr<bool> geo = types::IsGeoKey(ctx.store(), name);
          if (!geo.ok()) return geo.status();
          if (*geo) return FallBack();
          reply.Error(kWrongTypeError);
          return absl::OkStatus();
        }
        if (!key->meta) {
          if (req.xx) {  // nothing to update, and XX adds nothing
            req.incr ? reply.Null() : reply.Integer(0);
            return absl::OkStatus();
          }
          key->meta = txn.Create(ValueType::kZset);
        }
        added = true;
        return ZAddPairs(ctx, txn, name, *key->meta, req, reply);
      });
  if (!typed) added = ZAddToGeoKey(ctx, name, req);
  // Wakes BZPOPMIN and the others (a ZADD that changed nothing wakes them
  // for nothing: they try again and wait on).
  if (added) WakePoppers(ctx, name);
}

// ---- ZPOPMIN, ZPOPMAX ----

// genericZpopCommand's reply: member-score pairs, flat, or each its own
// array when `nested` (RESP3 with a count).
void ReplyPopped(Reply& reply, const std::vector<types::ZEntry>& popped,
                 bool nested) {
  reply.Array(nested ? popped.size() : 2 * popped.size());
  for (const types::ZEntry& e : popped) {
    if (nested) reply.Array(2);
    reply.Bulk(e.member);
    reply.Double(e.score);
  }
}

// The members of a GEO key that `req` picks, deleted with their entities
// (and history); those another client deleted first are left out.
absl::StatusOr<std::vector<types::ZEntry>> RemoveFromGeoKey(
    CommandContext& ctx, const std::string& name,
    const types::RangeRequest& req) {
  absl::StatusOr<std::vector<types::ScoredMember>> members =
      types::LoadSortedMembers(ctx.store(), name);
  if (!members.ok()) return members.status();
  const std::vector<types::ZEntry> all = types::GeoEntries(*members);
  absl::StatusOr<std::vector<types::ZEntry>> picked =
      types::PickRange(types::VectorZsetReader(all), req);
  if (!picked.ok()) return picked.status();
  std::vector<types::ZEntry> removed;
  for (const types::ZEntry& e : *picked) {
    absl::StatusOr<bool> had = ctx.store().DeleteEntity(name, e.member);
    if (!had.ok()) return had.status();
    if (*had) removed.push_back(e);
  }
  return removed;
}

// The members of a typed zset that `req` picks, read, then removed.
absl::StatusOr<std::vector<types::ZEntry>> RemoveFromTypedZset(
    TypedTxn& txn, const std::string& name, const TypedMeta& meta,
    const types::RangeRequest& req) {
  absl::StatusOr<std::vector<types::ZEntry>> picked =
      types::PickRange(types::TypedZsetReader(txn, name, meta), req);
  if (!picked.ok()) return picked.status();
  types::ZsetWriter zset(txn, name, meta);
  for (const types::ZEntry& e : *picked) zset.Remove(e.member, e.score);
  // ZPOPMIN and ZREMRANGEBYRANK 0 n remove the lowest members.
  if (!picked->empty() && req.type == types::RangeType::kRank && !req.reverse &&
      req.start == 0) {
    zset.RemovedLowest(picked->back().score, picked->back().member);
  }
  zset.Finish();
  return picked;
}

// Removes what `req` picks from argv[1] (missing: `absent` replies), and
// replies with `done`.
void RemoveRange(
    CommandContext& ctx, const types::RangeRequest& req,
    const std::function<void(Reply&)>& absent,
    const std::function<void(Reply&, std::vector<types::ZEntry>&)>& done) {
  const std::string name = ctx.Name(ctx.argv[1]);
  // A sorted set or no key, in one transaction (a pipelined run of pops
  // is one); anything else falls back to the checks below.
  const bool served = RunTypedOrFallBack(
      ctx, {name}, [&](TypedTxn& txn, Reply& reply) -> absl::Status {
        absl::StatusOr<types::TypedKey> key =
            types::LookupTyped(txn, name, ValueType::kZset);
        if (!key.ok()) return key.status();
        if (key->wrong_type) return FallBack();
        if (!key->meta) {
          absent(reply);
          return absl::OkStatus();
        }
        absl::StatusOr<std::vector<types::ZEntry>> removed =
            RemoveFromTypedZset(txn, name, *key->meta, req);
        if (!removed.ok()) return removed.status();
        done(reply, *removed);
        return absl::OkStatus();
      });
  if (served) return;
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone) return absent(ctx.reply);
  if (*kind == types::ZsetKind::kGeo) {
    absl::StatusOr<std::vector<types::ZEntry>> removed =
        RemoveFromGeoKey(ctx, name, req);
    if (!ctx.Check(removed.status())) return;
    return done(ctx.reply, *removed);
  }
  RunOnTypedZset(ctx, name, absent,
                 [&](TypedTxn& txn, const std::string&, const TypedMeta& meta,
                     Reply& reply) -> absl::Status {
                   absl::StatusOr<std::vector<types::ZEntry>> removed =
                       RemoveFromTypedZset(txn, name, meta, req);
                   if (!removed.ok()) return removed.status();
                   done(reply, *removed);
                   return absl::OkStatus();
                 });
}

// zpopMinMaxCommand: ZPOPMIN|ZPOPMAX key [count].
void ZPopGeneric(CommandContext& ctx, bool max) {
  const auto& argv = ctx.argv;
  if (argv.size() > 3) return ctx.reply.Error(kSyntaxError);
  int64_t count = 1;
  if (argv.size() == 3 && (!types::ParseInt64(argv[2], &count) || count < 0)) {
    return ctx.reply.Error("value is out of range, must be positive");
  }
  const bool nested = ctx.reply.protocol() > 2 && argv.size() == 3;
  auto empty = [](Reply& reply) { reply.Array(0); };
  if (count == 0) {
    // Redis checks the key's type first.
    const std::optional<types::ZsetKind> kind =
        ZsetKindOrReply(ctx, ctx.Name(argv[1]));
    if (kind) empty(ctx.reply);
    return;
  }
  RemoveRange(ctx, types::RankRange(0, count - 1, max), empty,
              [&](Reply& reply, std::vector<types::ZEntry>& popped) {
                ReplyPopped(reply, popped, nested);
              });
}

// ---- ZMPOP, BZMPOP, BZPOPMIN, BZPOPMAX ----

// How a multi-key pop replies what it popped from the key argv names
// `key`.
using PoppedReply = std::function<void(Reply& reply, const std::string& key,
                                       std::vector<types::ZEntry>& popped)>;

// What a multi-key pop does at a key of another type than a typed zset.
enum class OtherTypeStep { kSkip, kPopGeoKey, kWrongType };

// A GEO key the pop is first in line for is popped (after the
// transaction), another is skipped; any other type is WRONGTYPE on a
// `first` try and skipped on later ones.
absl::StatusOr<OtherTypeStep> StepAtOtherType(storage::TrackStore& store,
                                              const std::string& name,
                                              bool mine, bool first) {
  absl::StatusOr<bool> geo = types::IsGeoKey(store, name);
  if (!geo.ok()) return geo.status();
  if (*geo && mine) return OtherTypeStep::kPopGeoKey;
  if (*geo || !first) return OtherTypeStep::kSkip;
  return OtherTypeStep::kWrongType;
}

// A multi-key pop's walk over its keys, inside its transaction.
struct MultiPop {
  CommandContext& ctx;
  const std::vector<std::string>& names;  // storage names
  size_t first_key;                       // argv index of names[0]
  bool first;
  const PopWaiters::Ticket* ticket;
  const PoppedReply& done;
  const types::RangeRequest& req;
  Reply& scratch;
  std::optional<size_t> geo_at;  // a GEO key to pop after the transaction
};

// Pops from the first key that holds a typed zset, replying into
// `pop.scratch`, unless a key before it stops the walk (see PopFirstZset).
absl::Status PopFirstTypedZset(TypedTxn& txn, MultiPop& pop) {
  for (size_t j = 0; j < pop.names.size(); ++j) {
    const std::string& name = pop.names[j];
    absl::StatusOr<types::TypedKey> key =
        types::LookupTyped(txn, name, ValueType::kZset);
    if (!key.ok()) return key.status();
    const bool mine = pop.ticket == nullptr || pop.ticket->First(name);
    if (key->wrong_type) {
      absl::StatusOr<OtherTypeStep> step =
          StepAtOtherType(pop.ctx.store(), name, mine, pop.first);
      if (!step.ok()) return step.status();
      if (*step == OtherTypeStep::kSkip) continue;
      if (*step == OtherTypeStep::kPopGeoKey) {
        pop.geo_at = j;
      } else {
        pop.scratch.Error(kWrongTypeError);
      }
      return absl::OkStatus();
    }
    if (!key->meta || !mine) continue;
    absl::StatusOr<std::vector<types::ZEntry>> popped =
        RemoveFromTypedZset(txn, name, *key->meta, pop.req);
    if (!popped.ok()) return popped.status();
    pop.done(pop.scratch, pop.ctx.argv[pop.first_key + j], *popped);
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

// A pop of up to `count` members (the lowest, or with `max` the highest)
// from the first of `names` (storage names of the keys argv holds from
// `first_key`) that holds a sorted set, where `ticket` (if any) is first
// in line, replied with `done`. A typed zset pops in one transaction with
// the reads of the keys before it; a GEO key pops as ZPOPMIN does on one.
// A key of another type before it replies WRONGTYPE on a `first` try, and
// is skipped on later ones. False when nothing was popped or replied.
bool PopFirstZset(CommandContext& ctx, const std::vector<std::string>& names,
                  size_t first_key, bool max, int64_t count, bool first,
                  const PopWaiters::Ticket* ticket, const PoppedReply& done) {
  const types::RangeRequest req = types::RankRange(0, count - 1, max);
  std::string out;
  Reply scratch(&out, ctx.reply.protocol());
  MultiPop pop{ctx, names, first_key, first, ticket, done, req, scratch, {}};
  auto in_txn = [&](TypedTxn& txn) { return PopFirstTypedZset(txn, pop); };
  if (!ctx.Check(ctx.store().UpdateTyped(names, NowMs(), in_txn))) return true;
  if (pop.geo_at) {
    const size_t at = *pop.geo_at;
    absl::StatusOr<std::vector<types::ZEntry>> popped =
        RemoveFromGeoKey(ctx, names[at], req);
    if (!ctx.Check(popped.status())) return true;
    if (!popped->empty()) done(scratch, ctx.argv[first_key + at], *popped);
  }
  ctx.reply.Encoded(out);
  return !out.empty();
}

// ZMPOP's and BZMPOP's reply: [key, [[member, score], ...]].
void ReplyKeyAndPairs(Reply& reply, const std::string& key,
                      std::vector<types::ZEntry>& popped) {
  reply.Array(2);
  reply.Bulk(key);
  ReplyPopped(reply, popped, /*nested=*/true);
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count], and with `blocking`
// BZMPOP timeout numkeys ... (its timeout read after the rest, as Redis
// reads it).
void ZMPopGeneric(CommandContext& ctx, bool blocking) {
  MpopArgs args;
  bool max = false;
  auto is_end = [&](const std::string& arg) {
    max = IsWord(arg, "max");
    return max || IsWord(arg, "min");
  };
  if (!ParseMpopArgsOrReply(ctx, blocking ? 2 : 1, is_end, &args)) return;
  std::optional<absl::Time> deadline = absl::InfinitePast();
  if (blocking) deadline = ParseDeadlineOrReply(ctx, ctx.argv[1]);
  if (!deadline) return;
  std::vector<std::string> names;
  for (size_t j = 0; j < args.keys; ++j) {
    names.push_back(ctx.Name(ctx.argv[args.first_key + j]));
  }
  if (!blocking) {
    if (!PopFirstZset(ctx, names, args.first_key, max, args.count, true,
                      nullptr, ReplyKeyAndPairs)) {
      ctx.reply.NullArray();
    }
    return;
  }
  BlockUntilServed(ctx, PopWaiters::Kind::kZset, names, *deadline,
                   [&](Reply&, bool first, const PopWaiters::Ticket& ticket) {
                     return PopFirstZset(ctx, names, args.first_key, max,
                                         args.count, first, &ticket,
                                         ReplyKeyAndPairs);
                   });
}

// BZPOPMIN and BZPOPMAX: key [key ...] timeout; the reply is [key, member,
// score].
void BZPopGeneric(CommandContext& ctx, bool max) {
  const std::optional<absl::Time> deadline =
      ParseDeadlineOrReply(ctx, ctx.argv.back());
  if (!deadline) return;
  std::vector<std::string> names;
  for (size_t j = 1; j + 1 < ctx.argv.size(); ++j) {
    names.push_back(ctx.Name(ctx.argv[j]));
  }
  auto reply_one = [](Reply& reply, const std::string& key,
                      std::vector<types::ZEntry>& popped) {
    reply.Array(3);
    reply.Bulk(key);
    reply.Bulk(popped[0].member);
    reply.Double(popped[0].score);
  };
  BlockUntilServed(ctx, PopWaiters::Kind::kZset, names, *deadline,
                   [&](Reply&, bool first, const PopWaiters::Ticket& ticket) {
                     return PopFirstZset(ctx, names, 1, max, 1, first, &ticket,
                                         reply_one);
                   });
}

// zremrangeGenericCommand: ZREMRANGEBY{SCORE,RANK,LEX} key min max.
void ZRemRangeGeneric(CommandContext& ctx, types::RangeType type) {
  types::RangeRequest req;
  req.type = type;
  req.direction = types::Direction::kForward;
  if (!ParseRangeBoundsOrReply(ctx, 2, &req)) return;
  auto zero = [](Reply& reply) { reply.Integer(0); };
  RemoveRange(ctx, req, zero,
              [](Reply& reply, std::vector<types::ZEntry>& removed) {
                reply.Integer(static_cast<int64_t>(removed.size()));
              });
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(zset_write, table) {
  table->Add("zadd", -4, [](CommandContext& ctx) { ZAddGeneric(ctx, false); },
             {"write", "denyoom", "fast"});
  table->Add("zincrby", 4, [](CommandContext& ctx) { ZAddGeneric(ctx, true); },
             {"write", "denyoom", "fast"});
  table->Add(
      "zpopmin", -2, [](CommandContext& ctx) { ZPopGeneric(ctx, false); },
      {"write", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zpopmax", -2, [](CommandContext& ctx) { ZPopGeneric(ctx, true); },
      {"write", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zremrangebyscore", 4,
      [](CommandContext& ctx) {
        ZRemRangeGeneric(ctx, types::RangeType::kScore);
      },
      {"write"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zremrangebyrank", 4,
      [](CommandContext& ctx) {
        ZRemRangeGeneric(ctx, types::RangeType::kRank);
      },
      {"write"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zremrangebylex", 4,
      [](CommandContext& ctx) {
        ZRemRangeGeneric(ctx, types::RangeType::kLex);
      },
      {"write"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zmpop", -4, [](CommandContext& ctx) { ZMPopGeneric(ctx, false); },
      {"write", "movablekeys"}, 0, 0, 0, RunsOn::kWorker);
  table->Add(
      "bzmpop", -5, [](CommandContext& ctx) { ZMPopGeneric(ctx, true); },
      {"write", "blocking", "movablekeys"}, 0, 0, 0, RunsOn::kWorker);
  // A try of BZPOPMIN or BZPOPMAX pops one member, as ZPOPMIN does on the
  // loop; a wait holds no thread (blocking_pop.h).
  table->Add(
      "bzpopmin", -3, [](CommandContext& ctx) { BZPopGeneric(ctx, false); },
      {"write", "noscript", "blocking", "fast"}, 1, -2, 1);
  table->Add(
      "bzpopmax", -3, [](CommandContext& ctx) { BZPopGeneric(ctx, true); },
      {"write", "noscript", "blocking", "fast"}, 1, -2, 1);
  table->RunOnLoopWhen("zpopmin", SmallPopCount);
  table->RunOnLoopWhen("zpopmax", SmallPopCount);
  AddTypedGroup(table, {"zadd", "zincrby", "zpopmin", "zpopmax"});
}

}  // namespace trackdb::resp
