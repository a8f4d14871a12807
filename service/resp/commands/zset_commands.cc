// Sorted-set commands that read, and ZREM: ZCARD, ZSCORE, ZMSCORE, ZRANK,
// ZREVRANK, ZCOUNT, ZLEXCOUNT, ZREM, ZRANGE with its older forms (ZREVRANGE,
// Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX), ZRANDMEMBER and ZSCAN, on both
// kinds of Redis sorted set trackdb keeps:
//
// - a typed zset (typed_zset.h), written by ZADD and the other writing
//   commands (zset_write_commands.cc, zset_algebra_commands.cc);
// - a GEO key (geo_key.h), a trackdb collection whose members' scores are
//   the 52-bit geohashes Redis would store for their positions
//   (index::RedisGeoMemberScore).
//
// Members are ordered as a Redis sorted set orders them: by score, then by
// member bytes. Replies, errors included, are Redis 7.0's byte for byte.
//
// Cost on a typed zset: ZSCORE, ZMSCORE, ZCARD and ZREM are point reads
// and writes. There is no index by rank: ZRANK walks the members from the
// lowest score up to the member (O(rank)), ZREVRANK from the highest; a
// ZRANGE by rank walks from the nearer end to the range (O(distance +
// range)). ZCOUNT and ZRANGE BYSCORE seek to the near bound (O(log N +
// range)); ZLEXCOUNT and BYLEX seek likewise when all scores are equal (the
// only case Redis defines) and walks from the near end otherwise
// (zset_range.h). ZRANDMEMBER walks the whole set once (O(N)).
//
// Cost on a GEO key: trackdb has no score-ordered index of a collection.
// ZSCORE, ZMSCORE and ZCARD are point reads; ZRANK and ZCOUNT read the
// whole collection (O(N)); ZRANGE, ZRANDMEMBER and ZSCAN read and sort it
// (O(N log N)). ZREM deletes the member's entity with
// TrackStore::DeleteEntity: its whole history goes with it, not only its
// latest position. Members without a Redis score (see geo_key.h) are left
// out of every reply here except ZCARD and ZREM.
//
// ZSCAN: a zset of up to 128 members of up to 64 bytes each (Redis's
// zset-max-listpack-entries and -value, object_encoding.h) is replied
// whole with cursor 0, scores printed as Redis's listpack keeps them
// (integers as integers), as Redis does. A bigger one is paged in member byte
// order, COUNT members a call, scores printed "%.17g" as Redis prints its
// skiplist's; the cursor is a number the server keeps (ServerState::SaveCursor)
// mapping to the key and the member to resume at; a cursor it does not know
// starts again from the first member, which SCAN's guarantees allow. (Redis
// keeps a set that once grew past those limits in its skiplist encoding;
// trackdb goes by the set's size now.) A GEO key is replied whole with cursor
// 0, whatever its size.
//
// On purpose unlike Redis: ZRANDMEMBER with a negative count (members may
// repeat) refuses more than kMaxRepeatedPicks picks with "value is out of
// range", where Redis builds a reply of any size: the reply is built in
// memory before it is sent, and one command must not be able to exhaust
// the server's.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "index/redis_geo_search.h"
#include "model/glob.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/commands/typed_zset.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/format/typed_codec.h"
#include "types/codec/object_encoding.h"
#include "types/codec/redis_number.h"
#include "types/geo_key.h"
#include "types/zset_range.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;

void ReplyZero(Reply& reply) { reply.Integer(0); }
void ReplyNull(Reply& reply) { reply.Null(); }
void ReplyEmptyArray(Reply& reply) { reply.Array(0); }

void ZCard(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone) return ctx.reply.Integer(0);
  if (*kind == types::ZsetKind::kGeo) {
    absl::StatusOr<int64_t> n = ctx.store().CollectionSize(name);
    if (!ctx.Check(n.status())) return;
    return ctx.reply.Integer(*n);
  }
  RunOnTypedZset(
      ctx, name, ReplyZero,
      [](TypedTxn&, const std::string&, const TypedMeta& meta, Reply& reply) {
        reply.Integer(static_cast<int64_t>(meta.size));
        return absl::OkStatus();
      });
}

