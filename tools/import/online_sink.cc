#include "tools/import/online_sink.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "grpcpp/client_context.h"
#include "service/grpc/point_convert.h"

namespace trackdb::import {
namespace {

bool Retryable(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAVAILABLE ||
         code == grpc::StatusCode::DEADLINE_EXCEEDED ||
         code == grpc::StatusCode::RESOURCE_EXHAUSTED;
}

// The index i of the first "points[i]" in trackd's message, or -1.
int PointIndexIn(absl::string_view message) {
  const size_t at = message.find("points[");
  if (at == absl::string_view::npos) return -1;
  const size_t begin = at + 7;
  const size_t end = message.find(']', begin);
  int i = -1;
  if (end == absl::string_view::npos ||
      !absl::SimpleAtoi(message.substr(begin, end - begin), &i)) {
    return -1;
  }
  return i;
}

}  // namespace

OnlineSink::OnlineSink(std::shared_ptr<grpc::Channel> channel,
                       OnlineOptions options)
    : channel_(std::move(channel)),
      stub_(v1::TrackService::NewStub(channel_)),
      options_(std::move(options)) {
  options_.batch_points = std::max(1, options_.batch_points);
  options_.in_flight = std::max(1, options_.in_flight);
  for (int i = 0; i < options_.in_flight; ++i) {
    workers_.emplace_back([this] { Worker(); });
  }
}

OnlineSink::~OnlineSink() { Stop(); }

void OnlineSink::Stop() {
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

absl::Status OnlineSink::Add(const model::TrackPoint& point,
                             const RowOrigin& origin) {
  if (!current_) {
    current_ = std::make_unique<Batch>();
    current_->request.set_collection(options_.collection);
    current_->request.mutable_points()->Reserve(options_.batch_points);
    current_->origins.reserve(options_.batch_points);
  }
  service::ToProtoPoint(point, /*ids_and_positions_only=*/false,
                        current_->request.add_points());
  current_->origins.push_back(origin);
  if (current_->origins.size() < static_cast<size_t>(options_.batch_points)) {
    return absl::OkStatus();
  }
  return Enqueue();
}

absl::Status OnlineSink::Enqueue() {
  absl::MutexLock lock(&mu_);
  // Bounded: wait while in_flight batches already wait for a sender.
  auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !error_.ok() ||
           queue_.size() < static_cast<size_t>(options_.in_flight);
  };
  mu_.Await(absl::Condition(&room));
  if (!error_.ok()) return error_;
  if (current_) queue_.push_back(std::move(current_));
  return absl::OkStatus();
}

void OnlineSink::Worker() {
  while (true) {
    std::unique_ptr<Batch> batch;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return closed_ || !queue_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // closed and drained
      batch = std::move(queue_.front());
      queue_.pop_front();
      if (!error_.ok()) continue;  // drop the rest after a failure
    }
    absl::Status s = Send(*batch);
    if (!s.ok()) {
      absl::MutexLock lock(&mu_);
      if (error_.ok()) error_ = s;
    }
  }
}

absl::Status OnlineSink::Send(const Batch& batch) {
  absl::Duration backoff = absl::Milliseconds(100);
  for (int attempt = 1;; ++attempt) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + options_.call_timeout));
    v1::AddPointsResponse response;
    const grpc::Status s = stub_->AddPoints(&ctx, batch.request, &response);
    {
      absl::MutexLock lock(&mu_);
      ++calls_;
      if (s.ok()) stored_ += response.stored();
    }
    if (s.ok()) return absl::OkStatus();
    if (Retryable(s.error_code()) && attempt < options_.max_attempts) {
      {
        absl::MutexLock lock(&mu_);
        ++retries_;
      }
      absl::SleepFor(backoff);
      backoff = std::min(backoff * 2, absl::Seconds(5));
      continue;
    }
    // Name the input line of the point trackd refused, when it says.
    const int i = PointIndexIn(s.error_message());
    const RowOrigin& origin =
        batch.origins[i >= 0 && static_cast<size_t>(i) < batch.origins.size()
                          ? i
                          : 0];
    return absl::Status(
        static_cast<absl::StatusCode>(s.error_code()),
        absl::StrCat(
            Describe(origin), ": trackd refused AddPoints",
            i >= 0 ? "" : " (batch starting here)", " after ", attempt,
            attempt == 1 ? " attempt: " : " attempts: ", s.error_message()));
  }
}

absl::Status OnlineSink::Finish(Progress* progress) {
  absl::Status s = Enqueue();
  if (progress != nullptr) progress->Phase("waiting for trackd", 0, 0);
  Stop();
  absl::MutexLock lock(&mu_);
  if (!error_.ok()) return error_;
  return s;
}

uint64_t OnlineSink::stored() const {
  absl::MutexLock lock(&mu_);
  return stored_;
}
uint64_t OnlineSink::calls() const {
  absl::MutexLock lock(&mu_);
  return calls_;
}
uint64_t OnlineSink::retries() const {
  absl::MutexLock lock(&mu_);
  return retries_;
}

std::vector<std::string> OnlineSink::Summary() const {
  absl::MutexLock lock(&mu_);
  return {absl::StrFormat(
      "online: %d points stored by trackd in %d AddPoints calls of up to %d "
      "(%d in flight), %d retries",
      stored_, calls_, options_.batch_points, options_.in_flight, retries_)};
}

}  // namespace trackdb::import
