#ifndef TRACKDB_TOOLS_IMPORT_ONLINE_SINK_H_
#define TRACKDB_TOOLS_IMPORT_ONLINE_SINK_H_

// Online import: points go to a running trackd as AddPoints calls of
// `batch_points`, sent by `in_flight` threads over one channel, so at most
// `in_flight` calls are outstanding and at most `in_flight` more batches
// wait: memory stays bounded however large the input.
//
// A call that fails with UNAVAILABLE, DEADLINE_EXCEEDED or
// RESOURCE_EXHAUSTED is retried with backoff (AddPoints is idempotent:
// keys are (collection, entity, loc_time)). Any other failure ends the
// import, naming the input line of the point trackd refused; batches sent
// before it stay stored.
//
// Batches run concurrently, so when one input holds two different points
// with the same entity and loc_time, which one trackd keeps is not defined
// unless in_flight is 1 (offline import keeps the later one).

#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/channel.h"
#include "tools/import/point_sink.h"
#include "trackdb/v1/track_service.grpc.pb.h"

namespace trackdb::import {

struct OnlineOptions {
  std::string collection;
  int batch_points = 1000;
  int in_flight = 4;
  int max_attempts = 5;  // per call, for the retryable codes above
  absl::Duration call_timeout = absl::Seconds(60);
};

class OnlineSink : public PointSink {
 public:
  OnlineSink(std::shared_ptr<grpc::Channel> channel, OnlineOptions options);
  ~OnlineSink() override;

  absl::Status Add(const model::TrackPoint& point,
                   const RowOrigin& origin) override;
  absl::Status Finish(Progress* progress) override;
  std::vector<std::string> Summary() const override;

  uint64_t stored() const;
  uint64_t calls() const;
  uint64_t retries() const;

 private:
  struct Batch {
    v1::AddPointsRequest request;
    std::vector<RowOrigin> origins;
  };

  void Worker();
  absl::Status Send(const Batch& batch);
  absl::Status Enqueue();
  void Stop();

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::TrackService::Stub> stub_;
  OnlineOptions options_;
  std::unique_ptr<Batch> current_;
  std::vector<std::thread> workers_;

  mutable absl::Mutex mu_;
  std::deque<std::unique_ptr<Batch>> queue_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  uint64_t stored_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t calls_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t retries_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_ONLINE_SINK_H_
