#include "types/zset_range.h"

#include <algorithm>
#include <utility>

#include "types/codec/redis_number.h"

namespace trackdb::types {
namespace {

bool ParseScoreBound(absl::string_view arg, double* value, bool* ex) {
  *ex = !arg.empty() && arg[0] == '(';
  if (*ex) arg.remove_prefix(1);
  return ParseZsetScoreBound(arg, value);
}

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

// Redis's pick from a walk in the range's direction: skip the members that
// fail the near bound (zslFirstInRange / zslLastInRange), stop if the first
// one left fails the far bound, skip `offset` members unchecked, then pick
// while the far bound holds, at most `limit` (negative: no limit).
class BoundedPick {
 public:
  BoundedPick(int64_t offset, int64_t limit,
              std::function<bool(const ZEntry&)> near,
              std::function<bool(const ZEntry&)> far,
              const std::function<void(const ZEntry&)>& visit)
      : to_skip_(offset),
        left_(limit),
        near_(std::move(near)),
        far_(std::move(far)),
        visit_(visit) {}

  // Takes the next member of the walk; false when the pick is over.
  bool Take(const ZEntry& e) {
    if (!found_) {
      if (!near_(e)) return true;
      // A negative offset: Redis's `while (ln && offset--)` runs out.
      if (!far_(e) || to_skip_ < 0) return false;
      found_ = true;
    }
    if (to_skip_ > 0) {
      --to_skip_;
      return true;
    }
    if (left_ == 0 || !far_(e)) return false;
    visit_(e);
    --left_;
    return left_ != 0;
  }

