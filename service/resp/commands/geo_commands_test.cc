// GEOADD, GEOPOS, GEODIST and GEOHASH compared byte for byte with a real
// redis-server 7.0 started beside trackdb's RESP server.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/limits.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/store_test_util.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

using testing::Differential;

TEST(GeoAddTest, ArgumentErrorsInRedisOrder) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"GEOADD"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1", "2"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1", "2", "a", "3"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1", "2", "a", "3", "4"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "NX", "XX", "1", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "xx", "nx", "ch", "1", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "ch", "ch", "ch"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "nx", "nx", "ch", "ch"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "x", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1", "y", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", " 1", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1 ", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "nan", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1e400", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1e-400", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "inf", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "-inf", "-inf", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "200", "100", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "180.0000001", "0", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "0", "85.05112879", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "0", "-85.06", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1e300", "0", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "-0.0000001", "-1234.5", "a"});
  // A bad triple anywhere fails the whole call: nothing is written.
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1", "2", "a", "500", "2", "b"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1", "2", "a", "5", "x", "b"});
  EXPECT_SAME_REPLY(d, {"ZCARD", "k"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "k", "a", "b"});
}

// One pipeline, sent in one write, so that trackd serves its runs of plain
// GEOADDs on one key as groups (one storage write each): every reply and
// the final positions must be what Redis gives running them one by one.
TEST(GeoAddTest, PipelinedRunsReplyAsIfRunAlone) {
  Differential d;
  const std::vector<std::vector<std::string>> pipeline = {
      {"GEOADD", "k", "13.361389", "38.115556", "a"},
      {"GEOADD", "k", "15.087269", "37.502669", "b", "1", "1", "a"},
      {"GEOADD", "k", "15.087269", "37.502669", "b"},  // unchanged
      {"GEOADD", "k", "500", "1", "c"},                // refused in place
      {"GEOADD", "k", "2", "2", "c", "3", "3", "c"},   // repeated: last wins
      {"geoadd", "k", "4", "4", "a"},                  // moves a again
      {"GEOADD", "k", "NX", "5", "5", "a", "6", "6", "d"},  // not grouped
      {"GEOADD", "k", "7", "7", "d", "8", "8", "e"},
      {"GEOADD", "other", "9", "9", "a"},  // another key: another group
      {"GEOADD", "k", "1", "2"},           // syntax error
      {"GEOADD", "k", "10", "10", "e"},
      {"ZCARD", "k"},
      {"GEOPOS", "k", "a", "b", "c", "d", "e"},
      {"GEOPOS", "other", "a"},
  };
  const auto replies = d.Pipeline(pipeline);
  for (size_t i = 0; i < pipeline.size(); ++i) {
    EXPECT_EQ(replies[i].trackdb, replies[i].redis)
        << ::testing::PrintToString(pipeline[i]);
  }
  // One history point per member and write: a's three moves are three
  // points, c's two occurrences in one call one.
  EXPECT_THAT(storage::testing::InvariantViolations(d.trackdb_server().store(),
                                                    types::KeyName(0, "k")),
              ::testing::IsEmpty());
}

// A group on a key that holds a string: every call of it is refused with
// WRONGTYPE, as each would be alone, and the string stays.
TEST(GeoAddTest, PipelinedRunOnAStringKeyIsWrongType) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"SET", "s", "v"});
  std::string bytes;
  for (int i = 0; i < 3; ++i) {
    bytes += testing::EncodeCommand({"GEOADD", "s", "1", "1", "m"});
  }
  bytes += testing::EncodeCommand({"GET", "s"});
  d.redis().Send(bytes);
  d.trackdb().Send(bytes);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d.trackdb().ReadReply(), d.redis().ReadReply()) << i;
  }
}

