#ifndef TRACKDB_SERVICE_RESP_TESTING_REPLY_HELPERS_H_
#define TRACKDB_SERVICE_RESP_TESTING_REPLY_HELPERS_H_

// Test support for reading RESP replies: an aggregate's elements, bulk
// strings' payloads, replies with their elements sorted (to compare replies
// whose order Redis leaves open, such as HGETALL or ZRANDMEMBER), and a
// whole *SCAN walk from cursor 0 until the server says it is done.

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp::testing {

// An aggregate reply's first line and its elements' bytes.
struct Aggregate {
  std::string header;
  std::vector<std::string> elements;
};

// `reply` split into its first line and its elements; no elements if it
// is not an aggregate.
Aggregate Split(const std::string& reply);

// Whether `reply` is an array, a map or a set (RESP2 or RESP3).
bool IsAggregate(const std::string& reply);

// `reply` with its elements sorted in groups of `group` (a field and its
// value, or a member and its score, stay together); anything but an
// aggregate as it is.
std::string Sorted(const std::string& reply, size_t group);

// A scan reply (cursor, then pairs) with its pairs sorted; anything else as
// it is.
std::string SortedScan(const std::string& reply);

// A bulk (or verbatim) string's payload ("$3\r\nabc\r\n" -> "abc").
std::string BulkText(const std::string& bulk);

// The payloads of an aggregate of bulk strings.
std::vector<std::string> BulkTexts(const std::string& reply);

// Every pair (a field and its value, or a member and its score) a scan walk
// replied, how many pairs each page held, and how many pairs came again.
struct ScanWalk {
  std::set<std::pair<std::string, std::string>> pairs;
  std::vector<size_t> page_sizes;
  size_t duplicates = 0;
};

// Sends `command` (HSCAN, ZSCAN) `key` `cursor` `options...` from cursor 0
// until the cursor comes back 0, for at most 10000 pages so that a cursor
// that never ends fails the test instead of hanging it. A reply that is not
// a scan reply is a test failure and ends the walk.
ScanWalk WalkScan(RawClient& client, const std::string& command,
                  const std::string& key,
                  const std::vector<std::string>& options);

}  // namespace trackdb::resp::testing

// gtest helper: sends `argv` to both and EXPECTs the same replies once their
// elements are sorted in groups of `group` (see Sorted).
#define EXPECT_SAME_UNORDERED(diff, group, ...)                             \
  do {                                                                      \
    auto _r = (diff).Call(__VA_ARGS__);                                     \
    EXPECT_EQ(::trackdb::resp::testing::Sorted(_r.trackdb, group),          \
              ::trackdb::resp::testing::Sorted(_r.redis, group))            \
        << "command: "                                                      \
        << ::testing::PrintToString(std::vector<std::string>(__VA_ARGS__)); \
  } while (0)

// gtest helper: sends a scan command to both and EXPECTs the same cursor and
// the same pairs, in whatever order (see SortedScan).
#define EXPECT_SAME_SCAN(diff, ...)                                         \
  do {                                                                      \
    auto _r = (diff).Call(__VA_ARGS__);                                     \
    EXPECT_EQ(::trackdb::resp::testing::SortedScan(_r.trackdb),             \
              ::trackdb::resp::testing::SortedScan(_r.redis))               \
        << "command: "                                                      \
        << ::testing::PrintToString(std::vector<std::string>(__VA_ARGS__)); \
  } while (0)

#endif  // TRACKDB_SERVICE_RESP_TESTING_REPLY_HELPERS_H_