 private:
  bool found_ = false;
  int64_t to_skip_;
  int64_t left_;
  const std::function<bool(const ZEntry&)> near_, far_;
  const std::function<void(const ZEntry&)>& visit_;
};

// genericZrangebyrankCommand: Redis's rank normalization, then the
// members walked from the nearer end.
absl::Status VisitByRank(const ZsetReader& z, const RangeRequest& req,
                         const std::function<void(const ZEntry&)>& visit) {
  const int64_t llen = z.size();
  int64_t start = req.start, end = req.end;
  if (start < 0) start = llen + start;
  if (end < 0) end = llen + end;
  if (start < 0) start = 0;
  if (start > end || start >= llen) return absl::OkStatus();
  if (end >= llen) end = llen - 1;
  int64_t left = end - start + 1;
  // From the other end, the same members are ranks [llen-1-end, llen-1-start]
  // in the other direction, to be visited backwards.
  const bool flip = start > llen - 1 - end;
  int64_t skip = flip ? llen - 1 - end : start;
  std::vector<ZEntry> flipped;
  absl::Status s =
      z.Walk(req.reverse != flip, std::nullopt, [&](const ZEntry& e) {
        if (skip > 0) {
          --skip;
          return true;
        }
        flip ? flipped.push_back(e) : visit(e);
        return --left > 0;
      });
  if (!s.ok()) return s;
  for (auto it = flipped.rbegin(); it != flipped.rend(); ++it) visit(*it);
  return absl::OkStatus();
}

absl::Status VisitByScore(const ZsetReader& z, const RangeRequest& req,
                          const std::function<void(const ZEntry&)>& visit) {
  if (req.offset > 0 && req.offset >= z.size()) return absl::OkStatus();
  const ScoreRange& r = req.scores;
  using Test = std::function<bool(const ZEntry&)>;
  const Test gte_min = [&](const ZEntry& e) { return r.GteMin(e.score); };
  const Test lte_max = [&](const ZEntry& e) { return r.LteMax(e.score); };
  const ZSeek from =
      req.reverse ? ZSeek{r.max, std::nullopt} : ZSeek{r.min, std::string()};
  BoundedPick pick(req.offset, req.limit, req.reverse ? lte_max : gte_min,
                   req.reverse ? gte_min : lte_max, visit);
  return z.Walk(req.reverse, from,
                [&](const ZEntry& e) { return pick.Take(e); });
}

// The first member of `z` in sorted-set order (`last`: the last one).
absl::StatusOr<ZEntry> EndEntry(const ZsetReader& z, bool last) {
  ZEntry end;
  absl::Status s = z.Walk(last, std::nullopt, [&](const ZEntry& e) {
    end = e;
    return false;
  });
  if (!s.ok()) return s;
  return end;
}

// True when no member can fall in `lex`: an empty set, or min above max
// (or equal to it with either end exclusive).
bool LexRangeIsEmpty(const ZsetReader& z, const LexRange& lex) {
  const int cmp = CompareLex(lex.min, lex.max);
  return z.size() == 0 || cmp > 0 || (cmp == 0 && (lex.min.ex || lex.max.ex));
}

// Where the walk may start: when all scores are equal (`first` and `last`
// share one) the members are in byte order, so it may seek to the near bound.
std::optional<ZSeek> LexSeekStart(const RangeRequest& req, const ZEntry& first,
                                  const ZEntry& last) {
  std::optional<ZSeek> from;
  if (first.score == last.score) {
    const LexRange& lex = req.lex;
    const LexBound& near = req.reverse ? lex.max : lex.min;
    from = ZSeek{first.score, std::nullopt};
    if (near.kind == LexBound::kValue) {
      from->member = near.value;
    } else if (!req.reverse) {
      from->member = std::string();
    }
  }
  return from;
}

// genericZrangebylexCommand, with zzlIsInLexRange's checks first.
absl::Status VisitByLex(const ZsetReader& z, const RangeRequest& req,
                        const std::function<void(const ZEntry&)>& visit) {
  const LexRange& lex = req.lex;
  if (LexRangeIsEmpty(z, lex)) return absl::OkStatus();
  absl::StatusOr<ZEntry> first = EndEntry(z, false);
  if (!first.ok()) return first.status();
  absl::StatusOr<ZEntry> last = EndEntry(z, true);
  if (!last.ok()) return last.status();
  if (!lex.GteMin(last->member) || !lex.LteMax(first->member)) {
    return absl::OkStatus();
  }
  const std::optional<ZSeek> from = LexSeekStart(req, *first, *last);
  using Test = std::function<bool(const ZEntry&)>;
  const Test gte_min = [&](const ZEntry& e) { return lex.GteMin(e.member); };
  const Test lte_max = [&](const ZEntry& e) { return lex.LteMax(e.member); };
  BoundedPick pick(req.offset, req.limit, req.reverse ? lte_max : gte_min,
                   req.reverse ? gte_min : lte_max, visit);
  return z.Walk(req.reverse, from,
                [&](const ZEntry& e) { return pick.Take(e); });
}

}  // namespace

absl::Status VectorZsetReader::Walk(
    bool reverse, const std::optional<ZSeek>& from,
    const std::function<bool(const ZEntry&)>& visit) const {
  const int64_t n = size();
  int64_t i = reverse ? n - 1 : 0;
  if (from) {
    const ZSeek& seek = *from;
    if (!reverse) {
      // The first entry at or after (score, member).
      i = std::partition_point(
              entries_.begin(), entries_.end(),
              [&](const ZEntry& e) {
                return ZEntryLess(e, {seek.member.value_or(""), seek.score});
              }) -
          entries_.begin();
    } else {
      // One past the last entry at or before the seek.
      i = std::partition_point(entries_.begin(), entries_.end(),
                               [&](const ZEntry& e) {
                                 if (e.score != seek.score)
                                   return e.score < seek.score;
                                 return !seek.member ||
                                        e.member <= *seek.member;
                               }) -
          entries_.begin() - 1;
    }
  }
  for (; i >= 0 && i < n; reverse ? --i : ++i) {
    if (!visit(entries_[i])) break;
  }
  return absl::OkStatus();
}

bool ParseScoreRange(const std::string& min, const std::string& max,
                     ScoreRange* out) {
  return ParseScoreBound(min, &out->min, &out->minex) &&
         ParseScoreBound(max, &out->max, &out->maxex);
}

bool LexRange::GteMin(const std::string& v) const {
  const int c = CompareLex({LexBound::kValue, v, false}, min);
  return min.ex ? c > 0 : c >= 0;
}

bool LexRange::LteMax(const std::string& v) const {
  const int c = CompareLex({LexBound::kValue, v, false}, max);
  return max.ex ? c < 0 : c <= 0;
}

bool ParseLexRange(const std::string& min, const std::string& max,
                   LexRange* out) {
  return ParseLexBound(min, &out->min) && ParseLexBound(max, &out->max);
}

absl::Status VisitRange(const ZsetReader& z, const RangeRequest& req,
                        const std::function<void(const ZEntry&)>& visit) {
  switch (req.type) {
    case RangeType::kScore:
      return VisitByScore(z, req, visit);
    case RangeType::kLex:
      return VisitByLex(z, req, visit);
    default:
      return VisitByRank(z, req, visit);
  }
}

absl::StatusOr<std::vector<ZEntry>> PickRange(const ZsetReader& z,
                                              const RangeRequest& req) {
  std::vector<ZEntry> picked;
  absl::Status s =
      VisitRange(z, req, [&](const ZEntry& e) { picked.push_back(e); });
  if (!s.ok()) return s;
  return picked;
}

RangeRequest RankRange(int64_t start, int64_t end, bool reverse) {
  RangeRequest req;
  req.type = RangeType::kRank;
  req.direction = reverse ? Direction::kReverse : Direction::kForward;
  req.reverse = reverse;
  req.start = start;
  req.end = end;
  return req;
}

}  // namespace trackdb::types
