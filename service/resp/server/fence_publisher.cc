#include "service/resp/server/fence_publisher.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "service/events/fence_json.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

// How long the thread waits for events before it looks at stop_ again.
constexpr absl::Duration kStopCheck = absl::Milliseconds(200);
constexpr size_t kPage = 1000;

}  // namespace

FencePublisher::FencePublisher(storage::TrackStore* store, PubSub* pubsub)
    : store_(store), pubsub_(pubsub) {
  // From now on: what was logged before the server started is not news.
  for (auto& [name, end] : store_->fences().LogEnds()) next_[name] = end;
  thread_ = std::thread([this] { Run(); });
}

FencePublisher::~FencePublisher() { Stop(); }

void FencePublisher::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void FencePublisher::Run() {
  uint64_t seen = 0;  // below any tick: the first round looks at every log
  while (!stop_.load()) {
    store_->fences().WaitForLogTick(seen, absl::Now() + kStopCheck);
    // Read before the logs: a tick after this is waited for next round.
    seen = store_->fences().LogTicks();
    for (const auto& [name, end] : store_->fences().LogEnds()) {
      // A collection fenced since the start: its log from the beginning.
      uint64_t& next = next_.try_emplace(name, 1).first->second;
      if (end <= next) continue;
      if (pubsub_->Empty()) {
        next = end;  // nobody listens: nothing to read
        continue;
      }
      Publish(name, end);
    }
  }
}

void FencePublisher::Publish(const std::string& name, uint64_t end) {
  uint64_t& next = next_[name];
  // Events of a Redis key show the key; of a gRPC collection, its name.
  const std::optional<types::DbKey> key = types::ParseKeyName(name);
  const std::string shown = key ? key->key : name;
  while (next < end && !stop_.load()) {
    auto page = store_->fences().ReadEvents(name, next, kPage);
    if (!page.ok() || page->next_offset <= next) return;  // retried next tick
    for (const storage::FenceEventRecord& e : page->events) {
      pubsub_->Publish(absl::StrCat("fence:", e.fence),
                       FenceEventJson(shown, e));
    }
    next = page->next_offset;
  }
}

}  // namespace trackdb::resp