// The scores of `members` in `name`'s typed zset, as ZSCORE and ZMSCORE
// reply them.
absl::Status ReplyTypedScores(TypedTxn& txn, const std::string& name,
                              const TypedMeta& meta,
                              absl::Span<const std::string> members,
                              bool as_array, Reply& reply) {
  const types::TypedZsetReader zset(txn, name, meta);
  if (as_array) reply.Array(members.size());
  for (const std::string& member : members) {
    absl::StatusOr<std::optional<double>> score = zset.Score(member);
    if (!score.ok()) return score.status();
    *score ? reply.Double(**score) : reply.Null();
  }
  return absl::OkStatus();
}

// ZSCORE (`as_array` false: argv[2] only) and ZMSCORE.
void ZScoreGeneric(CommandContext& ctx, bool as_array) {
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::vector<std::string> members(ctx.argv.begin() + 2, ctx.argv.end());
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kTyped) {
    return RunOnTypedZset(
        ctx, name,
        [&](Reply& reply) {
          if (as_array) reply.Array(members.size());
          for (size_t i = 0; i < members.size(); ++i) reply.Null();
        },
        [&](TypedTxn& txn, const std::string&, const TypedMeta& meta,
            Reply& reply) {
          return ReplyTypedScores(txn, name, meta, members, as_array, reply);
        });
  }
  std::vector<std::optional<uint64_t>> scores(members.size());
  if (*kind == types::ZsetKind::kGeo) {
    auto found = types::MemberScores(ctx.store(), name, members);
    if (!ctx.Check(found.status())) return;
    scores = *std::move(found);
  }
  if (as_array) ctx.reply.Array(scores.size());
  for (const std::optional<uint64_t>& score : scores) {
    score ? ctx.reply.Double(static_cast<double>(*score)) : ctx.reply.Null();
  }
}

void ZRankOfGeoKey(CommandContext& ctx, const std::string& name, bool reverse) {
  auto scores = types::MemberScores(ctx.store(), name, {ctx.argv[2]});
  if (!ctx.Check(scores.status())) return;
  if (!(*scores)[0]) return ctx.reply.Null();
  const types::ScoredMember target{ctx.argv[2], *(*scores)[0]};
  // Count the members before it and after it in one pass.
  int64_t before = 0, after = 0;
  absl::Status s = ctx.store().ScanLatest(name, [&](const model::TrackPoint&
                                                        p) {
    std::optional<uint64_t> score = index::RedisGeoMemberScore({p.lat, p.lon});
    if (!score) return true;
    const types::ScoredMember m{p.entity, *score};
    if (types::ZsetLess(m, target)) ++before;
    if (types::ZsetLess(target, m)) ++after;
    return true;
  });
  if (!ctx.Check(s)) return;
  ctx.reply.Integer(reverse ? after : before);
}

void ZRankGeneric(CommandContext& ctx, bool reverse) {
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone) return ctx.reply.Null();
  if (*kind == types::ZsetKind::kGeo) return ZRankOfGeoKey(ctx, name, reverse);
  const std::string& member = ctx.argv[2];
  RunOnTypedZset(ctx, name, ReplyNull,
                 [&](TypedTxn& txn, const std::string&, const TypedMeta& meta,
                     Reply& reply) -> absl::Status {
                   const types::TypedZsetReader zset(txn, name, meta);
                   absl::StatusOr<std::optional<double>> score =
                       zset.Score(member);
                   if (!score.ok()) return score.status();
                   if (!*score) {
                     reply.Null();
                     return absl::OkStatus();
                   }
                   // No index by rank: count the members walked past (O(rank)).
                   int64_t rank = 0;
                   absl::Status s = zset.Walk(reverse, std::nullopt,
                                              [&](const types::ZEntry& e) {
                                                if (e.member == member)
                                                  return false;
                                                ++rank;
                                                return true;
                                              });
                   if (!s.ok()) return s;
                   reply.Integer(rank);
                   return absl::OkStatus();
                 });
}

