#ifndef TRACKDB_SERVICE_RESP_TESTING_VERDICT_TABLE_ROWS_H_
#define TRACKDB_SERVICE_RESP_TESTING_VERDICT_TABLE_ROWS_H_

// The rows of verdict_table_test.cc: requests to run on trackdb and on a
// real redis-server 7.0, grouped by the command table entry they exercise.

#include <string>
#include <vector>

namespace trackdb::resp::testing {

struct VerdictRow {
  // How trackdb's reply may differ from Redis's, on purpose.
  enum Differs {
    kNone,     // same verdict; an error's text byte for byte
    kText,     // same verdict, other words
    kVerdict,  // trackdb refuses what Redis accepts
    // A trackdb command (module-style name, FENCE.SET) that Redis lacks:
    // Redis answers "unknown command"; the row is a bad request trackdb
    // must refuse. fence_commands_test.cc has the ones it serves.
    kOwn,
  };
  // Table entry: "geoadd", "config|get"; "" for a command not in the
  // table.
  std::string entry;
  std::string request;  // words split at spaces; <empty>, <long>, <huge>
  Differs differs = kNone;
  std::string why;  // one line, for kText and kVerdict
};

const std::vector<VerdictRow>& VerdictRows();

}  // namespace trackdb::resp::testing

#endif  // TRACKDB_SERVICE_RESP_TESTING_VERDICT_TABLE_ROWS_H_
