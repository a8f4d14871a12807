#ifndef TRACKDB_TYPES_ZSET_RANGE_H_
#define TRACKDB_TYPES_ZSET_RANGE_H_

// Ranges of a Redis sorted set, as ZRANGE, ZRANGESTORE, ZCOUNT, ZPOPMIN and
// ZREMRANGEBY* read them (by rank, by score, by lex), and the members a
// range picks from any sorted set that can be walked in sorted-set order:
// a typed zset read in a transaction (typed_zset.h), or a GEO key's members
// loaded in memory (geo_key.h).
//
// Lex ranges are defined by Redis only for members of equal scores. Over
// members of different scores, Redis's listpack encoding (sets of up to 128
// members) walks them in score order from the near end to the first member
// past the near bound, then picks until the first one past the far bound;
// trackdb does the same for every set. (A Redis set in its skiplist
// encoding may answer otherwise for such ranges.)

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trackdb::types {

// A sorted-set member and its score.
struct ZEntry {
  std::string member;
  double score = 0;
};

// Redis's sorted-set order: by score, then by member bytes (memcmp, then
// shorter first), which is std::string's order.
inline bool ZEntryLess(const ZEntry& a, const ZEntry& b) {
  if (a.score != b.score) return a.score < b.score;
  return a.member < b.member;
}

// Where a walk starts: going up, at the first member at or after
// (score, member); going down, at the last member at or before it, where
// no member means after every member of that score.
struct ZSeek {
  double score = 0;
  std::optional<std::string> member;
};

// A sorted set that can be walked in order.
class ZsetReader {
 public:
  virtual ~ZsetReader() = default;
  virtual int64_t size() const = 0;
  // Visits the members in sorted-set order (`reverse`: the other way), from
  // `from` (nullopt: from the first, or last, member) until `visit` returns
  // false.
  virtual absl::Status Walk(
      bool reverse, const std::optional<ZSeek>& from,
      const std::function<bool(const ZEntry&)>& visit) const = 0;
};

// A sorted set held in memory, its entries in sorted-set order.
class VectorZsetReader : public ZsetReader {
 public:
  explicit VectorZsetReader(const std::vector<ZEntry>& entries)
      : entries_(entries) {}
  int64_t size() const override {
    return static_cast<int64_t>(entries_.size());
  }
  absl::Status Walk(
      bool reverse, const std::optional<ZSeek>& from,
      const std::function<bool(const ZEntry&)>& visit) const override;

 private:
  const std::vector<ZEntry>& entries_;
};

// A score range (zslParseRange): "(x" is an exclusive bound.
struct ScoreRange {
  double min = 0, max = 0;
  bool minex = false, maxex = false;
  bool GteMin(double v) const { return minex ? v > min : v >= min; }
  bool LteMax(double v) const { return maxex ? v < max : v <= max; }
};
bool ParseScoreRange(const std::string& min, const std::string& max,
                     ScoreRange* out);

// A lex bound (zslParseLexRangeItem): "-" and "+" are the extremes, "[x"
// inclusive, "(x" exclusive.
struct LexBound {
  enum Kind { kMinusInf, kPlusInf, kValue } kind = kValue;
  std::string value;
  bool ex = false;
};
struct LexRange {
  LexBound min, max;
  bool GteMin(const std::string& v) const;
  bool LteMax(const std::string& v) const;
};
bool ParseLexRange(const std::string& min, const std::string& max,
                   LexRange* out);

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

// A range as a command's arguments ask for it (zrangeGenericCommand's
// locals).
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

// Visits the members `req` picks from `z`, in the range's direction, as
// Redis's genericZrangeby{rank,score,lex}Command pick them (LIMIT
// included). A rank range is walked from whichever end of `z` is nearer;
// a score range seeks to its near bound; a lex range seeks to its near
// bound when all of `z`'s scores are equal, and walks from the near end
// otherwise (see the file comment).
absl::Status VisitRange(const ZsetReader& z, const RangeRequest& req,
                        const std::function<void(const ZEntry&)>& visit);
absl::StatusOr<std::vector<ZEntry>> PickRange(const ZsetReader& z,
                                              const RangeRequest& req);

// A rank range [start, end] (Redis's, negative from the end) in `reverse`
// or forward order.
RangeRequest RankRange(int64_t start, int64_t end, bool reverse);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_ZSET_RANGE_H_