void ZRem(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone) return ctx.reply.Integer(0);
  const std::vector<std::string> members(ctx.argv.begin() + 2, ctx.argv.end());
  if (*kind == types::ZsetKind::kGeo) {
    int64_t removed = 0;
    for (const std::string& member : members) {
      // Also deletes the member's history (see the file comment).
      absl::StatusOr<bool> had = ctx.store().DeleteEntity(name, member);
      if (!ctx.Check(had.status())) return;
      if (*had) ++removed;
    }
    return ctx.reply.Integer(removed);
  }
  RunOnTypedZset(ctx, name, ReplyZero,
                 [&](TypedTxn& txn, const std::string&, const TypedMeta& meta,
                     Reply& reply) -> absl::Status {
                   types::ZsetWriter zset(txn, name, meta);
                   int64_t removed = 0;
                   for (const std::string& member : members) {
                     auto score = zset.Score(member);
                     if (!score.ok()) return score.status();
                     if (!*score) continue;
                     zset.Remove(member, **score);
                     ++removed;
                   }
                   zset.Finish();
                   reply.Integer(removed);
                   return absl::OkStatus();
                 });
}

// ---- Ranges ----

// A GEO key's members with a Redis score, as a sorted set in memory.
absl::StatusOr<std::vector<types::ZEntry>> LoadGeoEntries(
    CommandContext& ctx, const std::string& name) {
  absl::StatusOr<std::vector<types::ScoredMember>> members =
      types::LoadSortedMembers(ctx.store(), name);
  if (!members.ok()) return members.status();
  return types::GeoEntries(*members);
}

// zrangeGenericCommand: ZRANGE key min max [BYSCORE|BYLEX] [REV]
// [LIMIT offset count] [WITHSCORES], and the older forms with a fixed range
// type and direction.
void ZRangeGeneric(CommandContext& ctx, types::RangeType type,
                   types::Direction direction) {
  types::RangeRequest req;
  req.type = type;
  req.direction = direction;
  if (!ParseRangeOptionsOrReply(ctx, 4, /*store=*/false, &req) ||
      !ParseRangeBoundsOrReply(ctx, 2, &req)) {
    return;
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone) return ctx.reply.Array(0);
  if (*kind == types::ZsetKind::kGeo) {
    absl::StatusOr<std::vector<types::ZEntry>> all = LoadGeoEntries(ctx, name);
    if (!ctx.Check(all.status())) return;
    absl::StatusOr<std::vector<types::ZEntry>> picked =
        types::PickRange(types::VectorZsetReader(*all), req);
    if (!ctx.Check(picked.status())) return;
    return EmitEntries(ctx.reply, *picked, req.withscores);
  }
  RunOnTypedZset(ctx, name, ReplyEmptyArray,
                 [&](TypedTxn& txn, const std::string&, const TypedMeta& meta,
                     Reply& reply) -> absl::Status {
                   absl::StatusOr<std::vector<types::ZEntry>> picked =
                       types::PickRange(types::TypedZsetReader(txn, name, meta),
                                        req);
                   if (!picked.ok()) return picked.status();
                   EmitEntries(reply, *picked, req.withscores);
                   return absl::OkStatus();
                 });
}

void ZCount(CommandContext& ctx) {
  types::RangeRequest req;
  req.type = types::RangeType::kScore;
  if (!types::ParseScoreRange(ctx.argv[2], ctx.argv[3], &req.scores)) {
    return ctx.reply.Error("min or max is not a float");
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone) return ctx.reply.Integer(0);
  const types::ScoreRange& range = req.scores;
  if (*kind == types::ZsetKind::kGeo) {
    int64_t n = 0;
    absl::Status s =
        ctx.store().ScanLatest(name, [&](const model::TrackPoint& p) {
          std::optional<uint64_t> score =
              index::RedisGeoMemberScore({p.lat, p.lon});
          if (score && range.GteMin(static_cast<double>(*score)) &&
              range.LteMax(static_cast<double>(*score))) {
            ++n;
          }
          return true;
        });
    if (!ctx.Check(s)) return;
    return ctx.reply.Integer(n);
  }
  RunOnTypedZset(ctx, name, ReplyZero,
                 [&](TypedTxn& txn, const std::string&, const TypedMeta& meta,
                     Reply& reply) -> absl::Status {
                   int64_t n = 0;
                   absl::Status s = types::VisitRange(
                       types::TypedZsetReader(txn, name, meta), req,
                       [&](const types::ZEntry&) { ++n; });
                   if (!s.ok()) return s;
                   reply.Integer(n);
                   return absl::OkStatus();
                 });
}

