// Reads of latest positions and of history.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "model/validate.h"
#include "storage/engine/engine.h"
#include "storage/entity_history.h"
#include "storage/format/keys.h"
#include "storage/format/point_codec.h"
#include "storage/format/rocks_util.h"
#include "storage/points/history_cursor.h"
#include "storage/strings/kv_expiry.h"
#include "storage/track_store.h"

namespace trackdb::storage {
namespace {

absl::StatusOr<model::TrackPoint> DecodeWithEntity(absl::string_view value,
                                                   absl::string_view entity) {
  model::TrackPoint p;
  p.entity = std::string(entity);
  if (absl::Status s = DecodePointValue(value, &p); !s.ok()) return s;
  return p;
}

// Checks `q`'s limit and times, and sets `*from_ms` to the loc_time of the
// first point to return: its page token's, else the query's first end.
absl::Status CheckTrackQuery(const TrackQuery& q, int64_t* from_ms) {
  if (absl::Status v = model::ValidateReadWindow(q.limit, q.start_ms, q.end_ms);
      !v.ok()) {
    return v;
  }
  // A page token is the loc_time of the next point to return.
  *from_ms = q.descending ? q.end_ms : q.start_ms;
  if (!q.page_token.empty()) {
    if (!absl::SimpleAtoi(q.page_token, from_ms) || *from_ms < q.start_ms ||
        *from_ms > q.end_ms) {
      // Not echoed: a client's token can be any size, and a status
      // message past gRPC's metadata limit turns the error into another.
      return absl::InvalidArgumentError(
          "page_token is not one this query returned");
    }
  }
  return absl::OkStatus();
}

// Up to q.limit of the entity's fixes from `from_ms` on (down, when
// descending) inside [start_ms, q.end_ms] into `page`, with a token when
// more are left.
absl::Status ReadTrackPage(HistoryCursor& cursor, const TrackQuery& q,
                           int64_t from_ms, int64_t start_ms, TrackPage* page) {
  if (absl::Status s = cursor.Seek(q.collection, q.entity,
                                   {from_ms, start_ms, q.end_ms, q.descending});
      !s.ok()) {
    return s;
  }
  for (; cursor.Valid();) {
    if (static_cast<int>(page->points.size()) == q.limit) {
      page->next_page_token = absl::StrCat(cursor.time());
      break;
    }
    model::TrackPoint p;
    p.entity = q.entity;
    if (absl::Status s = cursor.Read(&p); !s.ok()) return s;
    page->points.push_back(std::move(p));
    if (absl::Status s = cursor.Next(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<model::TrackPoint>> TrackStore::GetLatest(
    absl::string_view collection, absl::string_view entity) {
  rocksdb::PinnableSlice value;
  rocksdb::Status s =
      engine_->db->Get(rocksdb::ReadOptions(), engine_->latest(),
                       LatestKey(collection, entity), &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, "reading latest");
  auto p = DecodeWithEntity(SliceView(value), entity);
  if (!p.ok()) return p.status();
  return *std::move(p);
}

absl::StatusOr<std::vector<std::optional<model::TrackPoint>>>
TrackStore::GetLatest(absl::string_view collection,
                      absl::Span<const std::string> entities) {
  const size_t n = entities.size();
  std::vector<std::string> key_bytes;
  key_bytes.reserve(n);
  std::vector<rocksdb::Slice> keys;
  keys.reserve(n);
  for (const std::string& e : entities) {
    key_bytes.push_back(LatestKey(collection, e));
    keys.emplace_back(key_bytes.back());
  }
  std::vector<rocksdb::PinnableSlice> values(n);
  std::vector<rocksdb::Status> statuses(n);
  engine_->db->MultiGet(rocksdb::ReadOptions(), engine_->latest(), n,
                        keys.data(), values.data(), statuses.data());
  std::vector<std::optional<model::TrackPoint>> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return FromRocks(statuses[i], "reading latest");
    auto p = DecodeWithEntity(SliceView(values[i]), entities[i]);
    if (!p.ok()) return p.status();
    out[i] = *std::move(p);
  }
  return out;
}

absl::StatusOr<TrackPage> TrackStore::GetTrack(const TrackQuery& q) {
  int64_t from_ms = 0;
  if (absl::Status s = CheckTrackQuery(q, &from_ms); !s.ok()) return s;

  // History past the collection's retention is not shown, whether or not
  // compaction has dropped it yet (storage/points/retention.h). The cutoff may
  // also have passed a token's time since its page was read.
  const int64_t start_ms = std::max(
      q.start_ms, retention_->HistoryCutoff(q.collection, SystemNowMs()));
  if (start_ms > q.end_ms) return TrackPage{};
  if (from_ms < start_ms) {
    if (q.descending) return TrackPage{};
    from_ms = start_ms;
  }
  EntityHistory history(q.collection, q.entity);
  if (absl::Status s = history.Open(*engine_); !s.ok()) return s;
  TrackPage page;
  if (absl::Status s =
          ReadTrackPage(history.cursor(), q, from_ms, start_ms, &page);
      !s.ok()) {
    return s;
  }
  return page;
}

absl::StatusOr<FixesAround> TrackStore::GetFixesAround(
    absl::string_view collection, absl::string_view entity, int64_t time_ms) {
  const int64_t cutoff =
      retention_->HistoryCutoff(collection, SystemNowMs());
  EntityHistory history(collection, entity);
  if (absl::Status s = history.Open(*engine_); !s.ok()) return s;
  HistoryCursor& cursor = history.cursor();
  FixesAround out;
  // One cursor for both sides: a chunk holding both is decoded once.
  const auto read = [&](const HistoryCursor::Range& range,
                        std::optional<model::TrackPoint>* fix) {
    if (absl::Status s = cursor.Seek(collection, entity, range); !s.ok()) {
      return s;
    }
    if (!cursor.Valid()) return absl::OkStatus();
    fix->emplace();
    (*fix)->entity = std::string(entity);
    return cursor.Read(&**fix);
  };
  if (time_ms >= cutoff) {
    if (absl::Status s = read({time_ms, cutoff, time_ms, true}, &out.before);
        !s.ok()) {
      return s;
    }
  }
  if (time_ms < INT64_MAX) {
    const int64_t from_ms = std::max(time_ms + 1, cutoff);
    if (absl::Status s = read({from_ms, from_ms, INT64_MAX, false}, &out.after);
        !s.ok()) {
      return s;
    }
  }
  return out;
}

}  // namespace trackdb::storage
