#ifndef TRACKDB_SERVICE_RESP_DISPATCH_OPTION_WORDS_H_
#define TRACKDB_SERVICE_RESP_DISPATCH_OPTION_WORDS_H_

// Reading option words (NX, WITHSCORES, COUNT, ...) and subcommand names
// from arguments, as Redis compares them.

#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::resp {

// An argument as Redis's C code sees it when comparing option words: up to
// its first NUL byte (Redis compares with strcasecmp and opt[i] tests).
absl::string_view CWord(absl::string_view arg);
// strcasecmp(arg, word) == 0, as Redis tests option words.
bool IsWord(absl::string_view arg, absl::string_view word);

// The whole argument, compared or lowered byte by byte (ASCII only).
std::string ToLower(absl::string_view s);
bool EqualsIgnoreCase(absl::string_view a, absl::string_view b);

}  // namespace trackdb::resp

#endif  // TRACKDB_SERVICE_RESP_DISPATCH_OPTION_WORDS_H_