TEST(GeoAddTest, AddedChangedAndNxXxCounts) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "13.361389", "38.115556", "Palermo",
                        "15.087269", "37.502669", "Catania"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "13.361389", "38.115556", "Palermo"});
  // Moved within its 52-bit cell: not "changed" for Redis.
  EXPECT_SAME_REPLY(
      d, {"GEOADD", "k", "CH", "13.3613891", "38.1155561", "Palermo"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "CH", "13.4", "38.1", "Palermo", "2.35",
                        "48.85", "Paris"});
  EXPECT_SAME_REPLY(
      d, {"GEOADD", "k", "NX", "1", "1", "Palermo", "2", "2", "Rome"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "NX", "CH", "1", "1", "Palermo", "12.5",
                        "41.9", "Madrid"});
  EXPECT_SAME_REPLY(
      d, {"GEOADD", "k", "XX", "1", "1", "Palermo", "3", "3", "Nowhere"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "XX", "CH", "5", "5", "Palermo", "3",
                        "3", "Nowhere2", "5", "5", "Catania"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "ch", "xx", "5", "5", "Palermo"});
  // Repeated members in one call: ZADD's counting per occurrence.
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "CH", "1", "1", "dup", "2", "2", "dup",
                        "2", "2", "dup", "3", "3", "dup"});
  EXPECT_SAME_REPLY(
      d, {"GEOADD", "k", "NX", "CH", "7", "7", "dup2", "8", "8", "dup2"});
  EXPECT_SAME_REPLY(
      d, {"GEOADD", "k", "XX", "CH", "4", "4", "dup", "3", "3", "dup"});
  EXPECT_SAME_REPLY(
      d, {"GEOADD", "k", "XX", "CH", "9", "9", "dup3", "8", "8", "dup3"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "k", "dup", "dup2", "dup3", "Palermo",
                        "Catania", "Rome", "Madrid", "Nowhere", "Paris"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "k", "0", "-1", "WITHSCORES"});
  // Binary and empty members; the extreme corners of Redis's range.
  EXPECT_SAME_REPLY(
      d, {"GEOADD", "k", "180", "85.05112878", std::string("a\0b", 3), "-180",
          "-85.05112878", "", "180", "0", "east", "-180", "0", "west", "0", "0",
          "origin"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "k", std::string("a\0b", 3), "", "east",
                        "west", "origin", "a"});
  EXPECT_SAME_REPLY(d, {"GEOHASH", "k", std::string("a\0b", 3), "", "east",
                        "west", "origin"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "k", "0", "-1", "WITHSCORES"});
}

TEST(GeoAddTest, WrongTypeComesAfterCoordinateErrors) {
  Differential d;
  testing::SetStringBoth(d, 0, "s", "v");
  EXPECT_SAME_REPLY(d, {"GEOADD", "s", "1", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "s", "500", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "s", "1", "2"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "s", "NX", "XX", "1", "2", "a"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "s", "a"});
  EXPECT_SAME_REPLY(d, {"GEOHASH", "s", "a"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "s", "a", "b"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "s", "a", "b", "parsec"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "s", "a", "b", "km", "extra"});
}

TEST(GeoPosTest, MissingKeysMembersAndResp3) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"GEOPOS", "nokey", "a", "b"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "nokey"});
  EXPECT_SAME_REPLY(d, {"GEOHASH", "nokey", "a"});
  EXPECT_SAME_REPLY(d, {"GEOHASH", "nokey"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "Sicily", "13.361389", "38.115556", "Palermo",
                        "15.087269", "37.502669", "Catania"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "Sicily", "Palermo", "nope", "Catania"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "Sicily"});
  EXPECT_SAME_REPLY(d, {"GEOHASH", "Sicily", "Palermo", "nope", "Catania"});
  testing::Resp3Both(d);
  EXPECT_SAME_REPLY(d, {"GEOPOS", "Sicily", "Palermo", "nope", "Catania"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "nokey", "a"});
  EXPECT_SAME_REPLY(d, {"GEOHASH", "Sicily", "Palermo", "nope"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "Sicily", "Palermo", "Catania"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "Sicily", "Palermo", "nope"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "nokey", "Palermo", "nope"});
}

TEST(GeoDistTest, UnitsAndErrors) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "a"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "nokey", "a", "b"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "nokey", "a", "b", "parsec"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "nokey", "a", "b", "km", "x"});
  EXPECT_SAME_REPLY(
      d, {"GEOADD",    "k",         "13.361389", "38.115556",  "Palermo",
          "15.087269", "37.502669", "Catania",   "-122.27652", "37.80574",
          "Oakland",   "139.6917",  "35.6895",   "Tokyo",      "180",
          "0",         "e",         "-180",      "0",          "w"});
  for (const char* unit : {"m", "km", "ft", "mi", "M", "Km", "FT", "mI"}) {
    EXPECT_SAME_REPLY(d, {"GEODIST", "k", "Palermo", "Catania", unit});
    EXPECT_SAME_REPLY(d, {"GEODIST", "k", "Oakland", "Tokyo", unit});
  }
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "Palermo", "Catania"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "Catania", "Palermo"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "Palermo", "Palermo"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "e", "w"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "Palermo", "nope"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "nope", "Palermo", "km"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "Palermo", "Catania", "parsec"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "Palermo", "Catania", ""});
  EXPECT_SAME_REPLY(
      d, {"GEODIST", "k", "Palermo", "Catania", std::string("km\0x", 4)});
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "Palermo", "Catania", "km", "x"});
}

