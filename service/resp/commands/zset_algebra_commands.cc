// Sorted-set commands over several keys or that store a result:
// ZRANGESTORE, ZUNION, ZINTER, ZINTERCARD, ZDIFF, ZUNIONSTORE, ZINTERSTORE
// and ZDIFFSTORE. Each follows Redis 7.0's t_zset.c (zrangeGenericCommand,
// zunionInterDiffGenericCommand): the same checks in the same order, the
// same arithmetic in the same order (the sources sorted by size, as Redis
// sorts them, so that sums of scores round alike), so that replies are
// byte for byte Redis's.
//
// A source may be a typed zset, a typed set (each member scoring 1, as in
// Redis), or a GEO key, whose members score the geohashes geo_key.h gives
// them; ZRANGESTORE takes sorted sets only, as Redis does. A command reads
// all its keys in ONE transaction over every name it names, and a STORE
// writes its destination in the same one (typed_zset.h RunZsetStore),
// replacing whatever it held (a typed value, a string or a GEO key), as
// Redis replaces any value: the command is one atomic batch.
//
// Cost: every source is read whole (O(N) for a typed zset or set, O(N log
// N) for a GEO key), and the result is built in memory and sorted (O(M log
// M)); ZRANGESTORE reads only what its range needs (zset_range.h). All run
// on the worker pool.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/commands/typed_zset.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/zset_range.h"

