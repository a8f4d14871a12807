#include "storage/points/history_expiry.h"

#include <climits>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/points/history_cells.h"

namespace trackdb::storage {
namespace {

// A points key: CollectionPrefix | varint32 entity length | entity | time,
// or a history cell key (storage/format/keys.h). The collection, or nullopt for
// a malformed key.
std::optional<absl::string_view> CollectionOf(absl::string_view key) {
  uint32_t length = 0;
  if (!ReadVarint32(&key, &length) || key.size() < length) {
    return std::nullopt;
  }
  return key.substr(0, length);
}

// The cutoff of each collection a compaction meets, as of its start.
class CollectionCutoffs {
 public:
  explicit CollectionCutoffs(absl::flat_hash_map<std::string, int64_t> cutoffs)
      : cutoffs_(std::move(cutoffs)) {}
  // Keys come in order, so one collection's run needs one lookup.
  int64_t Of(absl::string_view collection) const {
    if (!has_last_ || collection != last_collection_) {
      auto it = cutoffs_.find(collection);
      last_cutoff_ = it == cutoffs_.end() ? INT64_MIN : it->second;
      last_collection_.assign(collection.data(), collection.size());
      has_last_ = true;
    }
    return last_cutoff_;
  }

 private:
  const absl::flat_hash_map<std::string, int64_t> cutoffs_;
  // One filter serves one compaction, on one thread.
  mutable bool has_last_ = false;
  mutable std::string last_collection_;
  mutable int64_t last_cutoff_ = INT64_MIN;
};

// On `chunks`: a chunk wholly before its collection's cutoff goes; one
// across it is rewritten without the fixes before it.
class ExpiredChunkFilter : public rocksdb::CompactionFilter {
 public:
  ExpiredChunkFilter(absl::flat_hash_map<std::string, int64_t> cutoffs,
                     std::shared_ptr<RetentionPolicies> policies)
      : cutoffs_(std::move(cutoffs)), policies_(std::move(policies)) {}
  ~ExpiredChunkFilter() override {
    if (dropped_ > 0) policies_->CountExpiredPoints(dropped_);
  }

  bool Filter(int /*level*/, const rocksdb::Slice& key,
              const rocksdb::Slice& existing_value, std::string* new_value,
              bool* value_changed) const override {
    const std::optional<absl::string_view> collection =
        CollectionOf(SliceView(key));
    const absl::string_view value = SliceView(existing_value);
    const std::optional<ChunkSpan> span = DecodeChunkSpan(value);
    if (!collection || !span) return false;
    const int64_t cutoff = cutoffs_.Of(*collection);
    if (span->first_ms >= cutoff) return false;
    if (span->last_ms < cutoff) {
      dropped_ += span->count;
      return true;
    }
    std::vector<model::TrackPoint> fixes;
    if (!DecodeChunk(value, &fixes).ok()) return false;  // kept: reads say
    size_t expired = 0;
    while (fixes[expired].loc_time_ms < cutoff) ++expired;
    dropped_ += expired;
    *new_value = EncodeChunk(absl::MakeConstSpan(fixes).subspan(expired));
    *value_changed = true;
    return false;
  }
  const char* Name() const override { return "trackdb.ExpiredChunkFilter"; }

 private:
  const CollectionCutoffs cutoffs_;
  const std::shared_ptr<RetentionPolicies> policies_;
  mutable uint64_t dropped_ = 0;
};

class ExpiredHistoryFilter : public rocksdb::CompactionFilter {
 public:
  ExpiredHistoryFilter(absl::flat_hash_map<std::string, int64_t> cutoffs,
                       std::shared_ptr<RetentionPolicies> policies)
      : cutoffs_(std::move(cutoffs)), policies_(std::move(policies)) {}
  ~ExpiredHistoryFilter() override {
    if (dropped_ > 0) policies_->CountExpiredPoints(dropped_);
  }

  bool Filter(int /*level*/, const rocksdb::Slice& key,
              const rocksdb::Slice& /*existing_value*/,
              std::string* /*new_value*/,
              bool* /*value_changed*/) const override {
    const absl::string_view k = SliceView(key);
    const std::optional<absl::string_view> collection = CollectionOf(k);
    if (!collection) return false;
    const absl::string_view rest(collection->end(),
                                 k.end() - collection->end());
    // A history cell key (storage/points/history_cells.h) goes with its whole
    // bucket, so that it outlives every fix it stands for.
    const bool cell = absl::StartsWith(rest, kHistoryCellsTag);
    std::optional<HistoryCellKeyParts> parts;
    if (cell) {
      parts = ParseHistoryCellSuffix(rest.substr(2));
      if (!parts) return false;
    } else if (rest.size() < 9) {
      return false;  // too short to hold a time: not a point's
    }
    const int64_t last_ms =
        cell ? HistoryBucketLastMs(parts->bucket) : PointKeyTime(k);
    if (last_ms >= cutoffs_.Of(*collection)) return false;
    if (cell) return true;  // not a fix: not counted
    ++dropped_;
    return true;
  }
  const char* Name() const override { return "trackdb.ExpiredHistoryFilter"; }

 private:
  const CollectionCutoffs cutoffs_;
  const std::shared_ptr<RetentionPolicies> policies_;
  mutable uint64_t dropped_ = 0;
};

template <typename Filter>
class ExpiredHistoryFilterFactory : public rocksdb::CompactionFilterFactory {
 public:
  ExpiredHistoryFilterFactory(std::shared_ptr<RetentionPolicies> policies,
                              ClockMs clock)
      : policies_(std::move(policies)), clock_(std::move(clock)) {}

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& /*context*/) override {
    if (policies_->empty()) return nullptr;
    // One clock reading per compaction, as reads take theirs: a point that
    // expires during it waits for the next one.
    absl::flat_hash_map<std::string, int64_t> cutoffs =
        policies_->Cutoffs(clock_());
    if (cutoffs.empty()) return nullptr;  // only limits of fixes per entity
    return std::make_unique<Filter>(std::move(cutoffs), policies_);
  }
  const char* Name() const override {
    return "trackdb.ExpiredHistoryFilterFactory";  // both: Filter's names
                                                   // differ
  }

 private:
  const std::shared_ptr<RetentionPolicies> policies_;
  const ClockMs clock_;
};

}  // namespace

std::shared_ptr<rocksdb::CompactionFilterFactory>
NewExpiredHistoryFilterFactory(std::shared_ptr<RetentionPolicies> policies,
                               ClockMs clock) {
  return std::make_shared<ExpiredHistoryFilterFactory<ExpiredHistoryFilter>>(
      std::move(policies), std::move(clock));
}

std::shared_ptr<rocksdb::CompactionFilterFactory> NewExpiredChunkFilterFactory(
    std::shared_ptr<RetentionPolicies> policies, ClockMs clock) {
  return std::make_shared<ExpiredHistoryFilterFactory<ExpiredChunkFilter>>(
      std::move(policies), std::move(clock));
}

}  // namespace trackdb::storage
