#ifndef TRACKDB_SERVICE_RESP_TESTING_GEO_TEST_UTIL_H_
#define TRACKDB_SERVICE_RESP_TESTING_GEO_TEST_UTIL_H_

// Test support for the GEO and sorted-set command tests.

#include <string>

#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp::testing {

// Makes `key` (database `db`) a string in both servers: SET on redis-server,
// the store's string path directly on trackdb, so that these tests need no
// string commands.
void SetStringBoth(Differential& d, int db, const std::string& key,
                   const std::string& value);

// Switches both connections to RESP3 (HELLO 3; the replies differ only in
// the client id).
void Resp3Both(Differential& d);

// Adds a point that Redis cannot hold (|lat| > 85.05112878) to trackdb only,
// as a gRPC client could.
void AddTrackdbOnlyPoint(Differential& d, int db, const std::string& key,
                         const std::string& member, double lat, double lon);

}  // namespace trackdb::resp::testing

#endif  // TRACKDB_SERVICE_RESP_TESTING_GEO_TEST_UTIL_H_
