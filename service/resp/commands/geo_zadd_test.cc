// ZADD and ZINCRBY on GEO keys compared byte for byte with a real
// redis-server 7.0, which stores the scores in the sorted set that a GEO
// key is; trackdb writes them as the positions they decode to.
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using Argv = std::vector<std::string>;
using testing::Differential;

void AddGeo(Differential& d, const std::string& key) {
  EXPECT_SAME_REPLY(
      d, {"GEOADD", key, "13.361389", "38.115556", "Palermo", "15.087269",
          "37.502669", "Catania", "2.35", "48.85", "Paris"});
}

// What a client sees of a GEO key: scores, positions, hashes, a search.
const std::vector<Argv> kReads = {
    {"TYPE", "geo"},
    {"ZRANGE", "geo", "0", "-1", "WITHSCORES"},
    {"GEOPOS", "geo", "Palermo", "Catania", "Paris", "new", "zero", "top"},
    {"GEOHASH", "geo", "Palermo", "Paris", "new", "top"},
    {"GEODIST", "geo", "Palermo", "Paris", "km"},
    {"GEOSEARCH", "geo", "FROMLONLAT", "13", "38", "BYRADIUS", "20000", "km",
     "ASC", "WITHCOORD", "WITHDIST", "WITHHASH"},
};

TEST(GeoZaddTest, ScoresAreWrittenAsTheirPositions) {
  Differential d;
  AddGeo(d, "geo");
  testing::ExpectSameReplies(
      d, {
             {"ZADD", "geo", "3479099956230698", "Palermo"},
             {"ZADD", "geo", "3479099956230698", "Palermo"},  // unchanged
             {"ZADD", "geo", "CH", "1", "new", "3471579339700058", "Catania"},
             {"ZADD", "geo", "NX", "5", "new", "6", "zero"},
             {"ZADD", "geo", "XX", "CH", "7", "new", "8", "absent"},
             {"ZADD", "geo", "GT", "CH", "2", "new", "9", "zero"},
             {"ZADD", "geo", "LT", "CH", "100", "new", "0", "zero"},
             {"ZADD", "geo", "1", "new", "2", "new", "3", "new"},
             {"ZADD", "geo", "4503599627370495", "top"},
         });
  testing::ExpectSameReplies(d, kReads);
  testing::ExpectSameReplies(d,
                             {
                                 {"ZINCRBY", "geo", "1000", "Paris"},
                                 {"ZINCRBY", "geo", "5", "brand"},
                                 {"ZINCRBY", "geo", "0", "brand"},
                                 {"ZADD", "geo", "INCR", "7", "Paris"},
                                 {"ZADD", "geo", "XX", "INCR", "1", "nobody"},
                                 {"ZADD", "geo", "NX", "INCR", "1", "Paris"},
                                 {"ZADD", "geo", "GT", "INCR", "-5", "Paris"},
                                 {"ZADD", "geo", "LT", "INCR", "-5", "Paris"},
                                 {"ZSCORE", "geo", "brand"},
                                 {"ZCARD", "geo"},
                             });
  testing::ExpectSameReplies(d, kReads);
  // Scores that are not stored need not be positions.
  testing::ExpectSameReplies(d, {
                                    {"ZADD", "geo", "NX", "1.5", "Palermo"},
                                    {"ZADD", "geo", "GT", "0.5", "Paris"},
                                    {"ZADD", "geo", "XX", "-1", "nobody"},
                                    {"ZRANGE", "geo", "0", "-1", "WITHSCORES"},
                                });
}

