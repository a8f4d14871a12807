#ifndef TRACKDB_SERVICE_WEB_MAP_PARAMS_H_
#define TRACKDB_SERVICE_WEB_MAP_PARAMS_H_

// The API's query parameters read and checked: each error names the
// parameter and what it got, as the gRPC door's INVALID_ARGUMENT does.

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "index/region.h"
#include "service/http/http_io.h"

namespace trackdb::web {

// A required parameter, non-empty.
absl::StatusOr<std::string> Required(const http::HttpRequest& r,
                                     const std::string& name);
// An integer parameter, or `fallback` when absent.
absl::StatusOr<int64_t> IntParam(const http::HttpRequest& r,
                                 const std::string& name, int64_t fallback);
// A finite number >= 0, or `fallback` when absent.
absl::StatusOr<double> DistanceParam(const http::HttpRequest& r,
                                     const std::string& name, double fallback);
// bbox=W,S,E,N or circle=lon,lat,radius_m: exactly one.
absl::StatusOr<std::unique_ptr<index::Region>> AreaParam(
    const http::HttpRequest& r);

}  // namespace trackdb::web

#endif  // TRACKDB_SERVICE_WEB_MAP_PARAMS_H_
