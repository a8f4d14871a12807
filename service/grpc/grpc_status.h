#ifndef TRACKDB_SERVICE_GRPC_GRPC_STATUS_H_
#define TRACKDB_SERVICE_GRPC_GRPC_STATUS_H_

// Storage's and the model's absl::Status as the gRPC door answers it: the
// codes trackdb uses map to gRPC's of the same name, anything else is
// INTERNAL; the message is kept.

#include <string>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"

namespace trackdb::service {

grpc::Status ToGrpc(const absl::Status& s);

// INVALID_ARGUMENT with `message`, which names the field.
grpc::Status InvalidArgument(const std::string& message);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_GRPC_STATUS_H_
