#ifndef TRACKDB_MODEL_GLOB_H_
#define TRACKDB_MODEL_GLOB_H_

#include "absl/strings/string_view.h"

namespace trackdb::model {

// Redis's stringmatchlen: glob-style patterns of KEYS, SCAN MATCH and
// CONFIG GET, and of fences' entity filters: * ? [abc] [^a-z] and \ escapes.
bool GlobMatch(absl::string_view pattern, absl::string_view s,
               bool nocase = false);

}  // namespace trackdb::model

#endif  // TRACKDB_MODEL_GLOB_H_
