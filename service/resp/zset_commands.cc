// Sorted-set commands on GEO keys: ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK,
// ZCOUNT, ZREM, and ZRANGE with its older forms (ZREVRANGE,
// Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX). A member's score is the 52-bit
// geohash Redis would store for its position (index::RedisGeoMemberScore);
// members are ordered as a Redis sorted set orders them: by score, then by
// member bytes.
//
// Cost: trackdb has no score-ordered index. ZSCORE, ZMSCORE and ZCARD are
// point reads; ZRANK and ZCOUNT read the whole collection (O(N)); ZRANGE and
// its forms read and sort it (O(N log N)).
//
// ZREM deletes the member's entity with TrackStore::DeleteEntity: its whole
// history goes with it, not only its latest position.
//
// ZADD and the other writing sorted-set commands are not served: a GEO
// key's scores are positions, and an arbitrary score is not one.
//
// Members without a Redis score (see geo_key.h) are left out of every
// reply here except ZCARD and ZREM.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "index/redis_geo_search.h"
#include "service/resp/command.h"
#include "service/resp/geo_key.h"
#include "service/resp/key_type.h"
#include "service/resp/option_words.h"
#include "service/resp/redis_number.h"
#include "service/resp/reply_errors.h"

namespace trackdb::resp {
namespace {

void ZCard(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<bool> exists = GeoKeyExists(ctx, name);
  if (!exists) return;
  if (!*exists) return ctx.reply.Integer(0);
  absl::StatusOr<int64_t> n = ctx.store().CollectionSize(name);
  if (!ctx.Check(n.status())) return;
  ctx.reply.Integer(*n);
}

void ZScore(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<bool> exists = GeoKeyExists(ctx, name);
  if (!exists) return;
  if (!*exists) return ctx.reply.Null();
  auto scores = MemberScores(ctx.store(), name, {ctx.argv[2]});
  if (!ctx.Check(scores.status())) return;
  if (!(*scores)[0]) return ctx.reply.Null();
  ctx.reply.Double(static_cast<double>(*(*scores)[0]));
}

void ZMScore(CommandContext& ctx) {
  const std::optional<std::vector<std::optional<uint64_t>>> scores =
      ScoresOfArgMembers(ctx);
  if (!scores) return;
  ctx.reply.Array(scores->size());
  for (const std::optional<uint64_t>& score : *scores) {
    if (score) {
      ctx.reply.Double(static_cast<double>(*score));
    } else {
      ctx.reply.Null();
    }
  }
}

void ZRankGeneric(CommandContext& ctx, bool reverse) {
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<bool> exists = GeoKeyExists(ctx, name);
  if (!exists) return;
  if (!*exists) return ctx.reply.Null();
  auto scores = MemberScores(ctx.store(), name, {ctx.argv[2]});
  if (!ctx.Check(scores.status())) return;
  if (!(*scores)[0]) return ctx.reply.Null();
  const ScoredMember target{ctx.argv[2], *(*scores)[0]};
  // Count the members before it and after it in one pass.
  int64_t before = 0, after = 0;
  absl::Status s = ctx.store().ScanLatest(name, [&](const model::TrackPoint&
                                                        p) {
    std::optional<uint64_t> score = index::RedisGeoMemberScore({p.lat, p.lon});
    if (!score) return true;
    const ScoredMember m{p.entity, *score};
    if (ZsetLess(m, target)) ++before;
    if (ZsetLess(target, m)) ++after;
    return true;
  });
  if (!ctx.Check(s)) return;
  ctx.reply.Integer(reverse ? after : before);
}

void ZRem(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<bool> exists = GeoKeyExists(ctx, name);
  if (!exists) return;
  if (!*exists) return ctx.reply.Integer(0);
  int64_t removed = 0;
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    // Also deletes the member's history (see the file comment).
    absl::StatusOr<bool> had = ctx.store().DeleteEntity(name, ctx.argv[i]);
    if (!ctx.Check(had.status())) return;
    if (*had) ++removed;
  }
  ctx.reply.Integer(removed);
}

// ---- Ranges ----

// A score range (zslParseRange): "(x" is an exclusive bound; the rest of
// the argument is read by ParseZsetScoreBound.
struct ScoreRange {
  double min = 0, max = 0;
  bool minex = false, maxex = false;
  bool GteMin(double v) const { return minex ? v > min : v >= min; }
  bool LteMax(double v) const { return maxex ? v < max : v <= max; }
};

bool ParseScoreBound(absl::string_view arg, double* value, bool* ex) {
  *ex = !arg.empty() && arg[0] == '(';
  if (*ex) arg.remove_prefix(1);
  return ParseZsetScoreBound(arg, value);
}

bool ParseScoreRange(const std::string& min, const std::string& max,
                     ScoreRange* out) {
  return ParseScoreBound(min, &out->min, &out->minex) &&
         ParseScoreBound(max, &out->max, &out->maxex);
}

// A lex bound (zslParseLexRangeItem): "-" and "+" are the extremes, "[x"
// inclusive, "(x" exclusive; anything else is an error.
struct LexBound {
  enum Kind { kMinusInf, kPlusInf, kValue } kind = kValue;
  std::string value;
  bool ex = false;
};

bool ParseLexBound(const std::string& arg, LexBound* out) {
  // Redis tests c[1] == '\0' on the C string.
  if (arg.empty()) return false;
  switch (arg[0]) {
    case '+':
      if (arg.size() > 1 && arg[1] != '\0') return false;
      *out = {LexBound::kPlusInf, "", true};
      return true;
    case '-':
      if (arg.size() > 1 && arg[1] != '\0') return false;
      *out = {LexBound::kMinusInf, "", true};
      return true;
    case '(':
    case '[':
      *out = {LexBound::kValue, arg.substr(1), arg[0] == '('};
      return true;
    default:
      return false;
  }
}

// sdscmplex: the extremes compare below / above every string (and equal to
// themselves).
int CompareLex(const LexBound& a, const LexBound& b) {
  if (a.kind == b.kind && a.kind != LexBound::kValue) return 0;
  if (a.kind == LexBound::kMinusInf || b.kind == LexBound::kPlusInf) return -1;
  if (a.kind == LexBound::kPlusInf || b.kind == LexBound::kMinusInf) return 1;
  return a.value.compare(b.value) < 0 ? -1 : (a.value == b.value ? 0 : 1);
}

struct LexRange {
  LexBound min, max;
  bool GteMin(const std::string& v) const {
    const int c = CompareLex({LexBound::kValue, v, false}, min);
    return min.ex ? c > 0 : c >= 0;
  }
  bool LteMax(const std::string& v) const {
    const int c = CompareLex({LexBound::kValue, v, false}, max);
    return max.ex ? c < 0 : c <= 0;
  }
};

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

// Emits one member (zrangeResultEmitCBufferToClient): with scores, a flat
// pair in RESP2 and a nested [member, score] pair in RESP3.
void EmitMember(Reply& reply, const ScoredMember& m, bool withscores) {
  if (withscores && reply.protocol() > 2) reply.Array(2);
  reply.Bulk(m.member);
  if (withscores) reply.Double(static_cast<double>(m.score));
}

void EmitRange(Reply& reply, const std::vector<const ScoredMember*>& picked,
               bool withscores) {
  const size_t per = (withscores && reply.protocol() == 2) ? 2 : 1;
  reply.Array(picked.size() * per);
  for (const ScoredMember* m : picked) EmitMember(reply, *m, withscores);
}

// A ZRANGE as its arguments ask for it (zrangeGenericCommand's locals).
struct RangeRequest {
  RangeType type = RangeType::kAuto;
  Direction direction = Direction::kAuto;
  bool reverse = false;
  bool withscores = false;
  int64_t offset = 0, limit = -1;  // LIMIT; a negative limit: no limit
  int64_t start = 0, end = 0;      // by rank
  ScoreRange scores;               // by score
  LexRange lex;                    // by lex
};

// The options after key min max (WITHSCORES, LIMIT, REV, BYLEX, BYSCORE,
// the last three only for ZRANGE itself), then the checks Redis makes on
// their combination. False once it has replied an error.
bool ParseRangeOptionsOrReply(CommandContext& ctx, RangeRequest* req) {
  const std::vector<std::string>& argv = ctx.argv;
  for (size_t j = 4; j < argv.size(); ++j) {
    const size_t leftargs = argv.size() - j - 1;
    if (EqualsIgnoreCase(argv[j], "withscores")) {
      req->withscores = true;
    } else if (EqualsIgnoreCase(argv[j], "limit") && leftargs >= 2) {
      if (!ParseInt64(argv[j + 1], &req->offset) ||
          !ParseInt64(argv[j + 2], &req->limit)) {
        ctx.reply.Error(kNotIntegerError);
        return false;
      }
      j += 2;
    } else if (req->direction == Direction::kAuto &&
               EqualsIgnoreCase(argv[j], "rev")) {
      req->direction = Direction::kReverse;
    } else if (req->type == RangeType::kAuto &&
               EqualsIgnoreCase(argv[j], "bylex")) {
      req->type = RangeType::kLex;
    } else if (req->type == RangeType::kAuto &&
               EqualsIgnoreCase(argv[j], "byscore")) {
      req->type = RangeType::kScore;
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  if (req->direction == Direction::kAuto) req->direction = Direction::kForward;
  if (req->type == RangeType::kAuto) req->type = RangeType::kRank;
  req->reverse = req->direction == Direction::kReverse;
  if (req->limit != -1 && req->type == RangeType::kRank) {
    ctx.reply.Error(
        "syntax error, LIMIT is only supported in combination with either "
        "BYSCORE or BYLEX");
    return false;
  }
  if (req->withscores && req->type == RangeType::kLex) {
    ctx.reply.Error(
        "syntax error, WITHSCORES not supported in combination with BYLEX");
    return false;
  }
  return true;
}

// min and max, as ranks, scores or lex bounds; a reverse score or lex range
// names max first. False once it has replied an error.
bool ParseRangeBoundsOrReply(CommandContext& ctx, RangeRequest* req) {
  size_t minidx = 2, maxidx = 3;
  if (req->reverse && req->type != RangeType::kRank) std::swap(minidx, maxidx);
  const std::string& min = ctx.argv[minidx];
  const std::string& max = ctx.argv[maxidx];
  switch (req->type) {
    case RangeType::kRank:
      if (!ParseInt64(min, &req->start) || !ParseInt64(max, &req->end)) {
        ctx.reply.Error(kNotIntegerError);
        return false;
      }
      return true;
    case RangeType::kScore:
      if (!ParseScoreRange(min, max, &req->scores)) {
        ctx.reply.Error("min or max is not a float");
        return false;
      }
      return true;
    default:
      if (!ParseLexBound(min, &req->lex.min) ||
          !ParseLexBound(max, &req->lex.max)) {
        ctx.reply.Error("min or max not valid string range item");
        return false;
      }
      return true;
  }
}

// The members in sorted-set order, walked in a range's direction.
class RangeWalk {
 public:
  RangeWalk(const std::vector<ScoredMember>& all, bool reverse)
      : all_(all), reverse_(reverse) {}
  int64_t size() const { return static_cast<int64_t>(all_.size()); }
  // The i-th member in the range's direction.
  const ScoredMember& at(int64_t i) const {
    return reverse_ ? all_[size() - 1 - i] : all_[i];
  }

 private:
  const std::vector<ScoredMember>& all_;
  const bool reverse_;
};

// genericZrangebyrankCommand.
std::vector<const ScoredMember*> PickByRank(const RangeWalk& walk,
                                            int64_t start, int64_t end) {
  const int64_t llen = walk.size();
  std::vector<const ScoredMember*> picked;
  if (start < 0) start = llen + start;
  if (end < 0) end = llen + end;
  if (start < 0) start = 0;
  if (!(start > end || start >= llen)) {
    if (end >= llen) end = llen - 1;
    for (int64_t i = start; i <= end; ++i) picked.push_back(&walk.at(i));
  }
  return picked;
}

// By score or by lex: find the first member in range walking in the
// range's direction (`near` holds past the near end, `far` within the far
// end: zslFirstInRange / zslLastInRange), skip `offset` members unchecked,
// then pick while in range, at most `limit` (negative: no limit).
template <typename NearEnd, typename FarEnd>
std::vector<const ScoredMember*> PickInRange(const RangeWalk& walk,
                                             int64_t offset, int64_t limit,
                                             const NearEnd& near,
                                             const FarEnd& far) {
  const int64_t llen = walk.size();
  std::vector<const ScoredMember*> picked;
  int64_t i = 0;
  while (i < llen && !near(walk.at(i))) ++i;
  if (i < llen && !far(walk.at(i))) i = llen;
  if (offset < 0) i = llen;  // Redis's `while (ln && offset--)` runs out
  i += std::max<int64_t>(offset, 0);
  for (int64_t left = limit; i < llen && left != 0; ++i, --left) {
    if (!far(walk.at(i))) break;
    picked.push_back(&walk.at(i));
  }
  return picked;
}

std::vector<const ScoredMember*> PickByScore(const RangeWalk& walk,
                                             const RangeRequest& req) {
  if (req.offset > 0 && req.offset >= walk.size()) return {};
  const ScoreRange& r = req.scores;
  auto score = [](const ScoredMember& m) {
    return static_cast<double>(m.score);
  };
  auto near = [&](const ScoredMember& m) {
    return req.reverse ? r.LteMax(score(m)) : r.GteMin(score(m));
  };
  auto far = [&](const ScoredMember& m) {
    return req.reverse ? r.GteMin(score(m)) : r.LteMax(score(m));
  };
  return PickInRange(walk, req.offset, req.limit, near, far);
}

// Redis defines lex ranges only for members of equal scores; for a GEO
// key's varied scores it walks the members in score order as its listpack
// encoding (<= 128 members) does, which trackdb follows
// (zzlFirstInLexRange / zzlLastInLexRange). A skiplist-encoded Redis set
// may answer differently for such ranges.
std::vector<const ScoredMember*> PickByLex(const RangeWalk& walk,
                                           const std::vector<ScoredMember>& all,
                                           const RangeRequest& req) {
  const LexRange& lex = req.lex;
  const int64_t llen = walk.size();
  const int cmp = CompareLex(lex.min, lex.max);
  if (llen == 0 || cmp > 0 || (cmp == 0 && (lex.min.ex || lex.max.ex))) {
    return {};
  }
  if (!lex.GteMin(all[llen - 1].member) || !lex.LteMax(all[0].member)) {
    return {};
  }
  auto near = [&](const ScoredMember& m) {
    return req.reverse ? lex.LteMax(m.member) : lex.GteMin(m.member);
  };
  auto far = [&](const ScoredMember& m) {
    return req.reverse ? lex.GteMin(m.member) : lex.LteMax(m.member);
  };
  return PickInRange(walk, req.offset, req.limit, near, far);
}

// zrangeGenericCommand: ZRANGE key min max [BYSCORE|BYLEX] [REV]
// [LIMIT offset count] [WITHSCORES], and the older forms with a fixed range
// type and direction.
void ZRangeGeneric(CommandContext& ctx, RangeType type, Direction direction) {
  RangeRequest req;
  req.type = type;
  req.direction = direction;
  if (!ParseRangeOptionsOrReply(ctx, &req) ||
      !ParseRangeBoundsOrReply(ctx, &req)) {
    return;
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<bool> exists = GeoKeyExists(ctx, name);
  if (!exists) return;
  if (!*exists) return ctx.reply.Array(0);
  absl::StatusOr<std::vector<ScoredMember>> loaded =
      LoadSortedMembers(ctx.store(), name);
  if (!ctx.Check(loaded.status())) return;
  const RangeWalk walk(*loaded, req.reverse);
  std::vector<const ScoredMember*> picked;
  switch (req.type) {
    case RangeType::kRank:
      picked = PickByRank(walk, req.start, req.end);
      break;
    case RangeType::kScore:
      picked = PickByScore(walk, req);
      break;
    default:
      picked = PickByLex(walk, *loaded, req);
      break;
  }
  EmitRange(ctx.reply, picked, req.withscores);
}

void ZCount(CommandContext& ctx) {
  ScoreRange range;
  if (!ParseScoreRange(ctx.argv[2], ctx.argv[3], &range)) {
    return ctx.reply.Error("min or max is not a float");
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  std::optional<bool> exists = GeoKeyExists(ctx, name);
  if (!exists) return;
  if (!*exists) return ctx.reply.Integer(0);
  int64_t n = 0;
  absl::Status s = ctx.store().ScanLatest(name, [&](const model::TrackPoint&
                                                        p) {
    std::optional<uint64_t> score = index::RedisGeoMemberScore({p.lat, p.lon});
    if (score && range.GteMin(static_cast<double>(*score)) &&
        range.LteMax(static_cast<double>(*score))) {
      ++n;
    }
    return true;
  });
  if (!ctx.Check(s)) return;
  ctx.reply.Integer(n);
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(zset, table) {
  table->Add("zcard", 2, ZCard, {"readonly", "fast"});
  table->Add("zscore", 3, ZScore, {"readonly", "fast"});
  table->Add("zmscore", -3, ZMScore, {"readonly", "fast"});
  table->Add(
      "zrank", 3, [](CommandContext& ctx) { ZRankGeneric(ctx, false); },
      {"readonly", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrevrank", 3, [](CommandContext& ctx) { ZRankGeneric(ctx, true); },
      {"readonly", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("zcount", 4, ZCount, {"readonly", "fast"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("zrem", -3, ZRem, {"write", "fast"});
  table->Add(
      "zrange", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, RangeType::kAuto, Direction::kAuto);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrevrange", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, RangeType::kRank, Direction::kReverse);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrangebyscore", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, RangeType::kScore, Direction::kForward);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrevrangebyscore", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, RangeType::kScore, Direction::kReverse);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrangebylex", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, RangeType::kLex, Direction::kForward);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "zrevrangebylex", -4,
      [](CommandContext& ctx) {
        ZRangeGeneric(ctx, RangeType::kLex, Direction::kReverse);
      },
      {"readonly"}, 1, 1, 1, RunsOn::kWorker);
}

}  // namespace trackdb::resp
