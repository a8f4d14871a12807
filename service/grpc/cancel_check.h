#ifndef TRACKDB_SERVICE_GRPC_CANCEL_CHECK_H_
#define TRACKDB_SERVICE_GRPC_CANCEL_CHECK_H_

// CancelCheck: whether a handler working through many items (search hits)
// should stop because its caller is gone, cheap enough to ask per item.
//
// ServerContext::IsCancelled() of gRPC's synchronous API is not a flag read:
// it plucks the call's completion queue, and gRPC 1.51 rounds that poll's
// zero timeout up to the next millisecond, so a call can sleep on a futex
// for up to 1 ms. Asked once per search hit, it made a 182-hit radius search
// cost 3.5 ms of trackd CPU and kernel time (bench/README.md, "gRPC load").
// CancelCheck compares the clock with the deadline every kClockEvery items
// and asks `is_cancelled` (IsCancelled()) every kPollEvery items: a search
// that runs past its deadline stops within kClockEvery more hits; one whose
// client cancelled, within kPollEvery.

#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>

#include "grpcpp/grpcpp.h"

namespace trackdb::service {

class CancelCheck {
 public:
  static constexpr uint64_t kClockEvery = 1024;
  static constexpr uint64_t kPollEvery = 16 * 1024;

  CancelCheck(std::chrono::system_clock::time_point deadline,
              std::function<bool()> is_cancelled)
      : deadline_(deadline), is_cancelled_(std::move(is_cancelled)) {}
  explicit CancelCheck(grpc::ServerContext* context)
      : CancelCheck(context->deadline(),
                    [context] { return context->IsCancelled(); }) {}

  // Counts one item; false once the caller is gone. After that, status()
  // says why.
  bool Continue() {
    if (++items_ % kClockEvery != 0) return true;
    if (std::chrono::system_clock::now() > deadline_) {
      status_ = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                             "past its deadline");
      return false;
    }
    if (items_ % kPollEvery == 0 && is_cancelled_()) {
      status_ = grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
      return false;
    }
    return true;
  }
  const grpc::Status& status() const { return status_; }

 private:
  const std::chrono::system_clock::time_point deadline_;
  const std::function<bool()> is_cancelled_;
  uint64_t items_ = 0;
  grpc::Status status_;
};

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_CANCEL_CHECK_H_
