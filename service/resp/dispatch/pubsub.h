#ifndef TRACKDB_SERVICE_RESP_DISPATCH_PUBSUB_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_PUBSUB_H_

// Redis pub/sub: who is subscribed to which channels and patterns, and
// delivery of a message to each of them as Redis frames it ("message" to a
// channel's subscribers, "pmessage" to a matching pattern's; RESP3 as a
// push). Channels are server-wide, as in Redis (not per database).
//
// Thread-safe. Delivery hands each subscriber its framed bytes through
// PushTarget, which its connection implements (resp_server.cc): the
// connection writes them between its replies, in the order given. A
// subscriber that went away is skipped and forgotten.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace trackdb::resp {

class PushTarget {
 public:
  virtual ~PushTarget() = default;
  // Takes bytes to send; called from any thread.
  virtual void Push(std::string bytes) = 0;
};

class PubSub {
 public:
  // A client's subscriptions change: `channel` is a pattern if `pattern`.
  // Each returns the client's number of subscriptions (channels and
  // patterns) after it, as SUBSCRIBE's and UNSUBSCRIBE's replies count.
  int Subscribe(int64_t client, std::weak_ptr<PushTarget> target, int protocol,
                const std::string& channel, bool pattern);
  int Unsubscribe(int64_t client, const std::string& channel, bool pattern);
  // The client's channels (or patterns), sorted.
  std::vector<std::string> SubscriptionsOf(int64_t client, bool pattern) const;
  // How many patterns the client is subscribed to (CLIENT LIST's psub).
  int PatternCountOf(int64_t client) const;
  void RemoveClient(int64_t client);

  // Delivers `message` on `channel`; returns how many subscriptions it
  // went to (PUBLISH's reply: a client with a channel and a matching
  // pattern counts twice).
  int Publish(absl::string_view channel, absl::string_view message);
  // Whether anyone is subscribed to anything: publishers skip work if not.
  bool Empty() const;

  // PUBSUB's answers. The channels with a subscriber that `pattern` (a
  // glob) matches, all of them without one, sorted; a channel's number of
  // subscribers; the number of distinct patterns subscribed to.
  std::vector<std::string> Channels(
      std::optional<absl::string_view> pattern) const;
  int Subscribers(absl::string_view channel) const;
  int Patterns() const;

 private:
  struct Subscriber {
    std::weak_ptr<PushTarget> target;
    int protocol = 2;
    std::set<std::string> channels, patterns;
  };
  int CountLocked(int64_t client) const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<int64_t, Subscriber> clients_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::set<int64_t>, std::less<>> channels_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::set<int64_t>, std::less<>> patterns_
      ABSL_GUARDED_BY(mu_);
};

// The frames Redis sends a subscriber: a push of `words` (RESP2: an
// array) whose last element is an integer count when `count` >= 0, and
// whose string words are bulk strings (a null bulk for nullptr).
std::string PushFrame(int protocol,
                      const std::vector<const std::string*>& words,
                      int64_t count = -1);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_PUBSUB_H_
