// The GEO commands on a plain sorted set, whose scores Redis reads as
// geohashes (geo_source.h), compared byte for byte with a real
// redis-server 7.0: reads, searches, STORE, and GEOADD (Redis's ZADD).
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/redis_geo_search.h"
#include "model/clock.h"
#include "service/resp/testing/resp_test_client.h"
#include "storage/store_test_util.h"
#include "types/geo_source.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

using testing::Differential;

// A ZADD of `n` members at random positions around Sicily, their scores
// the geohashes GEOADD would give them; every fourth has half a unit
// added, a score Redis truncates when it decodes it.
void AddPlainZset(Differential& d, const std::string& key, int n) {
  std::mt19937 rng(20261127);
  std::uniform_real_distribution<double> lon(12.5, 15.5), lat(36.5, 38.5);
  std::vector<std::string> zadd = {"ZADD", key};
  for (int i = 0; i < n; ++i) {
    const uint64_t hash = *index::RedisGeoMemberScore({lat(rng), lon(rng)});
    zadd.push_back(i % 4 == 3 ? absl::StrCat(hash, ".5") : absl::StrCat(hash));
    zadd.push_back(absl::StrCat("m", i));
  }
  EXPECT_SAME_REPLY(d, zadd);
}

TEST(GeoOnPlainZsetTest, ReadsDecodeScoresAsRedisDoes) {
  Differential d;
  AddPlainZset(d, "z", 40);
  EXPECT_SAME_REPLY(d, {"TYPE", "z"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "z", "m0", "m3", "nope", "m39"});
  EXPECT_SAME_REPLY(d, {"GEOHASH", "z", "m1", "m7", "nope"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "z", "m0", "m1", "km"});
  EXPECT_SAME_REPLY(d, {"GEODIST", "z", "m0", "nope"});
  // The edges of the geohash range: 0 and 2^52 - 1.
  EXPECT_SAME_REPLY(d, {"ZADD", "z", "0", "zero", "4503599627370495", "top"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "z", "zero", "top"});
  EXPECT_SAME_REPLY(d, {"GEOHASH", "z", "zero", "top"});
}

TEST(GeoOnPlainZsetTest, ASearchReadsOnlyTheRangesRedisScans) {
  Differential d;
  AddPlainZset(d, "z", 300);
  EXPECT_SAME_REPLY(d, {"GEOADD", "z", "2.35", "48.85", "paris"});
  storage::TrackStore& store = d.trackdb_server().store();
  const std::string name = types::KeyName(0, "z");
  index::RedisGeoAreas everything;
  everything.scans.push_back({index::GeohashBits{}, 0, 1ULL << 52});
  auto all = types::PlainZsetGeoCandidates(store, name, everything, NowMs());
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 301u);

  const index::RedisGeoAreas areas = index::ComputeRedisGeoAreas(
      index::RedisGeoShape::Radius({37.5, 14.0}, 20, 1000));
  // What Redis scans: the members whose geohashes lie in the ranges, by
  // range, then in sorted-set order.
  std::vector<std::pair<int, std::string>> want;
  for (const types::ZEntry& e : *all) {
    const int range =
        index::RedisGeoScanIndex(areas, *types::GeohashOfZsetScore(e.score));
    if (range >= 0) want.emplace_back(range, e.member);
  }
  std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
    return a.first < b.first;
  });
  auto got = types::PlainZsetGeoCandidates(store, name, areas, NowMs());
  ASSERT_TRUE(got.ok()) << got.status();
  std::vector<std::pair<int, std::string>> got_members;
  for (const types::ZEntry& e : *got) {
    got_members.emplace_back(
        index::RedisGeoScanIndex(areas, *types::GeohashOfZsetScore(e.score)),
        e.member);
  }
  EXPECT_EQ(got_members, want);
  EXPECT_GT(want.size(), 0u);
  EXPECT_LT(want.size(), 100u);  // not the whole island, nor Paris
}