// zlexcountCommand: ZLEXCOUNT key min max, the range read before the key.
void ZLexCount(CommandContext& ctx) {
  types::RangeRequest req;
  req.type = types::RangeType::kLex;
  if (!types::ParseLexRange(ctx.argv[2], ctx.argv[3], &req.lex)) {
    return ctx.reply.Error("min or max not valid string range item");
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone) return ctx.reply.Integer(0);
  if (*kind == types::ZsetKind::kGeo) {
    absl::StatusOr<std::vector<types::ZEntry>> all = LoadGeoEntries(ctx, name);
    if (!ctx.Check(all.status())) return;
    int64_t n = 0;
    absl::Status s = types::VisitRange(types::VectorZsetReader(*all), req,
                                       [&](const types::ZEntry&) { ++n; });
    if (!ctx.Check(s)) return;
    return ctx.reply.Integer(n);
  }
  RunOnTypedZset(ctx, name, ReplyZero,
                 [&](TypedTxn& txn, const std::string&, const TypedMeta& meta,
                     Reply& reply) -> absl::Status {
                   int64_t n = 0;
                   absl::Status s = types::VisitRange(
                       types::TypedZsetReader(txn, name, meta), req,
                       [&](const types::ZEntry&) { ++n; });
                   if (!s.ok()) return s;
                   reply.Integer(n);
                   return absl::OkStatus();
                 });
}

// ---- ZRANDMEMBER ----

// Which ranks to reply, in reply order: `count` uniform picks of [0, size)
// with `repeat`; else `count` distinct ranks in random order, or every rank
// in order when count >= size.
std::vector<uint64_t> PickRanks(uint64_t size, uint64_t count, bool repeat) {
  std::vector<uint64_t> ranks;
  std::mt19937_64& rng = PickRandom();
  std::uniform_int_distribution<uint64_t> any(0, size - 1);
  if (repeat) {
    for (uint64_t i = 0; i < count; ++i) ranks.push_back(any(rng));
  } else if (count >= size) {
    for (uint64_t i = 0; i < size; ++i) ranks.push_back(i);
  } else {
    // Floyd's sampling of `count` distinct ranks, then a shuffle.
    absl::flat_hash_set<uint64_t> chosen;
    for (uint64_t j = size - count; j < size; ++j) {
      const uint64_t t = std::uniform_int_distribution<uint64_t>(0, j)(rng);
      const uint64_t pick = chosen.insert(t).second ? t : j;
      chosen.insert(pick);
      ranks.push_back(pick);
    }
    std::shuffle(ranks.begin(), ranks.end(), rng);
  }
  return ranks;
}

// The members at `ranks` (in sorted-set order), in the ranks' order: one
// walk up to the highest rank.
absl::StatusOr<std::vector<types::ZEntry>> EntriesAtRanks(
    const types::ZsetReader& z, const std::vector<uint64_t>& ranks) {
  std::map<uint64_t, types::ZEntry> wanted;
  for (uint64_t r : ranks) wanted[r];
  auto next = wanted.begin();
  uint64_t rank = 0;
  absl::Status s = z.Walk(false, std::nullopt, [&](const types::ZEntry& e) {
    if (next == wanted.end()) return false;
    if (rank++ == next->first) (next++)->second = e;
    return true;
  });
  if (!s.ok()) return s;
  std::vector<types::ZEntry> out;
  out.reserve(ranks.size());
  for (uint64_t r : ranks) out.push_back(wanted[r]);
  return out;
}

