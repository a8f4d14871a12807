// TRACK.ANALYZE, TRACK.POSAT and TRACK.*RETENTION over a track written to the
// store (GEOADD would stamp the server's clock), as a Redis client sees them.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/store_test_util.h"

namespace trackdb::resp {
namespace {

using ::testing::HasSubstr;
using testing::RawClient;
using ::testing::StartsWith;
using testing::TrackdbResp;

class TrackCommandsTest : public ::testing::Test {
 protected:
  TrackCommandsTest() : client_(server_.port()) {
    // East along the equator, 0.001 degrees each 10 s; a wild fix between.
    std::vector<model::TrackPoint> track;
    for (int i = 0; i <= 10; ++i) {
      track.push_back(storage::testing::Point("car", 10000 * i, 0, 0.001 * i));
    }
    track.push_back(storage::testing::Point("car", 55000, 1, 0.005));
    EXPECT_TRUE(server_.store().AddPoints("fleet", track).ok());
  }
  std::string Call(const std::vector<std::string>& argv) {
    return client_.Call(argv);
  }

  TrackdbResp server_;
  RawClient client_;
};

TEST_F(TrackCommandsTest, AnalyzeRepliesAMapOfTheAnalysis) {
  const std::string all =
      Call({"TRACK.ANALYZE", "fleet", "car", "MAXSPEED", "200"});
  EXPECT_THAT(all, StartsWith("*24\r\n$5\r\nfixes\r\n:12\r\n$5\r\njumps\r\n:1"
                              "\r\n$10\r\ninaccurate\r\n:0\r\n$8\r\nstart_ms"
                              "\r\n:0\r\n$6\r\nend_ms\r\n:100000\r\n"));
  EXPECT_THAT(all, HasSubstr("$10\r\ndistance_m\r\n$17\r\n1112.26"));
  EXPECT_THAT(all, HasSubstr("$9\r\nmoving_ms\r\n:100000\r\n"));
  EXPECT_THAT(all, HasSubstr("$5\r\nstays\r\n*0\r\n$5\r\ntrips\r\n*1\r\n*3\r\n"
                             ":0\r\n:100000\r\n"));
  // A range, in RESP3 a map.
  EXPECT_EQ(Call({"HELLO", "3"}).substr(0, 1), "%");
  const std::string part = Call({"TRACK.ANALYZE", "fleet", "car", "FROM",
                                 "20000", "TO", "40000", "NOGAPS"});
  EXPECT_THAT(part, StartsWith("%12\r\n$5\r\nfixes\r\n:3\r\n"));
  // No such key or member: no fixes.
  EXPECT_THAT(Call({"TRACK.ANALYZE", "nokey", "car"}),
              StartsWith("%12\r\n$5\r\nfixes\r\n:0\r\n"));
}

TEST_F(TrackCommandsTest, AnalyzeErrors) {
  EXPECT_EQ(Call({"TRACK.ANALYZE", "fleet", "car", "MAXSPEED"}),
            "-ERR syntax error\r\n");
  EXPECT_EQ(Call({"TRACK.ANALYZE", "fleet", "car", "SPEEDY", "1"}),
            "-ERR syntax error\r\n");
  EXPECT_EQ(Call({"TRACK.ANALYZE", "fleet", "car", "MAXSPEED", "x"}),
            "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Call({"TRACK.ANALYZE", "fleet", "car", "FROM", "1.5"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Call({"TRACK.ANALYZE", "fleet", "car", "STAYRADIUS", "-1"}),
            "-ERR STAYRADIUS must not be negative\r\n");
  EXPECT_EQ(Call({"TRACK.ANALYZE", "fleet", "car", "STAYRADIUS", "20000"}),
            "-ERR STAYRADIUS must be in [0, 10000] metres, got 20000\r\n");
  EXPECT_EQ(Call({"TRACK.ANALYZE", "fleet", "car", "FROM", "5", "TO", "4"}),
            "-ERR FROM is after TO\r\n");
  EXPECT_EQ(Call({"SET", "s", "v"}), "+OK\r\n");
  EXPECT_THAT(Call({"TRACK.ANALYZE", "s", "car"}), StartsWith("-WRONGTYPE"));
  EXPECT_THAT(Call({"TRACK.ANALYZE", "fleet"}),
              HasSubstr("wrong number of arguments"));
}

TEST_F(TrackCommandsTest, PosAtInterpolatesOrAnswersNil) {
  const std::string at = Call({"TRACK.POSAT", "fleet", "car", "15000"});
  EXPECT_THAT(at, StartsWith("*2\r\n$"));
  EXPECT_THAT(at, HasSubstr("\r\n0.0015"));
  EXPECT_EQ(Call({"TRACK.POSAT", "fleet", "car", "15000", "NEAREST"}),
            "*2\r\n$5\r\n0.001\r\n$1\r\n0\r\n");
  EXPECT_EQ(Call({"TRACK.POSAT", "fleet", "car", "200000"}), "*-1\r\n");
  EXPECT_EQ(Call({"TRACK.POSAT", "fleet", "car", "200000", "NEAREST", "MAXGAP",
                  "1000"}),
            "*-1\r\n");
  EXPECT_EQ(Call({"TRACK.POSAT", "fleet", "bus", "1"}), "*-1\r\n");
  EXPECT_EQ(Call({"TRACK.POSAT", "fleet", "car", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Call({"TRACK.POSAT", "fleet", "car", "1", "FAR"}),
            "-ERR syntax error\r\n");
}

TEST_F(TrackCommandsTest, RetentionHidesHistoryPastItsAgeAndIsReported) {
  // The fixture's track is from 1970: a day's retention expires all of it.
  EXPECT_EQ(Call({"TRACK.GETRETENTION", "fleet"}),
            "*6\r\n$10\r\nmax_age_ms\r\n:0\r\n$13\r\nexpire_latest\r\n:0\r\n"
            "$10\r\nmax_points\r\n:0\r\n");
  EXPECT_EQ(Call({"TRACK.SETRETENTION", "fleet", "86400000"}), "+OK\r\n");
  EXPECT_EQ(Call({"TRACK.GETRETENTION", "fleet"}),
            "*6\r\n$10\r\nmax_age_ms\r\n:86400000\r\n$13\r\nexpire_latest\r\n"
            ":0\r\n$10\r\nmax_points\r\n:0\r\n");
  EXPECT_EQ(Call({"TRACK.POSAT", "fleet", "car", "15000"}), "*-1\r\n");
  EXPECT_THAT(Call({"TRACK.ANALYZE", "fleet", "car"}),
              StartsWith("*24\r\n$5\r\nfixes\r\n:0\r\n"));
  // The latest position stays without EXPIRELATEST.
  EXPECT_THAT(Call({"GEOPOS", "fleet", "car"}), StartsWith("*1\r\n*2\r\n"));
  EXPECT_EQ(Call({"TRACK.SETRETENTION", "fleet", "0"}), "+OK\r\n");
  EXPECT_THAT(Call({"TRACK.POSAT", "fleet", "car", "15000"}),
              StartsWith("*2\r\n"));
  EXPECT_THAT(Call({"INFO", "retention"}),
              HasSubstr("retention_points_expired:0\r\n"
                        "retention_entities_expired:0\r\n"
                        "retention_points_trimmed:0\r\n"));
}

TEST_F(TrackCommandsTest, MaxPointsKeepsEachMembersNewestFixes) {
  EXPECT_EQ(Call({"TRACK.SETRETENTION", "fleet", "0", "MAXPOINTS", "3"}),
            "+OK\r\n");
  EXPECT_THAT(Call({"TRACK.GETRETENTION", "fleet"}),
              ::testing::EndsWith("$10\r\nmax_points\r\n:3\r\n"));
  ASSERT_EQ(*server_.store().retention().TrimHistories(), 9);  // 12 fixes, 3 kept
  EXPECT_THAT(Call({"TRACK.ANALYZE", "fleet", "car"}),
              StartsWith("*24\r\n$5\r\nfixes\r\n:3\r\n"));
  EXPECT_THAT(Call({"INFO", "retention"}),
              HasSubstr("retention_points_trimmed:9\r\n"));
}

TEST_F(TrackCommandsTest, RetentionRefusesBadArgumentsAndSetsNothing) {
  EXPECT_EQ(Call({"TRACK.SETRETENTION", "fleet", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_THAT(Call({"TRACK.SETRETENTION", "fleet", "-1"}),
              StartsWith("-ERR max-age-ms must be in [0, "));
  EXPECT_THAT(Call({"TRACK.SETRETENTION", "fleet", "0", "EXPIRELATEST"}),
              StartsWith("-ERR EXPIRELATEST needs max-age-ms > 0"));
  EXPECT_EQ(Call({"TRACK.SETRETENTION", "fleet", "5", "FOREVER"}),
            "-ERR syntax error\r\n");
  EXPECT_EQ(Call({"TRACK.SETRETENTION", "fleet", "0", "MAXPOINTS"}),
            "-ERR syntax error\r\n");
  EXPECT_EQ(Call({"TRACK.SETRETENTION", "fleet", "0", "MAXPOINTS", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_THAT(Call({"TRACK.SETRETENTION", "fleet", "0", "MAXPOINTS", "-2"}),
              StartsWith("-ERR MAXPOINTS must be in [0, "));
  EXPECT_THAT(Call({"TRACK.SETRETENTION", "fleet"}),
              HasSubstr("wrong number of arguments"));
  EXPECT_TRUE(server_.store().retention().Get("fleet").keeps_everything());
}

// The reply's rows and next cursor, from a RESP2 [cursor, rows] reply.
struct SearchReply {
  std::string cursor;
  int rows = -1;
};
SearchReply ParseSearchReply(const std::string& reply) {
  SearchReply out;
  // *2\r\n$<n>\r\n<cursor>\r\n*<rows>\r\n...
  const size_t bulk = reply.find("$");
  const size_t cursor_at = reply.find("\r\n", bulk) + 2;
  const size_t cursor_end = reply.find("\r\n", cursor_at);
  out.cursor = reply.substr(cursor_at, cursor_end - cursor_at);
  const size_t rows_at = cursor_end + 3;
  out.rows = std::stoi(reply.substr(rows_at, reply.find("\r\n", rows_at)));
  return out;
}

TEST_F(TrackCommandsTest, SearchFindsFixesInAreaAndTimeAPageAtATime) {
  // Within 300 m of lon 0.0025: the fixes at lon 0 to 0.005 (t = 0 to 50 s).
  const std::vector<std::string> search = {
      "TRACK.SEARCH", "fleet", "FROMLONLAT", "0.0025", "0",
      "BYRADIUS",     "300",   "m"};
  SearchReply all = ParseSearchReply(Call(search));
  EXPECT_EQ(all.cursor, "0");
  EXPECT_EQ(all.rows, 6);
  std::vector<std::string> timed = search;
  timed.insert(timed.end(), {"FROM", "15000", "TO", "40000"});
  EXPECT_EQ(ParseSearchReply(Call(timed)).rows, 3);  // 20, 30 and 40 s
  EXPECT_THAT(Call(timed), HasSubstr("$3\r\ncar\r\n:20000\r\n*2\r\n"));

  std::vector<std::string> paged = search;
  paged.insert(paged.end(), {"COUNT", "4"});
  SearchReply first = ParseSearchReply(Call(paged));
  EXPECT_EQ(first.rows, 4);
  ASSERT_NE(first.cursor, "0");
  paged.insert(paged.end(), {"CURSOR", first.cursor});
  SearchReply second = ParseSearchReply(Call(paged));
  EXPECT_EQ(second.rows, 2);
  EXPECT_EQ(second.cursor, "0");

  // One row per member: its first and last fix inside, and how many.
  std::vector<std::string> per_entity = search;
  per_entity.push_back("PERENTITY");
  EXPECT_THAT(Call(per_entity),
              HasSubstr("*4\r\n$3\r\ncar\r\n:6\r\n*3\r\n:0\r\n"));
  EXPECT_THAT(Call(per_entity), HasSubstr("*3\r\n:50000\r\n"));

  // The wild fix at (lat 1, lon 0.005), by bounds and by polygon.
  EXPECT_EQ(ParseSearchReply(Call({"TRACK.SEARCH", "fleet", "BYBOUNDS", "0",
                                   "0.9", "0.01", "1.1"}))
                .rows,
            1);
  EXPECT_EQ(ParseSearchReply(Call({"TRACK.SEARCH", "fleet", "BYPOLYGON", "3",
                                   "0", "0.9", "0.01", "0.9", "0.005", "1.1"}))
                .rows,
            1);
  EXPECT_EQ(ParseSearchReply(Call({"TRACK.SEARCH", "nokey", "BYBOUNDS", "0",
                                   "0.9", "0.01", "1.1"}))
                .rows,
            0);
}

TEST_F(TrackCommandsTest, SearchRefusesBadArgumentsLikeRedis) {
  EXPECT_THAT(Call({"TRACK.SEARCH", "fleet", "FROM", "1", "TO", "2"}),
              StartsWith("-ERR exactly one of"));
  EXPECT_THAT(Call({"TRACK.SEARCH", "fleet", "FROMLONLAT", "0", "0", "BYRADIUS",
                    "-1", "m"}),
              StartsWith("-ERR"));
  EXPECT_THAT(Call({"TRACK.SEARCH", "fleet", "BYBOUNDS", "0", "0", "1", "95"}),
              StartsWith("-ERR"));
  EXPECT_THAT(Call({"TRACK.SEARCH", "fleet", "BYPOLYGON", "4", "0", "0", "1",
                    "1", "0", "1", "1", "0"}),
              StartsWith("-ERR invalid polygon"));
  EXPECT_EQ(Call({"TRACK.SEARCH", "fleet", "BYBOUNDS", "0", "0", "1", "1",
                  "COUNT", "0"}),
            "-ERR COUNT must be between 1 and 1000\r\n");
  EXPECT_EQ(Call({"TRACK.SEARCH", "fleet", "BYBOUNDS", "0", "0", "1", "1",
                  "CURSOR", "nonsense"}),
            "-ERR invalid cursor\r\n");
  EXPECT_EQ(Call({"TRACK.SEARCH", "fleet", "BYBOUNDS", "0", "0", "1", "1",
                  "FROM", "5", "TO", "4"}),
            "-ERR FROM is after TO\r\n");
  EXPECT_EQ(Call({"TRACK.SEARCH", "fleet", "BYBOUNDS", "0", "0", "1", "1",
                  "SIDEWAYS", "1"}),
            "-ERR syntax error\r\n");
  EXPECT_EQ(Call({"SET", "s", "v"}), "+OK\r\n");
  EXPECT_THAT(Call({"TRACK.SEARCH", "s", "BYBOUNDS", "0", "0", "1", "1"}),
              StartsWith("-WRONGTYPE"));
}

}  // namespace
}  // namespace trackdb::resp
