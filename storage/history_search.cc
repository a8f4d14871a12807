// SearchHistory: fixes inside a region during a time range, found through
// the history cells (storage/points/history_cells.h) and checked one by one.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "index/covering.h"
#include "model/validate.h"
#include "rocksdb/snapshot.h"
#include "storage/engine/engine.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/points/history_cells.h"
#include "storage/points/history_cursor.h"
#include "storage/strings/kv_expiry.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

// A page token is "<loc_time>:<entity in hex>", the last row returned (hex,
// so that any entity name makes a valid UTF-8 token); a per-entity page's
// time is INT64_MAX, past every fix of its entity.
std::string EncodeToken(absl::string_view entity, int64_t time) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token = absl::StrCat(time, ":");
  for (unsigned char c : entity) {
    token.push_back(kHex[c >> 4]);
    token.push_back(kHex[c & 15]);
  }
  return token;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool ParseToken(absl::string_view token, std::string* entity, int64_t* time) {
  const size_t colon = token.find(':');
  if (colon == absl::string_view::npos ||
      !absl::SimpleAtoi(token.substr(0, colon), time)) {
    return false;
  }
  const absl::string_view hex = token.substr(colon + 1);
  if (hex.size() % 2 != 0) return false;
  entity->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexDigit(hex[i]), lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    entity->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

// Where a search resumes: after fix (entity, time) in (entity, time) order.
struct Resume {
  bool any = false;
  std::string entity;
  int64_t time = 0;
};

class HistorySearch {
 public:
  HistorySearch(const Engine& engine, const HistoryQuery& q, int64_t start_ms,
                Resume resume)
      : engine_(engine),
        q_(q),
        start_ms_(start_ms),
        resume_(std::move(resume)),
        snapshot_(engine.db.get()) {
    read_.snapshot = snapshot_.snapshot();
  }

  absl::Status FindCandidates();
  absl::Status CheckCandidates();
  HistoryPage TakePage() { return std::move(page_); }

 private:
  // The buckets of [start_ms, end_ms] in which each entity has a cell the
  // region meets, by entity.
  using Candidates = std::map<std::string, std::vector<int64_t>>;

  absl::Status ScanBucket(rocksdb::Iterator& it,
                          const std::vector<index::CellRange>& ranges,
                          int64_t bucket);
  absl::Status CheckEntity(HistoryCursor& cursor, const std::string& entity,
                           const std::vector<int64_t>& buckets);
  // Takes the entity's fixes in [from, to] that the region contains;
  // `*page_full` is set when Take refused one.
  absl::Status CheckEntityWindow(HistoryCursor& cursor,
                                 const std::string& entity, int64_t from,
                                 int64_t to, bool* page_full);
  // Takes one fix inside; false when the page is full (and one more row
  // exists, so the page gets a token).
  bool Take(model::TrackPoint p);
  bool EndEntity();

  const Engine& engine_;
  const HistoryQuery& q_;
  const int64_t start_ms_;
  const Resume resume_;
  rocksdb::ManagedSnapshot snapshot_;
  rocksdb::ReadOptions read_;
  std::string prefix_;  // HistoryCellsPrefix
  Candidates candidates_;
  HistoryPage page_;
  HistoryVisit visit_;  // per_entity: the current entity's
  bool full_ = false;
};

absl::Status HistorySearch::FindCandidates() {
  const std::vector<index::CellRange> ranges =
      index::CoarsenCovering(index::Covering(*q_.region), kHistoryCellLevel);
  prefix_ = HistoryCellsPrefix(q_.collection);
  const std::string end = PrefixEnd(prefix_);
  rocksdb::ReadOptions read = read_;
  rocksdb::Slice upper(end);
  if (!end.empty()) read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(
      engine_.db->NewIterator(read, engine_.points()));
  const int64_t last = HistoryBucketOf(q_.end_ms);
  int64_t bucket = HistoryBucketOf(start_ms_);
  while (true) {
    if (absl::Status s = ScanBucket(*it, ranges, bucket); !s.ok()) return s;
    if (bucket >= last) break;
    // On to the next bucket that has any cell: empty hours cost one seek.
    it->Seek(HistoryCellSeekKey(q_.collection, bucket + 1, 0));
    if (!it->Valid()) break;
    std::optional<HistoryCellKeyParts> next =
        ParseHistoryCellSuffix(SliceView(it->key()).substr(prefix_.size()));
    if (!next) return absl::DataLossError("corrupt history cell key");
    bucket = next->bucket;
    if (bucket > last) break;
  }
  return FromRocks(it->status(), "reading history cells");
}

absl::Status HistorySearch::ScanBucket(
    rocksdb::Iterator& it, const std::vector<index::CellRange>& ranges,
    int64_t bucket) {
  for (const index::CellRange& r : ranges) {
    for (it.Seek(HistoryCellSeekKey(q_.collection, bucket, r.first));
         it.Valid(); it.Next()) {
      std::optional<HistoryCellKeyParts> cell =
          ParseHistoryCellSuffix(SliceView(it.key()).substr(prefix_.size()));
      if (!cell) return absl::DataLossError("corrupt history cell key");
      // Past this bucket: no later range of it has cells either.
      if (cell->bucket != bucket) return absl::OkStatus();
      if (cell->cell > r.last) break;
      ++page_.cells_read;
      if (resume_.any && cell->entity < resume_.entity) continue;
      std::vector<int64_t>& buckets = candidates_[std::string(cell->entity)];
      if (buckets.empty() || buckets.back() != bucket) {
        buckets.push_back(bucket);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status HistorySearch::CheckCandidates() {
  // Both under the search's snapshot: a fold is seen whole or not at all.
  std::unique_ptr<rocksdb::Iterator> points(
      engine_.db->NewIterator(read_, engine_.points()));
  std::unique_ptr<rocksdb::Iterator> chunks(
      engine_.db->NewIterator(read_, engine_.chunks()));
  HistoryCursor cursor(points.get(), chunks.get());
  for (const auto& [entity, buckets] : candidates_) {
    if (absl::Status s = CheckEntity(cursor, entity, buckets); !s.ok()) {
      return s;
    }
    if (full_ || !EndEntity()) break;
  }
  return absl::OkStatus();
}

absl::Status HistorySearch::CheckEntity(HistoryCursor& cursor,
                                        const std::string& entity,
                                        const std::vector<int64_t>& buckets) {
  int64_t from_floor = start_ms_;
  if (resume_.any && entity == resume_.entity) {
    if (resume_.time == INT64_MAX) return absl::OkStatus();
    from_floor = std::max(from_floor, resume_.time + 1);
  }
  int64_t checked_to = INT64_MIN;  // buckets are ascending
  for (int64_t bucket : buckets) {
    const int64_t from = std::max(from_floor, HistoryBucketFirstMs(bucket));
    const int64_t to = std::min(q_.end_ms, HistoryBucketLastMs(bucket));
    if (from > to || to <= checked_to) continue;
    checked_to = to;
    bool page_full = false;
    if (absl::Status s =
            CheckEntityWindow(cursor, entity, from, to, &page_full);
        !s.ok()) {
      return s;
    }
    if (page_full) return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status HistorySearch::CheckEntityWindow(HistoryCursor& cursor,
                                              const std::string& entity,
                                              int64_t from, int64_t to,
                                              bool* page_full) {
  if (absl::Status s = cursor.Seek(q_.collection, entity, {from, from, to});
      !s.ok()) {
    return s;
  }
  for (; cursor.Valid();) {
    ++page_.fixes_read;
    const absl::StatusOr<PointPosition> at = cursor.Position();
    if (!at.ok()) return at.status();
    if (q_.region->Contains({at->lat, at->lon})) {
      model::TrackPoint p;
      p.entity = entity;
      if (absl::Status s = cursor.Read(&p); !s.ok()) return s;
      if (!Take(std::move(p))) {
        *page_full = true;
        return absl::OkStatus();
      }
    }
    if (absl::Status s = cursor.Next(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

bool HistorySearch::Take(model::TrackPoint p) {
  if (q_.per_entity) {
    if (visit_.fixes == 0) visit_.first = p;
    ++visit_.fixes;
    visit_.last = std::move(p);
    return true;
  }
  if (static_cast<int>(page_.points.size()) == q_.limit) {
    const model::TrackPoint& last = page_.points.back();
    page_.next_page_token = EncodeToken(last.entity, last.loc_time_ms);
    full_ = true;
    return false;
  }
  page_.points.push_back(std::move(p));
  return true;
}

bool HistorySearch::EndEntity() {
  if (!q_.per_entity || visit_.fixes == 0) return true;
  if (static_cast<int>(page_.visits.size()) == q_.limit) {
    page_.next_page_token =
        EncodeToken(page_.visits.back().first.entity, INT64_MAX);
    return false;
  }
  page_.visits.push_back(std::move(visit_));
  visit_ = HistoryVisit();
  return true;
}

}  // namespace

absl::StatusOr<HistoryPage> TrackStore::SearchHistory(const HistoryQuery& q) {
  if (q.region == nullptr) {
    return absl::InvalidArgumentError("a search area is required");
  }
  if (absl::Status v = model::ValidateReadWindow(q.limit, q.start_ms, q.end_ms);
      !v.ok()) {
    return v;
  }
  Resume resume;
  if (!q.page_token.empty()) {
    // Not echoed: a client's token can be any size.
    if (!ParseToken(q.page_token, &resume.entity, &resume.time)) {
      return absl::InvalidArgumentError(
          "page_token is not one this search returned");
    }
    resume.any = true;
  }
  engine_->activity.AddHistorySearch();
  // History past the collection's retention is not shown (as GetTrack).
  const int64_t start_ms = std::max(
      q.start_ms, retention_->HistoryCutoff(q.collection, SystemNowMs()));
  if (start_ms > q.end_ms) return HistoryPage{};
  HistorySearch search(*engine_, q, start_ms, std::move(resume));
  if (absl::Status s = search.FindCandidates(); !s.ok()) return s;
  if (absl::Status s = search.CheckCandidates(); !s.ok()) return s;
  return search.TakePage();
}

}  // namespace trackdb::storage
