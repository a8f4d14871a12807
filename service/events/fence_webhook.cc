#include "service/events/fence_webhook.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "model/validate.h"
#include "service/events/fence_json.h"
#include "storage/replication/replication.h"

namespace trackdb::service {
namespace {

constexpr size_t kPage = 100;

absl::Status Validate(const v1::FenceWebhook& config) {
  if (config.name().empty() || config.name().size() > 256) {
    return absl::InvalidArgumentError(
        "fence_webhooks.name must be 1 to 256 bytes");
  }
  return model::ValidateCollection(config.collection(),
                                   "fence_webhooks.collection");
}

// The config checked, and its URL.
absl::StatusOr<HttpUrl> WebhookUrl(const v1::FenceWebhook& config) {
  if (absl::Status s = Validate(config); !s.ok()) return s;
  absl::StatusOr<HttpUrl> url = ParseHttpUrl(config.url());
  if (!url.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("fence_webhooks.", url.status().message()));
  }
  return url;
}

}  // namespace

absl::Status FenceWebhook::Check(const v1::FenceWebhook& config) {
  return WebhookUrl(config).status();
}

absl::StatusOr<std::unique_ptr<FenceWebhook>> FenceWebhook::Start(
    storage::TrackStore* store, const v1::FenceWebhook& config, Timing timing) {
  absl::StatusOr<HttpUrl> url = WebhookUrl(config);
  if (!url.ok()) return url.status();
  absl::StatusOr<std::optional<uint64_t>> cursor =
      store->fences().Cursor(config.collection(), config.name());
  if (!cursor.ok()) return cursor.status();
  uint64_t next = cursor->value_or(0);
  // A replica delivers nothing (its primary does) and writes no cursor: it
  // reads the replicated one once promoted (Run).
  if (!cursor->has_value() && !storage::IsReplica(*store)) {
    next = store->fences().LogEnd(config.collection());
    absl::Status s =
        store->fences().SetCursor(config.collection(), config.name(), next);
    if (!s.ok()) return s;
  }
  return std::unique_ptr<FenceWebhook>(
      new FenceWebhook(store, config, *std::move(url), timing, next));
}

FenceWebhook::FenceWebhook(storage::TrackStore* store, v1::FenceWebhook config,
                           HttpUrl url, Timing timing, uint64_t next)
    : store_(store),
      config_(std::move(config)),
      url_(std::move(url)),
      timing_(timing) {
  counters_.next_offset = next;
  thread_.Start([this, next] { Run(next); });
}

WebhookCounters FenceWebhook::counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

bool FenceWebhook::Deliver(const std::string& body) {
  absl::Duration backoff = timing_.first_backoff;
  for (bool first = true;; first = false) {
    if (thread_.Stopped()) return false;
    const absl::Status s = HttpPost(url_, body, timing_.post_timeout);
    uint64_t failed = 0;
    {
      absl::MutexLock lock(&mu_);
      if (!first) ++counters_.retried;
      if (s.ok()) {
        ++counters_.delivered;
        return true;
      }
      failed = ++counters_.failed;
    }
    if (failed % 100 == 1) {
      std::fprintf(stderr, "trackd: webhook %s: %s (retrying)\n",
                   config_.name().c_str(), std::string(s.message()).c_str());
    }
    if (!thread_.WaitFor(backoff)) return false;
    backoff = std::min(backoff * 2, timing_.max_backoff);
  }
}

// While the store is a replica: waits for its promotion, then resumes from
// the cursor its primary saved (or, if none, the log's end). False when
// stopped.
bool FenceWebhook::AwaitPrimary(uint64_t* next) {
  bool waited = false;
  while (storage::IsReplica(*store_)) {
    waited = true;
    if (!thread_.WaitFor(absl::Milliseconds(200))) return false;
  }
  if (!waited) return true;
  const std::string& collection = config_.collection();
  absl::StatusOr<std::optional<uint64_t>> cursor =
      store_->fences().Cursor(collection, config_.name());
  if (cursor.ok() && cursor->has_value()) {
    *next = **cursor;
  } else {
    *next = store_->fences().LogEnd(collection);
    (void)store_->fences().SetCursor(collection, config_.name(), *next);
  }
  absl::MutexLock lock(&mu_);
  counters_.next_offset = *next;
  return true;
}

void FenceWebhook::Run(uint64_t next) {
  const std::string& collection = config_.collection();
  while (!thread_.Stopped()) {
    if (!AwaitPrimary(&next)) return;
    absl::StatusOr<storage::FenceEventsPage> page =
        store_->fences().ReadEvents(collection, next, kPage);
    if (!page.ok()) {
      if (!thread_.WaitFor(timing_.first_backoff)) return;
      continue;
    }
    for (const storage::FenceEventRecord& e : page->events) {
      if (!Deliver(resp::FenceEventJson(collection, e))) return;
      next = e.offset + 1;
      {
        absl::MutexLock lock(&mu_);
        counters_.next_offset = next;
      }
      // Not saved (a disk error): the event is sent again after a restart.
      (void)store_->fences().SetCursor(collection, config_.name(), next);
    }
    if (page->events.empty()) {
      if (page->next_offset > next) {
        // Retention removed events past the cursor: none is left to send.
        next = page->next_offset;
        {
          absl::MutexLock lock(&mu_);
          counters_.next_offset = next;
        }
        (void)store_->fences().SetCursor(collection, config_.name(), next);
      }
      store_->fences().WaitForEvents(collection, next,
                                 absl::Now() + absl::Milliseconds(200));
    }
  }
}

absl::StatusOr<std::unique_ptr<FenceWebhooks>> FenceWebhooks::Start(
    storage::TrackStore* store, const v1::ServerConfig& server,
    FenceWebhook::Timing timing) {
  // Every webhook checked before any starts (and stores its offset).
  absl::flat_hash_set<std::string> names;
  for (const v1::FenceWebhook& config : server.fence_webhooks()) {
    if (!names.insert(config.name()).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fence_webhooks.name \"", config.name(),
          "\" is used twice: a name identifies one webhook (in stats and "
          "INFO)"));
    }
    if (absl::Status s = FenceWebhook::Check(config); !s.ok()) return s;
  }
  std::unique_ptr<FenceWebhooks> hooks(new FenceWebhooks(store));
  for (const v1::FenceWebhook& config : server.fence_webhooks()) {
    auto started = FenceWebhook::Start(store, config, timing);
    if (!started.ok()) return started.status();
    hooks->hooks_.push_back(*std::move(started));
  }
  return hooks;
}

std::vector<WebhookStats> FenceWebhooks::Stats() const {
  std::vector<WebhookStats> stats;
  for (const std::unique_ptr<FenceWebhook>& hook : hooks_) {
    WebhookStats& s = stats.emplace_back();
    s.name = hook->name();
    s.collection = hook->collection();
    // The query often carries a token: stats show the URL without it.
    s.url = hook->url().substr(0, hook->url().find_first_of("?#"));
    s.counters = hook->counters();
    const uint64_t end = store_->fences().LogEnd(s.collection);
    s.pending = end > s.counters.next_offset ? end - s.counters.next_offset : 0;
  }
  return stats;
}

}  // namespace trackdb::service
