#ifndef TRACKDB_SERVICE_EVENTS_FENCE_WEBHOOK_H_
#define TRACKDB_SERVICE_EVENTS_FENCE_WEBHOOK_H_

// An outbound webhook (trackdb.v1.FenceWebhook in the config): a thread
// that follows a collection's fence event log and POSTs each event, as the
// JSON FENCE.EVENTS gives, to a URL, in offset order and at least once.
// A failed POST is retried with doubling backoff until it is accepted;
// after each accepted one the next offset is stored (TrackStore::
// FenceStore::SetCursor under the webhook's name), so a restart resumes there and
// at most the event in flight is sent twice. A webhook seen for the first
// time starts at the log's end.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "service/events/http_post.h"
#include "service/jobs/stoppable_thread.h"
#include "storage/track_store.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::service {

struct WebhookCounters {
  uint64_t delivered = 0;    // events accepted by the endpoint
  uint64_t failed = 0;       // POSTs that failed
  uint64_t retried = 0;      // POSTs sent again after a failure
  uint64_t next_offset = 0;  // the first event not yet accepted
};

// One endpoint as stats report it (INFO's "# Webhooks", GetStats).
struct WebhookStats {
  std::string name;
  std::string collection;
  std::string url;  // without its query (which often holds a token)
  WebhookCounters counters;
  uint64_t pending = 0;  // events in the log not yet accepted
};

class FenceWebhook {
 public:
  struct Timing {
    absl::Duration post_timeout = absl::Seconds(10);
    absl::Duration first_backoff = absl::Milliseconds(100);
    absl::Duration max_backoff = absl::Seconds(30);
  };

  // INVALID_ARGUMENT naming the field for a bad name, url or collection.
  static absl::Status Check(const v1::FenceWebhook& config);
  // Check()s, then starts.
  static absl::StatusOr<std::unique_ptr<FenceWebhook>> Start(
      storage::TrackStore* store, const v1::FenceWebhook& config,
      Timing timing);
  static absl::StatusOr<std::unique_ptr<FenceWebhook>> Start(
      storage::TrackStore* store, const v1::FenceWebhook& config) {
    return Start(store, config, Timing());
  }
  // Destroying it stops it; an event not yet accepted is sent after a
  // restart.

  const std::string& name() const { return config_.name(); }
  const std::string& collection() const { return config_.collection(); }
  const std::string& url() const { return config_.url(); }
  WebhookCounters counters() const;

 private:
  // `next`: the stored offset to deliver from.
  FenceWebhook(storage::TrackStore* store, v1::FenceWebhook config, HttpUrl url,
               Timing timing, uint64_t next);
  void Run(uint64_t next);
  bool AwaitPrimary(uint64_t* next);
  // Posts until accepted; false if stopped first.
  bool Deliver(const std::string& body);

  storage::TrackStore* const store_;
  const v1::FenceWebhook config_;
  const HttpUrl url_;
  const Timing timing_;
  mutable absl::Mutex mu_;
  WebhookCounters counters_ ABSL_GUARDED_BY(mu_);
  StoppableThread thread_;
};

// The webhooks of a server config, running together; what both doors'
// stats read.
class FenceWebhooks {
 public:
  // INVALID_ARGUMENT naming the field for a bad webhook or a name used
  // twice (a name identifies a webhook in stats and INFO); nothing starts
  // unless every webhook is good.
  static absl::StatusOr<std::unique_ptr<FenceWebhooks>> Start(
      storage::TrackStore* store, const v1::ServerConfig& server,
      FenceWebhook::Timing timing = FenceWebhook::Timing());

  size_t size() const { return hooks_.size(); }
  // In config order.
  std::vector<WebhookStats> Stats() const;

 private:
  explicit FenceWebhooks(storage::TrackStore* store) : store_(store) {}

  storage::TrackStore* const store_;
  std::vector<std::unique_ptr<FenceWebhook>> hooks_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_EVENTS_FENCE_WEBHOOK_H_
