// Replays replies recorded from a real redis-server 7.0.15
// (testdata/gen_redis_geo_vectors.py; the format is described there) and
// checks that index/redis_geo_search.h and index/redis_geo_format.h
// reproduce them byte for byte: which members, in which order, with which
// WITHDIST / WITHHASH / WITHCOORD text; GEODIST; GEOPOS; the stored scores.

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "index/distance.h"
#include "index/geohash.h"
#include "index/redis_geo_format.h"
#include "index/redis_geo_search.h"

namespace trackdb::index {
namespace {

constexpr char kVectors[] = "index/testdata/redis_geo_vectors.txt";

struct Member {
  std::string name;
  LatLng added;  // As GEOADDed.
  uint64_t redis_score = 0;
};

struct Query {
  int line = 0;
  std::string key;
  std::vector<std::string> args;
  std::vector<std::vector<std::string>> replies;  // R lines' fields.
};

struct Vectors {
  std::string version;
  std::map<std::string, std::vector<Member>> keys;
  std::vector<std::vector<std::string>> geopos;   // P lines.
  std::vector<std::vector<std::string>> geodist;  // D lines.
  std::vector<Query> queries;
};

double ParseDouble(const std::string& s) {
  // strtod, as Redis parses arguments (it accepts "inf").
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  EXPECT_EQ(*end, '\0') << s;
  return d;
}

Vectors Load() {
  Vectors v;
  std::ifstream in(kVectors);
  EXPECT_TRUE(in) << "cannot open " << kVectors;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    const std::string tag = f[0];
    f.erase(f.begin());
    if (tag == "V") {
      v.version = f.at(0);
    } else if (tag == "M") {
      Member m;
      m.name = f.at(1);
      m.added = LatLng{ParseDouble(f.at(3)), ParseDouble(f.at(2))};
      EXPECT_TRUE(absl::SimpleAtoi(f.at(4), &m.redis_score)) << line;
      v.keys[f.at(0)].push_back(m);
    } else if (tag == "P") {
      v.geopos.push_back(f);
    } else if (tag == "D") {
      v.geodist.push_back(f);
    } else if (tag == "Q") {
      Query q;
      q.line = n;
      q.key = f.at(0);
      q.args.assign(f.begin() + 1, f.end());
      v.queries.push_back(q);
    } else if (tag == "R") {
      v.queries.back().replies.push_back(f);
    } else if (tag == "E") {
      size_t count = 0;
      EXPECT_TRUE(absl::SimpleAtoi(f.at(0), &count));
      EXPECT_EQ(v.queries.back().replies.size(), count) << "line " << n;
    } else {
      ADD_FAILURE() << "bad line " << n << ": " << line;
    }
  }
  return v;
}

const Vectors& TheVectors() {
  static const Vectors* v = new Vectors(Load());
  return *v;
}

const Member* Find(const std::vector<Member>& members,
                   const std::string& name) {
  for (const Member& m : members) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// A GEOSEARCH command's arguments after the key, parsed as Redis does.
struct ParsedQuery {
  RedisGeoShape shape;
  RedisGeoReplyOptions options;
  bool with_coord = false;
};

ParsedQuery Parse(const Query& q, const std::vector<Member>& members) {
  ParsedQuery p;
  LatLng centre;
  const auto& a = q.args;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == "FROMLONLAT") {
      centre = LatLng{ParseDouble(a[i + 2]), ParseDouble(a[i + 1])};
      i += 2;
    } else if (a[i] == "FROMMEMBER") {
      const Member* m = Find(members, a[i + 1]);
      EXPECT_NE(m, nullptr) << a[i + 1];
      if (m != nullptr) centre = RedisGeoScoreToLatLng(m->redis_score);
      i += 1;
    } else if (a[i] == "BYRADIUS") {
      const std::optional<double> unit = RedisUnitToMeters(a[i + 2]);
      EXPECT_TRUE(unit) << a[i + 2];
      p.shape = RedisGeoShape::Radius({}, ParseDouble(a[i + 1]), *unit);
      i += 2;
    } else if (a[i] == "BYBOX") {
      const std::optional<double> unit = RedisUnitToMeters(a[i + 3]);
      EXPECT_TRUE(unit) << a[i + 3];
      p.shape = RedisGeoShape::Box({}, ParseDouble(a[i + 1]),
                                   ParseDouble(a[i + 2]), *unit);
      i += 3;
    } else if (a[i] == "ASC") {
      p.options.sort = RedisGeoSort::kAsc;
    } else if (a[i] == "DESC") {
      p.options.sort = RedisGeoSort::kDesc;
    } else if (a[i] == "COUNT") {
      EXPECT_TRUE(absl::SimpleAtoi(a[i + 1], &p.options.count));
      i += 1;
    } else if (a[i] == "ANY") {
      p.options.any = true;
    } else if (a[i] == "WITHCOORD") {
      p.with_coord = true;
    } else {
      EXPECT_TRUE(a[i] == "WITHDIST" || a[i] == "WITHHASH") << a[i];
    }
  }
  p.shape.centre = centre;
  return p;
}

TEST(RedisGeoVectorsTest, RecordedFromRedis70) {
  const Vectors& v = TheVectors();
  EXPECT_EQ(v.version.substr(0, 4), "7.0.");
  EXPECT_GT(v.keys.at("world").size(), 2000u);
  EXPECT_GT(v.queries.size(), 400u);
}

