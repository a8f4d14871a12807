#ifndef TRACKDB_SERVICE_GRPC_CALL_METRICS_INTERCEPTOR_H_
#define TRACKDB_SERVICE_GRPC_CALL_METRICS_INTERCEPTOR_H_

// Records every gRPC call in a CallMetrics (the metrics port): by method
// ("trackdb.v1.TrackService/AddPoint"), from the call's start to the status
// it sends, an error being any status but OK. A stream counts once, for
// its whole life.

#include <memory>

#include "grpcpp/support/server_interceptor.h"
#include "service/metrics/call_metrics.h"

namespace trackdb::service {

// `calls` outlives the server.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
CallMetricsInterceptorFactory(metrics::CallMetrics* calls);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_CALL_METRICS_INTERCEPTOR_H_
