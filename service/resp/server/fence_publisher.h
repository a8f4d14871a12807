#ifndef TRACKDB_SERVICE_RESP_SERVER_FENCE_PUBLISHER_H_
#define TRACKDB_SERVICE_RESP_SERVER_FENCE_PUBLISHER_H_

// Publishes every fence event the store logs on the RESP pub/sub channel
// "fence:<fence name>", one message per event, in FENCE.EVENTS's JSON
// (fence_json.h; its "collection" field says which key's fence it is):
// `SUBSCRIBE fence:depot`, or `PSUBSCRIBE fence:*` for every fence. A
// thread follows every collection's event log (FenceStore::LogTicks)
// from the moment it starts, so events come in each collection's offset
// order, about as soon as their points are acknowledged.
//
// Delivery is Redis pub/sub's, at most once: a subscriber that was not
// connected misses what was published meanwhile. Consumers that must not
// miss an event read the log by offset (FENCE.EVENTS, gRPC's Watch).

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <thread>

#include "service/resp/dispatch/pubsub.h"
#include "storage/track_store.h"

namespace trackdb::resp {

class FencePublisher {
 public:
  // `store` and `pubsub` outlive the publisher.
  FencePublisher(storage::TrackStore* store, PubSub* pubsub);
  ~FencePublisher();  // Stop()s
  // Returns once the thread has stopped.
  void Stop();

 private:
  void Run();
  // Publishes collection `name`'s events up to `end`.
  void Publish(const std::string& name, uint64_t end);

  storage::TrackStore* const store_;
  PubSub* const pubsub_;
  std::map<std::string, uint64_t> next_;  // per collection; the thread's
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_SERVER_FENCE_PUBLISHER_H_
