#ifndef TRACKDB_FUZZ_RESP_REPLY_CHECK_H_
#define TRACKDB_FUZZ_RESP_REPLY_CHECK_H_

// Checks that bytes a command wrote are well-formed RESP2/RESP3 replies, as
// a client's parser (hiredis, redis-py) would read them: a command that
// wrote a broken reply, two replies or none would desynchronise every
// later reply on the connection.

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::fuzz {

// The number of complete replies `bytes` holds, all of it consumed; or -1
// with *why saying what is malformed.
int CountReplies(absl::string_view bytes, std::string* why);

}  // namespace trackdb::fuzz

#endif  // TRACKDB_FUZZ_RESP_REPLY_CHECK_H_