// A score outside [0, 2^52) or with a fraction names no position: the
// call is refused whole (trackdb only; Redis would keep it as a score).
TEST(GeoZaddTest, ScoresThatAreNoPositionAreRefusedWritingNothing) {
  Differential d;
  AddGeo(d, "geo");
  const std::string tail =
      " on a GEO key: its scores are its members' positions, integer "
      "geohashes from 0 to 2^52-1\r\n";
  EXPECT_EQ(d.trackdb().Call({"ZADD", "geo", "1", "ok", "1.5", "bad"}),
            "-ERR ZADD would set score 1.5" + tail);
  EXPECT_EQ(d.trackdb().Call({"ZADD", "geo", "-1", "bad"}),
            "-ERR ZADD would set score -1" + tail);
  EXPECT_EQ(d.trackdb().Call({"ZADD", "geo", "4503599627370496", "bad"}),
            "-ERR ZADD would set score 4503599627370496" + tail);
  EXPECT_EQ(d.trackdb().Call({"zadd", "geo", "inf", "bad"}),
            "-ERR ZADD would set score inf" + tail);
  EXPECT_EQ(d.trackdb().Call({"ZINCRBY", "geo", "0.5", "Paris"}),
            "-ERR ZINCRBY would set score 3663832751688490.5" + tail);
  // Nothing of those calls was written.
  EXPECT_EQ(d.trackdb().Call({"ZCARD", "geo"}), ":3\r\n");
  EXPECT_EQ(d.trackdb().Call({"ZSCORE", "geo", "ok"}), "$-1\r\n");
  EXPECT_EQ(d.trackdb().Call({"ZSCORE", "geo", "Paris"}),
            "$16\r\n3663832751688490\r\n");
  // Argument errors come first, as for any key.
  testing::ExpectSameReplies(
      d, {{"ZADD", "geo", "x", "m"}, {"ZINCRBY", "geo", "1"}});
}

// Each ZINCRBY reads and writes its member under the member's lock:
// concurrent ones from several clients add up.
TEST(GeoZaddTest, ConcurrentIncrementsAddUp) {
  testing::TrackdbResp server;
  testing::RawClient setup(server.port());
  ASSERT_EQ(setup.Call({"ZADD", "geo", "1000", "m"}), ":1\r\n");
  ASSERT_EQ(setup.Call({"GEOADD", "geo", "1", "1", "other"}), ":1\r\n");
  constexpr int kClients = 4, kCalls = 50;
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      testing::RawClient client(server.port());
      for (int i = 0; i < kCalls; ++i)
        client.Call({"ZINCRBY", "geo", "1", "m"});
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(setup.Call({"ZSCORE", "geo", "m"}),
            absl::StrCat("$4\r\n", 1000 + kClients * kCalls, "\r\n"));
}

// Random ZADDs, ZINCRBYs and GEOADDs on a GEO key, with integer scores
// that stay positions, each reply compared with Redis's, and the key read
// back whole after every write.
TEST(GeoZaddTest, RandomWorkloadMatchesRedis) {
  Differential d;
  std::mt19937_64 rng(20261204);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const char* members[] = {"a", "b", "c", "Palermo", "", "\xff"};
  auto member = [&] { return std::string(members[pick(6)]); };
  auto score = [&] {
    return pick(3) == 0 ? absl::StrCat(pick(100))
                        : absl::StrCat(rng() % (uint64_t{1} << 51));
  };
  AddGeo(d, "geo");
  for (int i = 0; i < 400; ++i) {
    Argv argv;
    switch (pick(4)) {
      case 0:
        argv = {"GEOADD", "geo", absl::StrCat(pick(360) - 180),
                absl::StrCat(pick(170) - 85), member()};
        break;
      case 1:
        argv = {"ZINCRBY", "geo", absl::StrCat(pick(1000)), member()};
        break;
      default:
        argv = {"ZADD", "geo"};
        for (const char* opt : {"NX", "XX", "GT", "LT", "CH"}) {
          if (pick(5) == 0) argv.push_back(opt);
        }
        for (int n = 1 + pick(3); n > 0; --n) {
          argv.push_back(score());
          argv.push_back(member());
        }
    }
    EXPECT_SAME_REPLY(d, argv);
    EXPECT_SAME_REPLY(d, {"ZRANGE", "geo", "0", "-1", "WITHSCORES"});
    EXPECT_SAME_REPLY(d, {"GEOPOS", "geo", member(), member()});
  }
  EXPECT_SAME_REPLY(d, {"TYPE", "geo"});
}

}  // namespace
}  // namespace trackdb::resp
