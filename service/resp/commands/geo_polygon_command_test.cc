// GEOSEARCH / GEOSEARCHSTORE ... BYPOLYGON (Valkey 9.0's syntax): replies
// checked byte for byte against Valkey's documented ones, and the errors
// Valkey gives, plus trackdb's own (crossing edges, the vertex limit).
// Redis 7.0 has no BYPOLYGON, so there is no redis-server to compare with.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/resp/testing/resp_test_client.h"

namespace trackdb::resp {
namespace {

using ::testing::HasSubstr;
using testing::RawClient;
using testing::TrackdbResp;

// Valkey's GEOSEARCH page: GEOSEARCH Sicily BYPOLYGON 5 ...
const std::vector<std::string> kSicilyPolygon = {
    "BYPOLYGON",          "5",
    "12.41098696654226",  "38.05033923003755",
    "15.107936245794182", "38.00616649901906",
    "18.148439288534455", "38.63804787603499",
    "17.80831874257693",  "39.50316813110968",
    "12.458468633214036", "38.57719533463012"};

std::vector<std::string> Cmd(std::vector<std::string> head,
                             const std::vector<std::string>& shape,
                             const std::vector<std::string>& tail = {}) {
  head.insert(head.end(), shape.begin(), shape.end());
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

class GeoPolygonTest : public ::testing::Test {
 protected:
  GeoPolygonTest() : client_(server_.port()) {
    EXPECT_EQ(client_.Call({"GEOADD", "Sicily", "13.361389", "38.115556",
                            "Palermo", "15.087269", "37.502669", "Catania"}),
              ":2\r\n");
    EXPECT_EQ(client_.Call({"GEOADD", "Sicily", "12.758489", "38.788135",
                            "edge1", "17.241510", "38.788135", "edge2"}),
              ":2\r\n");
  }
  std::string Call(const std::vector<std::string>& argv) {
    return client_.Call(argv);
  }

  TrackdbResp server_;
  RawClient client_;
};

TEST_F(GeoPolygonTest, RepliesAsValkeysDocumentedExamples) {
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "Sicily"}, kSicilyPolygon)),
            "*2\r\n$7\r\nPalermo\r\n$5\r\nedge2\r\n");
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "Sicily"}, kSicilyPolygon,
                     {"ASC", "WITHCOORD", "WITHDIST"})),
            "*2\r\n"
            "*3\r\n$7\r\nPalermo\r\n$11\r\n166482.0159\r\n"
            "*2\r\n$20\r\n13.36138933897018433\r\n"
            "$20\r\n38.11555639549629859\r\n"
            "*3\r\n$5\r\nedge2\r\n$11\r\n180861.7725\r\n"
            "*2\r\n$20\r\n17.24151045083999634\r\n"
            "$20\r\n38.78813451624225195\r\n");
  // COUNT without ASC/DESC: the nearest to the centre first.
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "Sicily"}, kSicilyPolygon, {"COUNT", "1"})),
            "*1\r\n$7\r\nPalermo\r\n");
  // WITHHASH: the member's score.
  const std::string score = Call({"ZSCORE", "Sicily", "edge2"});
  ASSERT_THAT(score, ::testing::StartsWith("$16\r\n"));
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "Sicily"}, kSicilyPolygon,
                     {"DESC", "COUNT", "1", "WITHHASH"})),
            "*1\r\n*2\r\n$5\r\nedge2\r\n:" + score.substr(5, 16) + "\r\n");
  // Options before the shape parse the same.
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "Sicily", "ASC"}, kSicilyPolygon)),
            "*2\r\n$7\r\nPalermo\r\n$5\r\nedge2\r\n");
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "nokey"}, kSicilyPolygon)), "*0\r\n");
}