TEST(GeoCommandsTest, DatabasesAreSeparate) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "1", "2", "zero"});
  EXPECT_SAME_REPLY(d, {"SELECT", "3"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "k", "zero"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "3", "4", "three"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "k", "zero", "three"});
  EXPECT_SAME_REPLY(d, {"SELECT", "0"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "k", "zero", "three"});
  // Database 0's key is the gRPC collection of the same name; db 3's is not.
  storage::TrackStore& store = d.trackdb_server().store();
  EXPECT_EQ(*store.CollectionSize("k"), 1);
  EXPECT_EQ(*store.CollectionSize(types::KeyName(3, "k")), 1);
  EXPECT_TRUE((*store.GetLatest("k", "zero")).has_value());
  EXPECT_TRUE((*store.GetLatest(types::KeyName(3, "k"), "three")).has_value());
}

TEST(GeoCommandsTest, GeoaddWritesHistoryAndLatestThroughTheStore) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"GEOADD", "fleet", "116.4", "39.9", "car7"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "fleet", "116.41", "39.91", "car7"});
  storage::TrackStore& store = d.trackdb_server().store();
  auto latest = store.GetLatest("fleet", "car7");
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->lat, 39.91);
  EXPECT_EQ((*latest)->lon, 116.41);
  storage::TrackQuery q;
  q.collection = "fleet";
  q.entity = "car7";
  auto track = store.GetTrack(q);
  ASSERT_TRUE(track.ok());
  // Two GEOADDs in the same millisecond overwrite one history point.
  EXPECT_GE(track->points.size(), 1u);
  EXPECT_LE(track->points.size(), 2u);
  EXPECT_THAT(storage::testing::InvariantViolations(store, "fleet"),
              ::testing::IsEmpty());
}

// trackdb's own limits (model/limits.h), which Redis does not have: a clear
// error, nothing written.
TEST(GeoCommandsTest, OversizedMembersAndKeysAreRefusedWhole) {
  testing::TrackdbResp server;
  testing::RawClient c(server.port());
  const std::string big(model::kMaxEntityIdBytes + 1, 'm');
  EXPECT_EQ(c.Call({"GEOADD", "k", "1", "1", "ok", "2", "2", big}),
            absl::StrCat("-ERR GEO member is ", big.size(), " bytes; at most ",
                         model::kMaxEntityIdBytes, "\r\n"));
  EXPECT_EQ(c.Call({"ZCARD", "k"}), ":0\r\n");
  const std::string big_key(model::kMaxCollectionBytes + 1, 'k');
  EXPECT_EQ(c.Call({"GEOADD", big_key, "1", "1", "m"}),
            absl::StrCat("-ERR GEO key is ", big_key.size(), " bytes; at most ",
                         model::kMaxCollectionBytes, "\r\n"));
  EXPECT_EQ(c.Call({"SELECT", "3"}), "+OK\r\n");
  // The limit is on the key as written, whatever database it is in.
  const std::string max_key(model::kMaxCollectionBytes, 'k');
  EXPECT_EQ(c.Call({"GEOADD", max_key, "1", "1", "m"}), ":1\r\n");
}

TEST(GeoCommandsTest, MembersWithoutARedisScoreReadAsAbsent) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"GEOADD", "k", "10", "20", "a"});
  // North of Redis's latitude limit: no door takes it, but storage can hold
  // it (a store written before every door took Redis's range).
  testing::AddTrackdbOnlyPoint(d, 0, "k", "polar", 89.5, 10);
  testing::AddTrackdbOnlyPoint(d, 0, "k", "pole", 90, 0);
  EXPECT_SAME_REPLY(d, {"GEOPOS", "k", "a", "polar", "pole"});
  EXPECT_SAME_REPLY(d, {"GEOHASH", "k", "a", "polar"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "k", "a", "polar"});
  // GEOADD treats it as present: NX skips it, and moving it into Redis's
  // range counts as changed (CH), not added.
  EXPECT_EQ(d.trackdb().Call({"GEOADD", "k", "NX", "1", "1", "polar"}),
            ":0\r\n");
  EXPECT_EQ(d.trackdb().Call({"GEOADD", "k", "CH", "1", "1", "polar"}),
            ":1\r\n");
  EXPECT_EQ(d.trackdb().Call({"GEOADD", "k", "1", "1", "pole"}), ":0\r\n");
  EXPECT_EQ(
      d.redis().Call({"GEOADD", "k", "1", "1", "polar", "1", "1", "pole"}),
      ":2\r\n");
  EXPECT_SAME_REPLY(d, {"GEOPOS", "k", "a", "polar", "pole"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "k", "0", "-1", "WITHSCORES"});
}

}  // namespace
}  // namespace trackdb::resp
