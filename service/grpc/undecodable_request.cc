#include "service/grpc/undecodable_request.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/support/interceptor.h"

namespace trackdb::service {
namespace {

using grpc::experimental::InterceptionHookPoints;
using grpc::experimental::InterceptorBatchMethods;

// "/trackdb.v1.TrackService/AddPoints" -> "trackdb.v1.AddPointsRequest",
// the naming every trackdb.v1 method follows.
std::string RequestTypeOf(absl::string_view method) {
  const size_t slash = method.rfind('/');
  const size_t service = method.rfind('.', slash);
  if (slash == absl::string_view::npos || service == absl::string_view::npos) {
    return std::string(method);
  }
  return absl::StrCat(method.substr(1, service), method.substr(slash + 1),
                      "Request");
}

class UndecodableRequest : public grpc::experimental::Interceptor {
 public:
  explicit UndecodableRequest(const char* method) : method_(method) {}

  void Intercept(InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::POST_RECV_MESSAGE) &&
        methods->GetRecvMessage() == nullptr) {
      undecodable_ = true;
    }
    if (undecodable_ && methods->QueryInterceptionHookPoint(
                            InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status sent = methods->GetSendStatus();
      if (sent.error_code() == grpc::StatusCode::INTERNAL) {
        methods->ModifySendStatus(grpc::Status(
            grpc::StatusCode::INVALID_ARGUMENT,
            absl::StrCat("request: not a valid ", RequestTypeOf(method_),
                         " (protobuf decoding failed)")));
      }
    }
    methods->Proceed();
  }

 private:
  const char* method_;
  bool undecodable_ = false;
};

class Factory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    if (info->type() != grpc::experimental::ServerRpcInfo::Type::UNARY) {
      return nullptr;
    }
    return new UndecodableRequest(info->method());
  }
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
UndecodableRequestInterceptorFactory() {
  return std::make_unique<Factory>();
}

}  // namespace trackdb::service
