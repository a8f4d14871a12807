#include "service/web/map_stream.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "formats/text.h"
#include "service/events/fence_json.h"
#include "service/web/map_json.h"

namespace trackdb::web {
namespace {

using Update = storage::LatestFeed::Update;

// How often what moved is sent: a browser redraws once per message.
constexpr absl::Duration kTick = absl::Milliseconds(100);
// A comment line this often keeps proxies and the browser from deciding
// the stream is dead.
constexpr absl::Duration kKeepAlive = absl::Seconds(15);
constexpr size_t kReadMax = 4096;
constexpr size_t kEventsMax = 256;

// Sent with each message: the page reports how long after it drew it.
int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }

std::string Message(absl::string_view event, absl::string_view data) {
  return absl::StrCat("event: ", event, "\ndata: ", data, "\n\n");
}

class CollectionStream {
 public:
  CollectionStream(storage::TrackStore& store, std::string collection)
      : store_(store),
        collection_(std::move(collection)),
        watch_(store.latest_feed().StartWatch(collection_)),
        next_(watch_.from()),
        fence_next_(store.fences().LogEnd(collection_)) {}

  void Run(EventStream& out) {
    if (!SendSnapshot(out)) return;
    absl::Time keepalive = absl::Now() + kKeepAlive;
    while (!out.stopping()) {
      absl::SleepFor(kTick);
      if (!SendPositions(out) || !SendFenceEvents(out)) return;
      if (absl::Now() >= keepalive) {
        if (!out.Send(": keepalive\n\n")) return;
        keepalive = absl::Now() + kKeepAlive;
      }
    }
  }

 private:
  // Every entity, from a view taken after the feed's position: what it
  // misses has a seq >= next_ and comes as positions.
  bool SendSnapshot(EventStream& out) {
    next_ = store_.latest_feed().next_seq();
    std::string rows = "{\"rows\":[";
    bool first = true;
    absl::Status s =
        store_.ScanLatest(collection_, [&](const model::TrackPoint& p) {
          if (!first) rows += ',';
          first = false;
          AppendRow(p.entity, p.lat, p.lon, p.loc_time_ms, &rows);
          return true;
        });
    if (!s.ok()) {
      return out.Send(Message("error", ErrorJson(s.message())));
    }
    return out.Send(Message(
        "snapshot", absl::StrCat(rows, "],\"sent_ms\":", NowMs(), "}")));
  }

  // What moved since the last tick, each entity once.
  bool SendPositions(EventStream& out) {
    absl::flat_hash_map<std::string, Update> moved;
    std::vector<std::string> order;
    for (;;) {
      storage::LatestFeed::Batch batch = store_.latest_feed().Read(
          collection_, next_, kReadMax, absl::InfinitePast());
      next_ = batch.next;
      bool reset = batch.lost;
      for (Update& u : batch.updates) {
        if (u.kind == Update::Kind::kReset) reset = true;
        auto [it, added] = moved.insert_or_assign(u.entity, std::move(u));
        if (added) order.push_back(it->first);
      }
      if (reset) return SendSnapshot(out);
      if (batch.updates.size() < kReadMax) break;
    }
    if (moved.empty()) return true;
    std::string set = "{\"set\":[", erase = "],\"erase\":[";
    bool first_set = true, first_erase = true;
    for (const std::string& entity : order) {
      const Update& u = moved[entity];
      if (u.kind == Update::Kind::kSet) {
        if (!first_set) set += ',';
        first_set = false;
        AppendRow(entity, u.position.lat, u.position.lon,
                  u.position.loc_time_ms, &set);
      } else {
        absl::StrAppend(&erase, first_erase ? "" : ",",
                        formats::JsonString(entity));
        first_erase = false;
      }
    }
    return out.Send(Message(
        "positions", absl::StrCat(set, erase, "],\"sent_ms\":", NowMs(), "}")));
  }

  bool SendFenceEvents(EventStream& out) {
    while (store_.fences().LogEnd(collection_) > fence_next_) {
      absl::StatusOr<storage::FenceEventsPage> page =
          store_.fences().ReadEvents(collection_, fence_next_, kEventsMax);
      if (!page.ok() || page->next_offset <= fence_next_) return true;
      for (const storage::FenceEventRecord& e : page->events) {
        if (!out.Send(Message("fence", resp::FenceEventJson(collection_, e)))) {
          return false;
        }
      }
      fence_next_ = page->next_offset;
    }
    return true;
  }

  storage::TrackStore& store_;
  const std::string collection_;
  const storage::LatestFeed::Watch watch_;
  uint64_t next_;
  uint64_t fence_next_;
};

}  // namespace

WebAnswer StreamAnswer(storage::TrackStore& store, std::string collection) {
  WebAnswer answer;
  answer.answer.content_type = "text/event-stream; charset=utf-8";
  answer.stream = [&store,
                   collection = std::move(collection)](EventStream& out) {
    CollectionStream(store, collection).Run(out);
  };
  return answer;
}

}  // namespace trackdb::web
