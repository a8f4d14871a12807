#include "service/grpc/call_metrics_interceptor.h"

#include <chrono>

#include "absl/strings/string_view.h"
#include "grpcpp/support/interceptor.h"

namespace trackdb::service {
namespace {

using grpc::experimental::InterceptionHookPoints;
using grpc::experimental::InterceptorBatchMethods;

class CallTimer : public grpc::experimental::Interceptor {
 public:
  CallTimer(metrics::CallMetrics* calls, const char* method)
      : calls_(calls),
        method_(absl::string_view(method).substr(method[0] == '/' ? 1 : 0)),
        start_(std::chrono::steady_clock::now()) {}

  void Intercept(InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_STATUS)) {
      const int64_t nanos =
          std::chrono::duration_cast<std::chrono::nanoseconds>(
              std::chrono::steady_clock::now() - start_)
              .count();
      calls_->Record(method_, nanos, !methods->GetSendStatus().ok());
    }
    methods->Proceed();
  }

 private:
  metrics::CallMetrics* const calls_;
  const absl::string_view method_;
  const std::chrono::steady_clock::time_point start_;
};

class Factory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit Factory(metrics::CallMetrics* calls) : calls_(calls) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new CallTimer(calls_, info->method());
  }

 private:
  metrics::CallMetrics* const calls_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
CallMetricsInterceptorFactory(metrics::CallMetrics* calls) {
  return std::make_unique<Factory>(calls);
}

}  // namespace trackdb::service
