#ifndef TRACKDB_SERVICE_RESP_GLOB_H_
#define TRACKDB_SERVICE_RESP_GLOB_H_

#include "absl/strings/string_view.h"

namespace trackdb::resp {

// Redis's stringmatchlen: glob-style patterns of KEYS, SCAN MATCH and
// CONFIG GET: * ? [abc] [^a-z] and \ escapes.
bool GlobMatch(absl::string_view pattern, absl::string_view s,
               bool nocase = false);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_GLOB_H_