// zrandmemberCommand's reply from a non-empty set.
absl::Status ReplyRandomMembers(const types::ZsetReader& z,
                                const RandomPickArgs& args, Reply& reply) {
  const uint64_t size = static_cast<uint64_t>(z.size());
  const bool repeat = !args.with_count || args.count < 0;
  const uint64_t count = !args.with_count ? 1
                         : args.count < 0 ? static_cast<uint64_t>(-args.count)
                                          : static_cast<uint64_t>(args.count);
  if (args.with_count && args.count < 0 && count > kMaxRepeatedPicks) {
    reply.Error("value is out of range");
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<types::ZEntry>> picked =
      EntriesAtRanks(z, PickRanks(size, count, repeat));
  if (!picked.ok()) return picked.status();
  if (!args.with_count) {
    reply.Bulk((*picked)[0].member);
  } else {
    EmitEntries(reply, *picked, args.with_values);
  }
  return absl::OkStatus();
}

void ZRandMember(CommandContext& ctx) {
  RandomPickArgs args;
  if (!ParseRandomPickArgs(ctx, "withscores", &args)) return;
  const std::string name = ctx.Name(ctx.argv[1]);
  auto absent = [&](Reply& reply) {
    args.with_count ? reply.Array(0) : reply.Null();
  };
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone || (args.with_count && args.count == 0)) {
    return absent(ctx.reply);
  }
  if (*kind == types::ZsetKind::kGeo) {
    absl::StatusOr<std::vector<types::ZEntry>> all = LoadGeoEntries(ctx, name);
    if (!ctx.Check(all.status())) return;
    if (all->empty()) return absent(ctx.reply);
    std::string out;
    Reply scratch(&out, ctx.reply.protocol());
    absl::Status s =
        ReplyRandomMembers(types::VectorZsetReader(*all), args, scratch);
    if (!ctx.Check(s)) return;
    return ctx.reply.Encoded(out);
  }
  RunOnTypedZset(ctx, name, absent,
                 [&](TypedTxn& txn, const std::string&, const TypedMeta& meta,
                     Reply& reply) {
                   return ReplyRandomMembers(
                       types::TypedZsetReader(txn, name, meta), args, reply);
                 });
}

// ---- ZSCAN ----

// A score as Redis prints it in a scan of its skiplist encoding: "%.17g".
std::string SkiplistScoreText(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const int len = std::snprintf(buf, sizeof(buf), "%.17g", v);
  return std::string(buf, len);
}

// A score as Redis 7.0's listpack keeps it (d2string): an integral score
// within +-2^62 as an integer, anything else as "%.17g".
std::string ListpackScoreText(double v) {
  constexpr double kIntegerLimit = 4611686018427387904.0;  // 2^62
  if (v >= -kIntegerLimit && v <= kIntegerLimit &&
      v == static_cast<double>(static_cast<int64_t>(v))) {
    return absl::StrCat(static_cast<int64_t>(v));
  }
  return SkiplistScoreText(v);
}

struct ScannedMember {
  std::string member;
  std::string score;
};

void ReplyScan(Reply& reply, int64_t cursor,
               const std::vector<ScannedMember>& members) {
  reply.Array(2);
  reply.Bulk(absl::StrCat(cursor));
  reply.Array(2 * members.size());
  for (const ScannedMember& m : members) {
    reply.Bulk(m.member);
    reply.Bulk(m.score);
  }
}

// The whole set, as Redis scans a listpack.
void ReplyWholeScan(Reply& reply, const std::vector<types::ZEntry>& entries,
                    const KeyScanOptions& options) {
  std::vector<ScannedMember> members;
  for (const types::ZEntry& e : entries) {
    if (options.pattern && !model::GlobMatch(*options.pattern, e.member)) {
      continue;
    }
    members.push_back({e.member, ListpackScoreText(e.score)});
  }
  ReplyScan(reply, 0, members);
}

// One page of a big typed zset: COUNT members in byte order from the
// cursor's.
absl::Status ReplyScanPage(CommandContext& ctx, TypedTxn& txn,
                           const std::string& name, const TypedMeta& meta,
                           uint64_t cursor, const KeyScanOptions& options,
                           Reply& reply) {
  const std::string prefix(1, storage::kZsetMemberTag);
  std::vector<ScannedMember> members;
  std::optional<std::string> resume;
  uint64_t examined = 0;
  absl::Status s = txn.Scan(
      name, meta, prefix,
      prefix + KeyScanResumeAt(ctx.server, 'Z', cursor, name), false,
      [&](absl::string_view subkey, absl::string_view value) {
        const absl::string_view member = subkey.substr(1);
        if (examined == static_cast<uint64_t>(options.count)) {
          resume = std::string(member);
          return false;
        }
        ++examined;
        if (!options.pattern || model::GlobMatch(*options.pattern, member)) {
          members.push_back({std::string(member),
                             SkiplistScoreText(storage::DecodeScore(value))});
        }
        return true;
      });
  if (!s.ok()) return s;
  const int64_t next =
      resume ? SaveKeyScanCursor(ctx.server, 'Z', name, *resume) : 0;
  ReplyScan(reply, next, members);
  return absl::OkStatus();
}