TEST_F(GeoPolygonTest, StoreKeepsTheResultsAndStoreDistTheirDistances) {
  EXPECT_EQ(Call(Cmd({"GEOSEARCHSTORE", "dest", "Sicily"}, kSicilyPolygon)),
            ":2\r\n");
  EXPECT_EQ(Call({"ZRANGE", "dest", "0", "-1"}),
            "*2\r\n$7\r\nPalermo\r\n$5\r\nedge2\r\n");
  EXPECT_EQ(Call(Cmd({"GEOSEARCHSTORE", "dist", "Sicily"}, kSicilyPolygon,
                     {"STOREDIST"})),
            ":2\r\n");
  EXPECT_EQ(Call({"TYPE", "dist"}), "+zset\r\n");
  // The distances are what WITHDIST reports, unrounded.
  const std::string with_dist =
      Call(Cmd({"GEOSEARCH", "Sicily"}, kSicilyPolygon, {"WITHDIST", "ASC"}));
  const std::string stored = Call({"ZRANGE", "dist", "0", "-1", "WITHSCORES"});
  EXPECT_THAT(stored, HasSubstr("Palermo"));
  EXPECT_EQ(with_dist.find("Palermo") < with_dist.find("edge2"),
            stored.find("Palermo") < stored.find("edge2"));
  EXPECT_EQ(Call(Cmd({"GEOSEARCHSTORE", "dest", "Sicily"}, kSicilyPolygon,
                     {"WITHDIST"})),
            "-ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH "
            "and WITHCOORD options\r\n");
}

TEST_F(GeoPolygonTest, ErrorsAsValkeys) {
  const std::string square_tail[] = {"0", "0", "1", "0", "1", "1", "0", "1"};
  auto polygon = [&](const std::string& n, int pairs) {
    std::vector<std::string> argv = {"GEOSEARCH", "Sicily", "BYPOLYGON", n};
    argv.insert(argv.end(), square_tail, square_tail + 2 * pairs);
    return argv;
  };
  EXPECT_EQ(Call(polygon("x", 4)), "-ERR invalid number of vertices\r\n");
  EXPECT_EQ(Call(polygon("9999999999", 4)),
            "-ERR invalid number of vertices\r\n");
  EXPECT_EQ(Call(polygon("2", 2)),
            "-ERR GEOSEARCH BYPOLYGON must have at least 3 vertices\r\n");
  EXPECT_EQ(Call(polygon("3", 2)),
            "-ERR GEOSEARCH BYPOLYGON must have at least 3 vertices\r\n");
  EXPECT_EQ(Call(polygon("4", 4)), "*0\r\n");
  // Numbers beyond the vertices are options, and not known ones.
  std::vector<std::string> extra = polygon("3", 4);
  EXPECT_EQ(Call(extra), "-ERR syntax error\r\n");
  EXPECT_EQ(
      Call({"GEOSEARCH", "Sicily", "ASC", "ASC", "ASC", "BYPOLYGON", "3"}),
      "-ERR syntax error\r\n");
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37"},
                     kSicilyPolygon)),
            "-ERR syntax error\r\n");
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "Sicily"}, kSicilyPolygon,
                     {"FROMMEMBER", "Palermo"})),
            "-ERR syntax error\r\n");
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "Sicily"}, kSicilyPolygon,
                     {"BYRADIUS", "1", "km"})),
            "-ERR syntax error\r\n");
  EXPECT_EQ(Call(Cmd({"GEOSEARCH", "Sicily", "BYBOX", "1", "1", "km"},
                     kSicilyPolygon)),
            "-ERR syntax error\r\n");
  EXPECT_EQ(Call({"GEOSEARCH", "Sicily", "BYPOLYGON", "3", "0", "0", "1", "0",
                  "1", "91"}),
            "-ERR invalid longitude,latitude pair 1.000000,91.000000\r\n");
  EXPECT_EQ(Call({"GEOSEARCH", "Sicily", "BYPOLYGON", "3", "0", "0", "1", "0",
                  "x", "1"}),
            "-ERR value is not a valid float\r\n");
  EXPECT_EQ(
      Call(Cmd({"GEORADIUS", "Sicily", "15", "37", "1", "km"}, kSicilyPolygon)),
      "-ERR syntax error\r\n");
}

TEST_F(GeoPolygonTest, TrackdbsPolygonRulesAndLimit) {
  // Edges that cross: refused, as gRPC's SearchPolygon refuses them.
  EXPECT_THAT(Call({"GEOSEARCH", "Sicily", "BYPOLYGON", "4", "0", "0", "1", "1",
                    "1", "0", "0", "1"}),
              HasSubstr("-ERR invalid polygon: "));
  TrackdbResp small([] {
    v1::TrackdbConfig config;
    config.mutable_limits()->set_max_polygon_vertices(3);
    return config;
  }());
  RawClient client(small.port());
  EXPECT_EQ(client.Call({"GEOSEARCH", "k", "BYPOLYGON", "4", "0", "0", "1", "0",
                         "1", "1", "0", "1"}),
            "-ERR BYPOLYGON has 4 vertices; a polygon has 3 to 3\r\n");
}

}  // namespace
}  // namespace trackdb::resp
