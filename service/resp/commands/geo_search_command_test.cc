// GEOSEARCH, GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER and the _RO forms
// compared byte for byte with a real redis-server 7.0.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/geo_test_util.h"
#include "service/resp/testing/resp_test_client.h"
#include "types/keyspace.h"

namespace trackdb::resp {
namespace {

using testing::Differential;

void AddSicily(Differential& d, const std::string& key = "Sicily") {
  EXPECT_SAME_REPLY(
      d, {"GEOADD",    key,         "13.361389", "38.115556", "Palermo",
          "15.087269", "37.502669", "Catania",   "12.758489", "38.788135",
          "edge1",     "17.241510", "38.222244", "edge2",     "13.583333",
          "37.316667", "Agrigento", "15.556389", "38.193611", "Messina"});
}

TEST(GeoSearchTest, ArgumentErrorsInRedisOrder) {
  Differential d;
  AddSicily(d);
  const std::vector<std::vector<std::string>> commands = {
      {"GEOSEARCH", "Sicily"},
      {"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "10"},
      {"GEOSEARCH", "Sicily", "FROMMEMBER", "nope", "BYRADIUS", "10", "km"},
      {"GEOSEARCH", "Sicily", "FROMMEMBER", "nope", "BYRADIUS", "x", "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "FROMMEMBER", "Palermo",
       "BYRADIUS", "10", "km"},
      {"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMLONLAT", "15", "37",
       "BYRADIUS", "10", "km"},
      {"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMMEMBER", "Catania",
       "BYRADIUS", "10", "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "BYBOX", "1", "1", "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1", "km",
       "BYRADIUS", "10", "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "BYRADIUS", "200", "km"},
      {"GEOSEARCH", "Sicily", "BYRADIUS", "10", "km", "ASC", "WITHDIST"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "ASC", "WITHDIST"},
      {"geosearch", "Sicily", "byradius", "10", "km", "asc", "withdist"},
      {"GeoSearch", "Sicily", "FROMLONLAT", "15", "37", "ASC", "WITHDIST"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "200", "37", "BYRADIUS", "10",
       "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "x", "37", "BYRADIUS", "10", "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "-1", "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "x", "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "nan",
       "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10",
       "parsec"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "x", "y",
       "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "y",
       "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "-1", "y",
       "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "-1",
       "km"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1",
       "au"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "ANY"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "COUNT"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "COUNT", "0"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "COUNT", "-3"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "COUNT", "x"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "COUNT", "99999999999999999999"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "STORE", "dst"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "STOREDIST"},
      {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km",
       "bogus"},
      // The first error wins: a bad COUNT before a bad radius.
      {"GEOSEARCH", "Sicily", "COUNT", "0", "FROMLONLAT", "15", "37",
       "BYRADIUS", "-1", "km"},
      {"GEOSEARCH", "Sicily", "BYRADIUS", "-1", "km", "COUNT", "0",
       "FROMLONLAT", "15", "37"},
      {"GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS",
       "200", "km", "WITHDIST"},
      {"GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS",
       "200", "km", "WITHCOORD", "STOREDIST"},
      {"GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS",
       "200", "km", "STORE", "x"},
      {"GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS",
       "200"},
      {"GEOSEARCHSTORE", "dst", "Sicily", "BYRADIUS", "200", "km", "ASC"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(GeoSearchTest, MissingAndWrongTypeSourceKeys) {
  Differential d;
  testing::SetStringBoth(d, 0, "str", "v");
  const std::vector<std::vector<std::string>> commands = {
      {"GEOSEARCH", "str", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km"},
      // WRONGTYPE comes before any argument error.
      {"GEOSEARCH", "str", "FROMLONLAT", "500", "37", "BYRADIUS", "10", "km"},
      {"GEOSEARCH", "str", "bogus", "1", "2", "3", "4"},
      {"GEORADIUS", "str", "500", "37", "10", "km"},
      {"GEORADIUSBYMEMBER", "str", "a", "-1", "km"},
      {"GEOSEARCHSTORE", "dst", "str", "FROMLONLAT", "15", "37", "BYRADIUS",
       "10", "km"},
      {"GEOSEARCH", "nokey", "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km"},
      // A missing source still parses every argument: errors first.
      {"GEOSEARCH", "nokey", "FROMLONLAT", "500", "37", "BYRADIUS", "10", "km"},
      {"GEOSEARCH", "nokey", "FROMMEMBER", "m", "BYRADIUS", "10", "km"},
      {"GEOSEARCH", "nokey", "FROMMEMBER", "m", "BYRADIUS", "-10", "km"},
      {"GEOSEARCH", "nokey", "FROMMEMBER", "m", "BYRADIUS", "10", "km",
       "bogus"},
      {"GEOSEARCH", "nokey", "FROMMEMBER", "m", "FROMLONLAT", "1", "2",
       "BYRADIUS", "10", "km"},
      {"GEORADIUS", "nokey", "15", "37", "10", "km"},
      {"GEORADIUS", "nokey", "15", "37", "10", "km", "ANY"},
      // GEORADIUSBYMEMBER without a source skips the member and the radius.
      {"GEORADIUSBYMEMBER", "nokey", "m", "x", "parsec"},
      {"GEORADIUSBYMEMBER", "nokey", "m", "x", "parsec", "bogus"},
      {"GEORADIUSBYMEMBER", "nokey", "m", "10", "km", "COUNT", "0"},
      {"GEORADIUSBYMEMBER_RO", "nokey", "m", "10", "km"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(GeoSearchTest, ResultsWithEveryOption) {
  Differential d;
  AddSicily(d);
  const std::vector<std::string> froms[] = {
      {"FROMLONLAT", "15", "37"},
      {"FROMMEMBER", "Palermo"},
      {"FROMLONLAT", "13.361389", "38.115556"},
  };
  const std::vector<std::string> shapes[] = {
      {"BYRADIUS", "200", "km"},     {"BYRADIUS", "100000", "m"},
      {"BYRADIUS", "0", "km"},       {"BYRADIUS", "300", "mi"},
      {"BYRADIUS", "400000", "ft"},  {"BYBOX", "400", "400", "km"},
      {"BYBOX", "200", "100", "mi"}, {"BYBOX", "0", "0", "m"},
      {"BYRADIUS", "inf", "km"},     {"BYRADIUS", "20000", "KM"},
      {"BYBOX", "1e6", "1e3", "Km"},
  };
  const std::vector<std::string> options[] = {
      {},
      {"ASC"},
      {"DESC"},
      {"WITHDIST"},
      {"WITHCOORD", "WITHDIST", "WITHHASH"},
      {"WITHHASH", "ASC"},
      {"COUNT", "2"},
      {"COUNT", "2", "DESC", "WITHDIST"},
      {"COUNT", "3", "ANY"},
      {"ANY", "COUNT", "3", "ASC", "WITHCOORD"},
      {"COUNT", "1", "ANY", "DESC"},
      {"COUNT", "100"},
      {"asc", "desc", "withdist", "withdist"},
      {"COUNT", "1", "COUNT", "4"},
  };
  for (const auto& from : froms) {
    for (const auto& shape : shapes) {
      for (const auto& opts : options) {
        std::vector<std::string> c = {"GEOSEARCH", "Sicily"};
        c.insert(c.end(), from.begin(), from.end());
        c.insert(c.end(), shape.begin(), shape.end());
        c.insert(c.end(), opts.begin(), opts.end());
        EXPECT_SAME_REPLY(d, c);
        // Options may come first too.
        std::vector<std::string> c2 = {"GEOSEARCH", "Sicily"};
        c2.insert(c2.end(), opts.begin(), opts.end());
        c2.insert(c2.end(), shape.begin(), shape.end());
        c2.insert(c2.end(), from.begin(), from.end());
        EXPECT_SAME_REPLY(d, c2);
      }
    }
  }
  testing::Resp3Both(d);
  EXPECT_SAME_REPLY(
      d, {"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "300",
          "km", "WITHCOORD", "WITHDIST", "WITHHASH"});
  EXPECT_SAME_REPLY(
      d, {"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHCOORD"});
  EXPECT_SAME_REPLY(d, {"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo",
                        "BYRADIUS", "0", "km"});
}

TEST(GeoRadiusTest, CoordinatesAndMemberForms) {
  Differential d;
  AddSicily(d);
  const std::vector<std::vector<std::string>> commands = {
      {"GEORADIUS", "Sicily", "15", "37", "200", "km"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "ASC"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHCOORD", "DESC",
       "COUNT", "2"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "2", "ANY",
       "WITHHASH"},
      {"GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "WITHDIST"},
      {"GEORADIUS", "Sicily", "15", "37", "200"},
      {"GEORADIUS", "Sicily", "15", "37", "-200", "km"},
      {"GEORADIUS", "Sicily", "15", "91", "200", "km"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "km", "bogus"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "km", "FROMMEMBER", "x"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "km", "BYRADIUS", "1", "m"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d",
       "WITHDIST"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST", "d",
       "WITHHASH"},
      {"GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STORE", "d"},
      {"GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STOREDIST", "d"},
      {"GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km"},
      {"GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "WITHDIST",
       "WITHCOORD", "WITHHASH", "DESC"},
      {"GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "COUNT", "3"},
      {"GEORADIUSBYMEMBER", "Sicily", "nope", "200", "km"},
      {"GEORADIUSBYMEMBER", "Sicily", "nope", "x", "km"},
      {"GEORADIUSBYMEMBER", "Sicily", "Palermo", "x", "km"},
      {"GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "lightyear"},
      {"GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "200", "km", "ASC"},
      {"GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "200", "km", "STORE", "d"},
      {"GEORADIUSBYMEMBER", "Sicily", "Palermo"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

TEST(GeoSearchStoreTest, ReplacesTheDestination) {
  Differential d;
  AddSicily(d);
  // Into a new key, then over an existing GEO key with other members.
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15",
                        "37", "BYRADIUS", "200", "km"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "dst", "0", "-1", "WITHSCORES"});
  EXPECT_SAME_REPLY(d, {"GEOPOS", "dst", "Catania", "Palermo", "Agrigento"});
  EXPECT_SAME_REPLY(d, {"GEOADD", "dst2", "1", "1", "old", "15.087269",
                        "37.502669", "Catania"});
  EXPECT_SAME_REPLY(
      d, {"GEOSEARCHSTORE", "dst2", "Sicily", "FROMMEMBER", "Palermo", "BYBOX",
          "300", "300", "km", "DESC", "COUNT", "2"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "dst2", "0", "-1", "WITHSCORES"});
  EXPECT_SAME_REPLY(d, {"ZCARD", "dst2"});
  // Over a string key.
  testing::SetStringBoth(d, 0, "strdst", "v");
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "strdst", "Sicily", "FROMLONLAT",
                        "15", "37", "BYRADIUS", "100", "km"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "strdst", "0", "-1", "WITHSCORES"});
  // No results: the destination is deleted, the reply is 0.
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "0",
                        "0", "BYRADIUS", "1", "km"});
  EXPECT_SAME_REPLY(d, {"ZCARD", "dst"});
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "dst2", "nokey", "FROMLONLAT", "0",
                        "0", "BYRADIUS", "1", "km"});
  EXPECT_SAME_REPLY(d, {"ZCARD", "dst2"});
  // GEORADIUS ... STORE, and into itself.
  EXPECT_SAME_REPLY(d, {"GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE",
                        "dst3", "COUNT", "3", "DESC"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "dst3", "0", "-1", "WITHSCORES"});
  EXPECT_SAME_REPLY(d, {"GEORADIUSBYMEMBER", "dst3", "Catania", "100", "km",
                        "STORE", "dst3"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "dst3", "0", "-1", "WITHSCORES"});
  // A database other than 0.
  EXPECT_SAME_REPLY(d, {"SELECT", "5"});
  AddSicily(d, "s5");
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "d5", "s5", "FROMLONLAT", "15", "37",
                        "BYRADIUS", "150", "km", "ASC"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "d5", "0", "-1", "WITHSCORES"});
  // The destination is db 5's key, not the gRPC collection "d5".
  EXPECT_GT(*d.trackdb_server().store().CollectionSize(types::KeyName(5, "d5")),
            0);
  EXPECT_EQ(*d.trackdb_server().store().CollectionSize("d5"), 0);
}

// STOREDIST stores a plain sorted set of distances in the search's unit,
// replacing whatever the destination held, as Redis does.
TEST(GeoSearchStoreTest, StoreDistStoresDistancesAsASortedSet) {
  Differential d;
  AddSicily(d);
  EXPECT_SAME_REPLY(d, {"GEOADD", "dst", "1", "1", "keep"});
  const std::vector<std::vector<std::string>> stores = {
      {"GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS",
       "200", "km", "STOREDIST"},
      {"GEORADIUS", "Sicily", "15", "37", "200", "mi", "STOREDIST", "dst"},
      {"GEORADIUSBYMEMBER", "Sicily", "Palermo", "300", "m", "STOREDIST", "dst",
       "COUNT", "2", "DESC"},
      {"GEOSEARCHSTORE", "dst", "Sicily", "FROMMEMBER", "Catania", "BYBOX",
       "400", "400", "ft", "STOREDIST"},
  };
  for (const auto& c : stores) {
    EXPECT_SAME_REPLY(d, c);
    EXPECT_SAME_REPLY(d, {"TYPE", "dst"});
    EXPECT_SAME_REPLY(d, {"ZRANGE", "dst", "0", "-1", "WITHSCORES"});
  }
  // Over a string; then no results delete the destination.
  testing::SetStringBoth(d, 0, "strdst", "v");
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "strdst", "Sicily", "FROMLONLAT",
                        "15", "37", "BYRADIUS", "100", "km", "STOREDIST"});
  EXPECT_SAME_REPLY(d, {"ZRANGE", "strdst", "0", "-1", "WITHSCORES"});
  EXPECT_SAME_REPLY(d, {"ZSCORE", "strdst", "Catania"});
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "strdst", "Sicily", "FROMLONLAT", "0",
                        "0", "BYRADIUS", "1", "km", "STOREDIST"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "strdst"});
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "dst", "nokey", "FROMLONLAT", "15",
                        "37", "BYRADIUS", "200", "km", "STOREDIST"});
  EXPECT_SAME_REPLY(d, {"EXISTS", "dst"});
  // Argument errors come first, as Redis reports them.
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15",
                        "37", "BYRADIUS", "-200", "km", "STOREDIST"});
  EXPECT_SAME_REPLY(d, {"GEORADIUS", "Sicily", "15", "37", "200", "km",
                        "STOREDIST", "dst", "WITHDIST"});
  EXPECT_SAME_REPLY(d, {"GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15",
                        "37", "STOREDIST"});
}

TEST(GeoSearchTest, MembersWithoutARedisScoreAreSkipped) {
  Differential d;
  AddSicily(d);
  testing::AddTrackdbOnlyPoint(d, 0, "Sicily", "polar", 86, 15);
  testing::AddTrackdbOnlyPoint(d, 0, "Sicily", "southpole", -90, 0);
  EXPECT_SAME_REPLY(d, {"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37",
                        "BYRADIUS", "20000", "km", "ASC"});
  EXPECT_SAME_REPLY(d, {"GEORADIUS", "Sicily", "15", "85", "2000", "km"});
  EXPECT_SAME_REPLY(d, {"GEOSEARCH", "Sicily", "FROMMEMBER", "polar",
                        "BYRADIUS", "20000", "km"});
  EXPECT_SAME_REPLY(d, {"GEORADIUSBYMEMBER", "Sicily", "southpole", "1", "km"});
}

TEST(GeoSearchTest, AntimeridianAndPoles) {
  Differential d;
  EXPECT_SAME_REPLY(d, {"GEOADD", "w",           "179.99", "0",
                        "e1",     "-179.99",     "0",      "w1",
                        "180",    "0",           "e180",   "-180",
                        "0",      "w180",        "179.5",  "10",
                        "e2",     "-179.5",      "-10",    "w2",
                        "0",      "85.05112878", "top",    "90",
                        "85",     "top2",        "-90",    "-85.05112878",
                        "bottom"});
  const std::vector<std::vector<std::string>> commands = {
      {"GEOSEARCH", "w", "FROMLONLAT", "180", "0", "BYRADIUS", "100", "km",
       "WITHDIST", "ASC"},
      {"GEOSEARCH", "w", "FROMLONLAT", "-180", "0", "BYBOX", "200", "3000",
       "km", "WITHCOORD"},
      {"GEOSEARCH", "w", "FROMMEMBER", "e1", "BYRADIUS", "2000", "km",
       "WITHHASH", "DESC"},
      {"GEOSEARCH", "w", "FROMLONLAT", "0", "85", "BYRADIUS", "5000", "km",
       "WITHDIST"},
      {"GEOSEARCH", "w", "FROMLONLAT", "0", "-85", "BYBOX", "20000", "500",
       "km", "WITHDIST"},
      {"GEOSEARCH", "w", "FROMLONLAT", "0", "0", "BYRADIUS", "19000", "km",
       "WITHDIST", "COUNT", "4"},
      {"GEOPOS", "w", "e180", "w180", "top", "bottom"},
      {"GEOHASH", "w", "e180", "w180", "top", "bottom"},
      {"GEODIST", "w", "e180", "w180"},
      {"GEODIST", "w", "top", "bottom", "km"},
  };
  for (const auto& c : commands) EXPECT_SAME_REPLY(d, c);
}

}  // namespace
}  // namespace trackdb::resp