absl::Status ReplyTypedScan(CommandContext& ctx, TypedTxn& txn,
                            const std::string& name, const TypedMeta& meta,
                            uint64_t cursor, const KeyScanOptions& options,
                            Reply& reply) {
  if (meta.size <= types::ZsetMaxListpackEntries() &&
      meta.size <= kMaxWholeScan) {
    absl::StatusOr<std::vector<types::ZEntry>> all = types::LoadZsetSource(
        ctx.store(), txn, name, {types::ZsetSource::kZset, meta});
    if (!all.ok()) return all.status();
    if (std::all_of(all->begin(), all->end(), [](const types::ZEntry& e) {
          return e.member.size() <= types::ZsetMaxListpackValue();
        })) {
      ReplyWholeScan(reply, *all, options);
      return absl::OkStatus();
    }
  }
  return ReplyScanPage(ctx, txn, name, meta, cursor, options, reply);
}

void ZScan(CommandContext& ctx) {
  uint64_t cursor = 0;
  if (!types::ParseScanCursor(ctx.argv[2], &cursor)) {
    return ctx.reply.Error("invalid cursor");
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  const std::optional<types::ZsetKind> kind = ZsetKindOrReply(ctx, name);
  if (!kind) return;
  if (*kind == types::ZsetKind::kNone) return ReplyScan(ctx.reply, 0, {});
  KeyScanOptions options;
  if (!ParseKeyScanOptions(ctx.argv, ctx.reply, &options)) return;
  if (*kind == types::ZsetKind::kGeo) {
    absl::StatusOr<std::vector<types::ZEntry>> all = LoadGeoEntries(ctx, name);
    if (!ctx.Check(all.status())) return;
    return ReplyWholeScan(ctx.reply, *all, options);
  }
  RunOnTypedZset(
      ctx, name, [](Reply& reply) { ReplyScan(reply, 0, {}); },
      [&](TypedTxn& txn, const std::string&, const TypedMeta& meta,
          Reply& reply) {
        return ReplyTypedScan(ctx, txn, name, meta, cursor, options, reply);
      });
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(zset, table) {
  table->Add("zcard", 2, ZCard, {"readonly", "fast"});
  table->Add("zscore", 3,
             [](CommandContext& ctx) { ZScoreGeneric(ctx, false); },
             {"readonly", "fast"});
  table->Add("zmscore", -3,
             [](CommandContext& ctx) { ZScoreGeneric(ctx, true); },
             {"readonly", "fast"});
  table->Add(
      "zrank", 3, [](CommandContext& ctx) { ZRankGeneric(ctx, false); },
      {"readonly", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrevrank", 3, [](CommandContext& ctx) { ZRankGeneric(ctx, true); },
      {"readonly", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("zcount", 4, ZCount, {"readonly", "fast"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("zlexcount", 4, ZLexCount, {"readonly", "fast"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("zrem", -3, ZRem, {"write", "fast"});
  table->Add(
      "zrange", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, types::RangeType::kAuto, types::Direction::kAuto);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrevrange", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, types::RangeType::kRank, types::Direction::kReverse);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrangebyscore", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, types::RangeType::kScore,
                      types::Direction::kForward);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrevrangebyscore", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, types::RangeType::kScore,
                      types::Direction::kReverse);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrangebylex", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, types::RangeType::kLex, types::Direction::kForward);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrevrangebylex", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, types::RangeType::kLex, types::Direction::kReverse);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("zrandmember", -2, ZRandMember, {"readonly"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("zscan", -3, ZScan, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
}

}  // namespace trackdb::resp