TEST(RedisGeoVectorsTest, MemberScoresMatchZscore) {
  int mismatches = 0;
  for (const auto& [key, members] : TheVectors().keys) {
    for (const Member& m : members) {
      const std::optional<uint64_t> s = RedisGeoMemberScore(m.added);
      ASSERT_TRUE(s) << m.name;
      if (*s != m.redis_score && ++mismatches <= 10) {
        ADD_FAILURE() << key << " " << m.name << ": ours " << *s << ", Redis "
                      << m.redis_score;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(RedisGeoVectorsTest, GeoposText) {
  const Vectors& v = TheVectors();
  ASSERT_GT(v.geopos.size(), 100u);
  for (const auto& f : v.geopos) {
    const Member* m = Find(v.keys.at(f[0]), f[1]);
    ASSERT_NE(m, nullptr) << f[1];
    const LatLng p = RedisGeoScoreToLatLng(m->redis_score);
    EXPECT_EQ(RedisFormatCoordinate(p.lon), f[2]) << f[1];
    EXPECT_EQ(RedisFormatCoordinate(p.lat), f[3]) << f[1];
  }
}

TEST(RedisGeoVectorsTest, GeodistText) {
  const Vectors& v = TheVectors();
  ASSERT_GT(v.geodist.size(), 100u);
  for (const auto& f : v.geodist) {
    const Member* a = Find(v.keys.at(f[0]), f[1]);
    const Member* b = Find(v.keys.at(f[0]), f[2]);
    ASSERT_TRUE(a != nullptr && b != nullptr);
    const std::optional<double> unit = RedisUnitToMeters(f[3]);
    ASSERT_TRUE(unit) << f[3];
    EXPECT_EQ(RedisFormatDistance(
                  RedisGeoDistMeters(a->redis_score, b->redis_score), *unit),
              f[4])
        << absl::StrJoin(f, " ");
  }
}

// The reply entry's fields as they are recorded: member, dist, hash[, lon,
// lat].
std::vector<std::string> OurFields(const RedisGeoResult& r,
                                   const ParsedQuery& p) {
  std::vector<std::string> f = {
      r.member, RedisFormatDistance(r.distance_m, p.shape.unit_to_meters),
      absl::StrCat(r.score)};
  if (p.with_coord) {
    const LatLng pos = RedisGeoScoreToLatLng(r.score);
    f.push_back(RedisFormatCoordinate(pos.lon));
    f.push_back(RedisFormatCoordinate(pos.lat));
  }
  return f;
}

TEST(RedisGeoVectorsTest, GeosearchRepliesMatchExactly) {
  const Vectors& v = TheVectors();
  int failed = 0;
  size_t entries = 0;
  for (const Query& q : v.queries) {
    const std::vector<Member>& members = v.keys.at(q.key);
    const ParsedQuery p = Parse(q, members);
    // Every member is a candidate: the filter alone must reproduce Redis.
    std::vector<RedisGeoCandidate> all;
    for (const Member& m : members) all.push_back({m.name, m.redis_score});
    const std::vector<RedisGeoResult> ours =
        RedisGeoSearch(p.shape, all, p.options);
    std::vector<std::string> got, want;
    for (const RedisGeoResult& r : ours) {
      got.push_back(absl::StrJoin(OurFields(r, p), " "));
    }
    for (const auto& f : q.replies) want.push_back(absl::StrJoin(f, " "));
    entries += want.size();
    if (got != want && ++failed <= 5) {
      ADD_FAILURE() << "line " << q.line << ": GEOSEARCH " << q.key << " "
                    << absl::StrJoin(q.args, " ") << "\n  ours (" << got.size()
                    << "):  " << absl::StrJoin(got, " | ") << "\n  Redis ("
                    << want.size() << "): " << absl::StrJoin(want, " | ");
    }
  }
  EXPECT_EQ(failed, 0) << "of " << v.queries.size() << " queries";
  EXPECT_GT(entries, 5000u);
}

// The candidate circle contains every member Redis returned, measured from
// the position it was added at (what trackdb stores).
TEST(RedisGeoVectorsTest, CandidateCircleHoldsEveryReturnedMember) {
  const Vectors& v = TheVectors();
  for (const Query& q : v.queries) {
    const std::vector<Member>& members = v.keys.at(q.key);
    const ParsedQuery p = Parse(q, members);
    const double limit = RedisGeoCandidateRadiusMeters(p.shape);
    for (const auto& f : q.replies) {
      const Member* m = Find(members, f[0]);
      ASSERT_NE(m, nullptr);
      EXPECT_LE(HaversineMeters(p.shape.centre, m->added), limit)
          << "line " << q.line << " member " << f[0];
    }
  }
}

TEST(RedisGeoVectorsTest, ScanRangesAreDisjoint) {
  const Vectors& v = TheVectors();
  for (const Query& q : v.queries) {
    const ParsedQuery p = Parse(q, v.keys.at(q.key));
    const RedisGeoAreas areas = ComputeRedisGeoAreas(p.shape);
    ASSERT_FALSE(areas.scans.empty());
    for (size_t i = 0; i < areas.scans.size(); ++i) {
      for (size_t j = i + 1; j < areas.scans.size(); ++j) {
        const auto& a = areas.scans[i];
        const auto& b = areas.scans[j];
        EXPECT_TRUE(a.max_score <= b.min_score || b.max_score <= a.min_score)
            << "line " << q.line << " scans " << i << ", " << j;
      }
    }
  }
}

}  // namespace
}  // namespace trackdb::index
