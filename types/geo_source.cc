#include "types/geo_source.h"

#include <functional>

#include "storage/format/typed_codec.h"

namespace trackdb::types {
namespace {

// Runs `read` on typed zset `name` in a read-only transaction. A key that is no
// longer a typed zset by then reads as empty: the command saw it as one a
// moment before.
absl::Status ReadTypedZset(
    storage::TrackStore& store, const std::string& name, int64_t now_ms,
    const std::function<absl::Status(const TypedZsetReader&)>& read) {
  const std::string names[] = {name};
  return store.ReadTyped(
      names, now_ms, [&](storage::TypedTxn& txn) -> absl::Status {
        auto meta = txn.Meta(name);
        if (!meta.ok()) return meta.status();
        if (!*meta || (*meta)->type != storage::ValueType::kZset) {
          return absl::OkStatus();
        }
        return read(TypedZsetReader(txn, name, **meta));
      });
}

}  // namespace

std::optional<uint64_t> GeohashOfZsetScore(double score) {
  constexpr double kGeohashLimit = 4503599627370496.0;  // 2^52
  if (!(score >= 0 && score < kGeohashLimit)) return std::nullopt;
  return static_cast<uint64_t>(score);
}

absl::StatusOr<std::vector<std::optional<uint64_t>>> GeoSourceScores(
    storage::TrackStore& store, const std::string& name, ZsetKind kind,
    absl::Span<const std::string> members, int64_t now_ms) {
  if (kind == ZsetKind::kGeo) return MemberScores(store, name, members);
  std::vector<std::optional<uint64_t>> scores(members.size());
  if (kind == ZsetKind::kNone) return scores;
  absl::Status s =
      ReadTypedZset(store, name, now_ms, [&](const TypedZsetReader& r) {
        for (size_t i = 0; i < members.size(); ++i) {
          absl::StatusOr<std::optional<double>> score = r.Score(members[i]);
          if (!score.ok()) return score.status();
          if (*score) scores[i] = GeohashOfZsetScore(**score);
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return scores;
}

absl::StatusOr<std::vector<ZEntry>> PlainZsetGeoCandidates(
    storage::TrackStore& store, const std::string& name,
    const index::RedisGeoAreas& areas, int64_t now_ms) {
  std::vector<ZEntry> members;
  absl::Status s =
      ReadTypedZset(store, name, now_ms, [&](const TypedZsetReader& r) {
        // Redis's geoGetPointsInRange: scores in [min, max) as doubles (exact:
        // both are below 2^53). A score in a range truncates to a geohash in
        // it.
        for (const index::RedisGeoScanRange& range : areas.scans) {
          const double max = static_cast<double>(range.max_score);
          absl::Status walked = r.Walk(
              false, ZSeek{static_cast<double>(range.min_score), std::nullopt},
              [&](const ZEntry& e) {
                if (e.score >= max) return false;
                if (GeohashOfZsetScore(e.score)) members.push_back(e);
                return true;
              });
          if (!walked.ok()) return walked;
        }
        return absl::OkStatus();
      });
  if (!s.ok()) return s;
  return members;
}

}  // namespace trackdb::types
