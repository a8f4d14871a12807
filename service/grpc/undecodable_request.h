#ifndef TRACKDB_SERVICE_GRPC_UNDECODABLE_REQUEST_H_
#define TRACKDB_SERVICE_GRPC_UNDECODABLE_REQUEST_H_

// A unary call whose request bytes are no valid protobuf of the method's
// request type never reaches its handler: gRPC (1.51) answers it INTERNAL
// with an empty message, as if the server had failed. It is the client's
// input that is bad, so this interceptor turns that answer into
// INVALID_ARGUMENT naming the request: "request: not a valid
// trackdb.v1.AddPointsRequest (protobuf decoding failed)".
//
// Only unary methods: a streaming read that fails to decode looks to an
// interceptor exactly like the client's end of stream (gRPC 1.51 reports
// both as "no message"), so StreamPoints decodes its messages itself
// (TrackServiceImpl::StreamPointBytes) and names the one that failed.

#include <memory>

#include "grpcpp/support/server_interceptor.h"

namespace trackdb::service {

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
UndecodableRequestInterceptorFactory();

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_UNDECODABLE_REQUEST_H_