namespace trackdb::resp {
namespace {

using storage::TypedTxn;

// ---- ZRANGESTORE ----

// The members `req` picks from the source `name` (nothing when missing).
absl::StatusOr<std::vector<types::ZEntry>> PickFromSource(
    CommandContext& ctx, TypedTxn& txn, const std::string& name,
    const types::ZsetSource& source, const types::RangeRequest& req) {
  if (source.kind == types::ZsetSource::kZset) {
    return types::PickRange(types::TypedZsetReader(txn, name, *source.meta),
                            req);
  }
  absl::StatusOr<std::vector<types::ZEntry>> all =
      types::LoadZsetSource(ctx.store(), txn, name, source);
  if (!all.ok()) return all.status();
  return types::PickRange(types::VectorZsetReader(*all), req);
}

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count].
void ZRangeStore(CommandContext& ctx) {
  types::RangeRequest req;
  if (!ParseRangeOptionsOrReply(ctx, 5, /*store=*/true, &req) ||
      !ParseRangeBoundsOrReply(ctx, 3, &req)) {
    return;
  }
  const std::string dst = ctx.Name(ctx.argv[1]);
  const std::string src = ctx.Name(ctx.argv[2]);
  RunZsetStore(
      ctx, {src, dst}, dst,
      [&](TypedTxn& txn, Reply& reply, ZsetResult* result) -> absl::Status {
        absl::StatusOr<std::optional<types::ZsetSource>> source =
            types::LookupZsetSource(ctx.store(), txn, src,
                                    /*sets_allowed=*/false);
        if (!source.ok()) return source.status();
        if (!*source) {
          reply.Error(kWrongTypeError);
          return absl::OkStatus();
        }
        absl::StatusOr<std::vector<types::ZEntry>> picked =
            PickFromSource(ctx, txn, src, **source, req);
        if (!picked.ok()) return picked.status();
        *result = *std::move(picked);
        return absl::OkStatus();
      });
}

// ---- ZUNION, ZINTER, ZDIFF and their STORE forms ----

enum class SetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// zunionInterDiffGenericCommand's arguments.
struct AlgebraArgs {
  SetOp op = SetOp::kUnion;
  std::vector<std::string> names;  // the sources' storage names
  std::vector<double> weights;     // one per source
  Aggregate aggregate = Aggregate::kSum;
  bool withscores = false;
  // ZINTERCARD: the result's size is the reply, up to `limit` (0: no
  // limit).
  bool cardinality_only = false;
  int64_t limit = 0;
  // The first bad option's error, replied after the sources' type checks
  // (Redis checks the keys first).
  std::optional<std::string> option_error;
};

// numkeys and the source keys; false once it has replied an error.
bool ParseSourcesOrReply(CommandContext& ctx, size_t numkeys_index,
                         AlgebraArgs* args) {
  const auto& argv = ctx.argv;
  int64_t setnum = 0;
  if (!types::ParseInt64(argv[numkeys_index], &setnum)) {
    ctx.reply.Error(kNotIntegerError);
    return false;
  }
  if (setnum < 1) {
    ctx.reply.Error(absl::StrCat("at least 1 input key is needed for '",
                                 ToLower(argv[0]), "' command"));
    return false;
  }
  if (setnum > static_cast<int64_t>(argv.size() - (numkeys_index + 1))) {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  for (int64_t i = 0; i < setnum; ++i) {
    args->names.push_back(ctx.Name(argv[numkeys_index + 1 + i]));
  }
  args->weights.assign(args->names.size(), 1.0);
  return true;
}

// Whether argv[j] is the option `word` with at least `needs` arguments
// from it on, the word included.
bool IsOptionWith(const std::vector<std::string>& argv, size_t j,
                  absl::string_view word, size_t needs) {
  return argv.size() - j >= needs && IsWord(argv[j], word);
}

// LIMIT's number.
void ParseLimitOption(const std::string& value, AlgebraArgs* args) {
  if (!types::ParseInt64(value, &args->limit) || args->limit < 0) {
    args->option_error = "LIMIT can't be negative";
  }
}

// WEIGHTS' numbers, one for each source, from argv[first] on.
void ParseWeightsOption(const std::vector<std::string>& argv, size_t first,
                        AlgebraArgs* args) {
  for (size_t i = 0; i < args->names.size(); ++i) {
    if (!types::ParseRedisDouble(argv[first + i], &args->weights[i])) {
      args->option_error = "weight value is not a float";
      return;
    }
  }
}

// AGGREGATE's SUM, MIN or MAX.
void ParseAggregateOption(const std::string& how, AlgebraArgs* args) {
  if (IsWord(how, "sum")) {
    args->aggregate = Aggregate::kSum;
  } else if (IsWord(how, "min")) {
    args->aggregate = Aggregate::kMin;
  } else if (IsWord(how, "max")) {
    args->aggregate = Aggregate::kMax;
  } else {
    args->option_error = kSyntaxError;
  }
}

// The options after the keys: WEIGHTS and AGGREGATE (not for ZDIFF or
// ZINTERCARD), WITHSCORES (not for a STORE or ZINTERCARD), LIMIT (for
// ZINTERCARD only). Records the first error in `args`.
void ParseAlgebraOptions(const std::vector<std::string>& argv, size_t j,
                         bool store, AlgebraArgs* args) {
  const size_t setnum = args->names.size();
  const bool card = args->cardinality_only;
  const bool weighted = args->op != SetOp::kDiff && !card;
  while (j < argv.size() && !args->option_error) {
    if (card && IsOptionWith(argv, j, "limit", 2)) {
      ParseLimitOption(argv[j + 1], args);
      j += 2;
    } else if (weighted && IsOptionWith(argv, j, "weights", setnum + 1)) {
      ParseWeightsOption(argv, j + 1, args);
      j += setnum + 1;
    } else if (weighted && IsOptionWith(argv, j, "aggregate", 2)) {
      ParseAggregateOption(argv[j + 1], args);
      j += 2;
    } else if (!store && !card && IsWord(argv[j], "withscores")) {
      args->withscores = true;
      ++j;
    } else {
      args->option_error = kSyntaxError;
    }
  }
}

// zunionInterAggregate.
void AggregateInto(double* target, double value, Aggregate how) {
  switch (how) {
    case Aggregate::kSum:
      *target += value;
      // +inf plus -inf: Redis makes it 0.
      if (std::isnan(*target)) *target = 0;
      break;
    case Aggregate::kMin:
      *target = value < *target ? value : *target;
      break;
    case Aggregate::kMax:
      *target = value > *target ? value : *target;
      break;
  }
}

struct LoadedSource {
  std::vector<types::ZEntry> entries;  // sorted-set order
  double weight = 1;
  absl::flat_hash_map<std::string, double> scores;  // filled when needed
};

void IndexScores(LoadedSource& src) {
  src.scores.reserve(src.entries.size());
  for (const types::ZEntry& e : src.entries) src.scores[e.member] = e.score;
}

std::vector<types::ZEntry> Union(const std::vector<LoadedSource>& srcs,
                                 Aggregate how) {
  absl::flat_hash_map<std::string, double> acc;
  for (const LoadedSource& src : srcs) {
    for (const types::ZEntry& e : src.entries) {
      double score = src.weight * e.score;
      if (std::isnan(score)) score = 0;
      auto [it, added] = acc.try_emplace(e.member, score);
      if (!added) AggregateInto(&it->second, score, how);
    }
  }
  std::vector<types::ZEntry> out;
  out.reserve(acc.size());
  for (auto& [member, score] : acc) out.push_back({member, score});
  return out;
}

std::vector<types::ZEntry> Inter(std::vector<LoadedSource>& srcs,
                                 Aggregate how) {
  for (size_t j = 1; j < srcs.size(); ++j) IndexScores(srcs[j]);
  std::vector<types::ZEntry> out;
  for (const types::ZEntry& e : srcs[0].entries) {
    double score = srcs[0].weight * e.score;
    if (std::isnan(score)) score = 0;
    size_t j = 1;
    for (; j < srcs.size(); ++j) {
      auto it = srcs[j].scores.find(e.member);
      if (it == srcs[j].scores.end()) break;
      AggregateInto(&score, it->second * srcs[j].weight, how);
    }
    if (j == srcs.size()) out.push_back({e.member, score});
  }
  return out;
}

std::vector<types::ZEntry> Diff(std::vector<LoadedSource>& srcs) {
  for (size_t j = 1; j < srcs.size(); ++j) IndexScores(srcs[j]);
  std::vector<types::ZEntry> out;
  for (const types::ZEntry& e : srcs[0].entries) {
    if (std::none_of(srcs.begin() + 1, srcs.end(), [&](const LoadedSource& s) {
          return s.scores.contains(e.member);
        })) {
      out.push_back(e);
    }
  }
  return out;
}

// The result of `args.op` over `srcs`, in sorted-set order. Union and
// intersection take the sources from the smallest up, as Redis's qsort
// (glibc's, a stable merge sort) orders them: the order the scores of one
// member are combined in.
std::vector<types::ZEntry> Combine(std::vector<LoadedSource>& srcs,
                                   const AlgebraArgs& args) {
  std::vector<types::ZEntry> out;
  if (args.op == SetOp::kDiff) {
    out = Diff(srcs);
  } else {
    std::stable_sort(srcs.begin(), srcs.end(),
                     [](const LoadedSource& a, const LoadedSource& b) {
                       return a.entries.size() < b.entries.size();
                     });
    out = args.op == SetOp::kUnion ? Union(srcs, args.aggregate)
                                   : Inter(srcs, args.aggregate);
  }
  std::sort(out.begin(), out.end(), types::ZEntryLess);
  return out;
}

// In the transaction: the sources' type checks, the options' error, then
// the sources read and combined. nullopt once it has replied an error.
absl::StatusOr<ZsetResult> ComputeAlgebra(CommandContext& ctx, TypedTxn& txn,
                                          const AlgebraArgs& args,
                                          Reply& reply) {
  std::vector<types::ZsetSource> sources;
  for (const std::string& name : args.names) {
    absl::StatusOr<std::optional<types::ZsetSource>> source =
        types::LookupZsetSource(ctx.store(), txn, name, /*sets_allowed=*/true);
    if (!source.ok()) return source.status();
    if (!*source) {
      reply.Error(kWrongTypeError);
      return ZsetResult();
    }
    sources.push_back(**source);
  }
  if (args.option_error) {
    reply.Error(*args.option_error);
    return ZsetResult();
  }
  std::vector<LoadedSource> loaded(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    absl::StatusOr<std::vector<types::ZEntry>> entries =
        types::LoadZsetSource(ctx.store(), txn, args.names[i], sources[i]);
    if (!entries.ok()) return entries.status();
    loaded[i].entries = *std::move(entries);
    loaded[i].weight = args.weights[i];
  }
  return ZsetResult(Combine(loaded, args));
}

// Replies the result of `args` (read in one transaction): its members, or
// for ZINTERCARD its size.
void ZAlgebraReply(CommandContext& ctx, const AlgebraArgs& args) {
  RunTyped(ctx, args.names, [&](TypedTxn& txn, Reply& reply) -> absl::Status {
    absl::StatusOr<ZsetResult> result = ComputeAlgebra(ctx, txn, args, reply);
    if (!result.ok()) return result.status();
    if (!*result) return absl::OkStatus();  // replied an error
    if (!args.cardinality_only) {
      EmitEntries(reply, **result, args.withscores);
      return absl::OkStatus();
    }
    const int64_t size = static_cast<int64_t>((*result)->size());
    reply.Integer(args.limit > 0 ? std::min(size, args.limit) : size);
    return absl::OkStatus();
  });
}

// ZUNION, ZINTER, ZDIFF numkeys key [key ...] [options] [WITHSCORES].
void ZAlgebra(CommandContext& ctx, SetOp op) {
  AlgebraArgs args;
  args.op = op;
  if (!ParseSourcesOrReply(ctx, 1, &args)) return;
  ParseAlgebraOptions(ctx.argv, 2 + args.names.size(), /*store=*/false, &args);
  ZAlgebraReply(ctx, args);
}

// ZINTERCARD numkeys key [key ...] [LIMIT limit].
void ZInterCard(CommandContext& ctx) {
  AlgebraArgs args;
  args.op = SetOp::kInter;
  args.cardinality_only = true;
  if (!ParseSourcesOrReply(ctx, 1, &args)) return;
  ParseAlgebraOptions(ctx.argv, 2 + args.names.size(), /*store=*/false, &args);
  ZAlgebraReply(ctx, args);
}

// ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE dst numkeys key [key ...] [options].
void ZAlgebraStore(CommandContext& ctx, SetOp op) {
  AlgebraArgs args;
  args.op = op;
  if (!ParseSourcesOrReply(ctx, 2, &args)) return;
  ParseAlgebraOptions(ctx.argv, 3 + args.names.size(), /*store=*/true, &args);
  const std::string dst = ctx.Name(ctx.argv[1]);
  std::vector<std::string> names = args.names;
  names.push_back(dst);
  RunZsetStore(
      ctx, names, dst,
      [&](TypedTxn& txn, Reply& reply, ZsetResult* result) -> absl::Status {
        absl::StatusOr<ZsetResult> computed =
            ComputeAlgebra(ctx, txn, args, reply);
        if (!computed.ok()) return computed.status();
        *result = *std::move(computed);
        return absl::OkStatus();
      });
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(zset_algebra, table) {
  table->Add("zrangestore", -5, ZRangeStore, {"write", "denyoom"}, 1, 2, 1,
             RunsOn::kWorker);
  table->Add(
      "zunion", -3, [](CommandContext& ctx) { ZAlgebra(ctx, SetOp::kUnion); },
      {"readonly", "movablekeys"}, 0, 0, 0, RunsOn::kWorker);
  table->Add(
      "zinter", -3, [](CommandContext& ctx) { ZAlgebra(ctx, SetOp::kInter); },
      {"readonly", "movablekeys"}, 0, 0, 0, RunsOn::kWorker);
  table->Add("zintercard", -3, ZInterCard, {"readonly", "movablekeys"}, 0, 0, 0,
             RunsOn::kWorker);
  table->Add(
      "zdiff", -3, [](CommandContext& ctx) { ZAlgebra(ctx, SetOp::kDiff); },
      {"readonly", "movablekeys"}, 0, 0, 0, RunsOn::kWorker);
  table->Add(
      "zunionstore", -4,
      [](CommandContext& ctx) { ZAlgebraStore(ctx, SetOp::kUnion); },
      {"write", "denyoom", "movablekeys"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zinterstore", -4,
      [](CommandContext& ctx) { ZAlgebraStore(ctx, SetOp::kInter); },
      {"write", "denyoom", "movablekeys"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zdiffstore", -4,
      [](CommandContext& ctx) { ZAlgebraStore(ctx, SetOp::kDiff); },
      {"write", "denyoom", "movablekeys"}, 1, 1, 1, RunsOn::kWorker);
}

}  // namespace trackdb::resp