TEST(GeoOnPlainZsetTest, SearchesMatchRedis) {
  Differential d;
  AddPlainZset(d, "z", 300);
  const std::vector<std::vector<std::string>> searches = {
      {"GEOSEARCH", "z", "FROMLONLAT", "14", "37.5", "BYRADIUS", "50", "km",
       "ASC", "WITHCOORD", "WITHDIST", "WITHHASH"},
      {"GEOSEARCH", "z", "FROMLONLAT", "14", "37.5", "BYRADIUS", "80", "km"},
      {"GEOSEARCH", "z", "FROMMEMBER", "m5", "BYBOX", "60", "40", "km", "DESC",
       "COUNT", "7"},
      {"GEOSEARCH", "z", "FROMMEMBER", "m3", "BYRADIUS", "30", "mi", "COUNT",
       "3", "ANY"},
      {"GEOSEARCH", "z", "FROMMEMBER", "nope", "BYRADIUS", "30", "km"},
      {"GEORADIUS", "z", "13.5", "38", "40", "km", "WITHDIST", "ASC"},
      {"GEORADIUSBYMEMBER", "z", "m9", "25", "km", "WITHCOORD"},
      {"GEORADIUSBYMEMBER_RO", "z", "m10", "100", "km", "COUNT", "10", "ASC"},
      {"GEOSEARCH", "z", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
  };
  for (const auto& search : searches) EXPECT_SAME_REPLY(d, search);
}

// STORE writes the results at their scores, STOREDIST their distances;
// both replace the destination, and a plain source stays as it was.
TEST(GeoOnPlainZsetTest, StoreFromAPlainSortedSet) {
  Differential d;
  AddPlainZset(d, "z", 200);
  EXPECT_SAME_REPLY(d, {"GEOADD", "dst", "1", "1", "old"});
  const std::vector<std::vector<std::string>> stores = {
      {"GEORADIUS", "z", "14", "37.5", "40", "km", "STORE", "dst"},
      {"GEOSEARCHSTORE", "dst", "z", "FROMMEMBER", "m2", "BYBOX", "90", "90",
       "km", "ASC", "COUNT", "12"},
      {"GEORADIUSBYMEMBER", "z", "m4", "70", "km", "STOREDIST", "dst"},
      {"GEOSEARCHSTORE", "dst", "z", "FROMLONLAT", "0", "0", "BYRADIUS", "1",
       "km"},
  };
  for (const auto& store : stores) {
    EXPECT_SAME_REPLY(d, store);
    EXPECT_SAME_REPLY(d, {"TYPE", "dst"});
    EXPECT_SAME_REPLY(d, {"ZRANGE", "dst", "0", "-1", "WITHSCORES"});
  }
  EXPECT_SAME_REPLY(d, {"ZCARD", "z"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "z", "0", "4", "WITHSCORES"});
}

// GEOADD on a plain sorted set is Redis's ZADD of the geohashes, NX, XX and
// CH included; it stays a plain sorted set, and its other members keep
// their scores. Pipelined, the calls are answered as one by one.
TEST(GeoOnPlainZsetTest, GeoAddOnAPlainSortedSetIsZadd) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"ZADD", "z", "1.5", "notaplace", "7", "m"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "z", "13.361389", "38.115556", "Palermo"});
  EXPECT_SAME_REPLY(
      d, {"GEOADD", "z", "NX", "15", "37", "Palermo", "15", "37", "Catania"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "z", "XX", "CH", "14", "37", "Palermo", "1",
                        "1", "Nowhere"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "z", "CH", "14", "37", "m"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "z", "500", "37", "bad"});
  const std::vector<std::vector<std::string>> pipeline = {
      {"GEOADD", "z", "12", "37", "a"},
      {"GEOADD", "z", "12", "37", "a", "12.5", "37.5", "b"},
      {"GEOADD", "z", "500", "1", "c"},
      {"GEOADD", "z", "13", "38", "c"},
  };
  const auto replies = d.Pipeline(pipeline);
  for (size_t i = 0; i < pipeline.size(); ++i) {
    EXPECT_EQ(replies[i].trackdb, replies[i].redis)
        << ::testing::PrintToString(pipeline[i]);
  }
  EXPECT_SAME_REPLY(d, {"TYPE", "z"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "z", "0", "-1", "WITHSCORES"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "z", "Palermo", "Catania", "notaplace"});
  // A plain sorted set is not a trackdb collection.
  EXPECT_EQ(*d.trackdb_server().store().CollectionSize(types::KeyName(0, "z")),
            0);
}

// A score outside [0, 2^52) decodes, in Redis, to a position clamped to the
// map's edge; trackdb treats such a member as having no position.
TEST(GeoOnPlainZsetTest, AScoreOutsideTheGeohashRangeHasNoPosition) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"ZADD", "z", "-1", "neg", "1e300", "huge", "3", "ok"});
  const std::string reply =
      d.trackdb().Call({"GEOPOS", "z", "neg", "huge", "ok"});
  EXPECT_THAT(reply, ::testing::StartsWith("*3\r\n*-1\r\n*-1\r\n*2\r\n"));
  EXPECT_EQ(d.trackdb().Call(
                {"GEOSEARCH", "z", "FROMMEMBER", "neg", "BYRADIUS", "1", "km"}),
            "-ERR could not decode requested zset member\r\n");
}

}  // namespace
}  // namespace trackdb::resp
