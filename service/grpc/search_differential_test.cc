// Randomized differential test over gRPC: thousands of random points, then
// random rectangle, radius and polygon searches with random filters, each
// read page by page and compared with a brute-force pass over every entity's
// latest position (computed here, independently of storage).
#include <map>
#include <random>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "index/distance.h"
#include "index/region.h"
#include "model/limits.h"
#include "service/grpc/test_server.h"

namespace trackdb::service {
namespace {

constexpr int64_t kT0 = 1700000000000;

// Where the entities are: a city, both poles and both sides of the
// antimeridian, and the origin.
constexpr index::LatLng kHubs[] = {{39.9, 116.4}, {85.03, 0},    {-85.03, 60},
                                   {10, 179.98},  {-5, -179.98}, {0, 0}};

struct Latest {
  int64_t t;
  double lat, lon;
};

class SearchDifferentialTest : public ::testing::Test {
 protected:
  double U(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  static double Wrap(double lon) {
    return lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon);
  }

  // Every page of a search, concatenated.
  template <typename Request, typename Call>
  std::vector<v1::SearchHit> AllPages(Request req, Call call) {
    std::vector<v1::SearchHit> hits;
    do {
      v1::SearchResponse resp;
      grpc::ClientContext ctx;
      grpc::Status s = call(&ctx, req, &resp);
      EXPECT_TRUE(s.ok()) << s.error_message();
      if (!s.ok()) break;
      hits.insert(hits.end(), resp.hits().begin(), resp.hits().end());
      req.mutable_filter()->set_page_token(resp.next_page_token());
    } while (!req.filter().page_token().empty());
    return hits;
  }

  std::vector<std::string> Expected(const index::Region& region,
                                    const v1::SearchFilter& f,
                                    const index::LatLng* centre) {
    std::vector<std::pair<double, std::string>> hits;
    std::set<std::string> only(f.entity_ids().begin(), f.entity_ids().end());
    for (const auto& [id, p] : latest_) {
      if (!region.Contains({p.lat, p.lon})) continue;
      if (f.has_active_since_ms() && p.t < f.active_since_ms()) continue;
      if (!only.empty() && !only.count(id)) continue;
      hits.push_back(
          {centre ? index::HaversineMeters(*centre, {p.lat, p.lon}) : 0, id});
    }
    std::sort(hits.begin(), hits.end());
    std::vector<std::string> ids;
    for (auto& h : hits) ids.push_back(h.second);
    return ids;
  }

  v1::SearchFilter RandomFilter() {
    v1::SearchFilter f;
    f.set_page_size(1 + rng_() % 60);
    if (rng_() % 3 == 0) f.set_active_since_ms(kT0 + rng_() % 1000);
    // Positions-only searches scan differently (storage decodes less).
    if (rng_() % 2 == 0) f.set_ids_and_positions_only(true);
    if (rng_() % 4 == 0) {
      for (int i = 0; i < 20; ++i)
        f.add_entity_ids(absl::StrCat("e", rng_() % kEntities));
    }
    return f;
  }

  // Three rounds of random points for every entity, around kHubs.
  void AddRandomFleet() {
    // Three rounds of random times per entity, in batches of 500 over gRPC,
    // so later rounds move some entities and leave others (older points).
    for (int round = 0; round < 3; ++round) {
      for (int start = 0; start < kEntities; start += 500) {
        v1::AddPointsRequest req;
        req.set_collection("fleet");
        for (int e = start; e < start + 500; ++e) {
          const index::LatLng& h = kHubs[e % std::size(kHubs)];
          v1::Point* p = req.add_points();
          p->set_entity_id(absl::StrCat("e", e));
          p->set_loc_time_ms(kT0 + rng_() % 1000);
          p->set_latitude(std::clamp(h.lat + U(-0.03, 0.03),
                                     model::kMinLatitude, model::kMaxLatitude));
          p->set_longitude(Wrap(h.lon + U(-0.03, 0.03)));
          auto [it, fresh] = latest_.try_emplace(
              p->entity_id(),
              Latest{p->loc_time_ms(), p->latitude(), p->longitude()});
          if (!fresh && p->loc_time_ms() >= it->second.t) {
            it->second = {p->loc_time_ms(), p->latitude(), p->longitude()};
          }
        }
        v1::AddPointsResponse resp;
        grpc::ClientContext ctx;
        ASSERT_TRUE(server_.stub().AddPoints(&ctx, req, &resp).ok());
      }
    }
  }

  // A radius search around `c`: the ids it returned page by page (checking
  // each hit's distance and point), and the brute-force answer.
  void RadiusSearch(const index::LatLng& c, const v1::SearchFilter& filter,
                    std::vector<std::string>* got,
                    std::vector<std::string>* want) {
    v1::SearchRadiusRequest req;
    req.set_collection("fleet");
    req.mutable_center()->set_latitude(c.lat);
    req.mutable_center()->set_longitude(c.lon);
    req.set_radius_m(std::pow(10, U(1.5, 3.6)));
    *req.mutable_filter() = filter;
    auto hits = AllPages(req, [&](auto* ctx, const auto& r, auto* resp) {
      return server_.stub().SearchRadius(ctx, r, resp);
    });
    for (const auto& hit : hits) {
      got->push_back(hit.point().entity_id());
      const Latest& l = latest_.at(hit.point().entity_id());
      EXPECT_EQ(hit.distance_m(), index::HaversineMeters(c, {l.lat, l.lon}));
      EXPECT_EQ(hit.point().latitude(), l.lat);
      EXPECT_EQ(hit.point().longitude(), l.lon);
      EXPECT_EQ(hit.point().loc_time_ms(),
                filter.ids_and_positions_only() ? 0 : l.t);
    }
    *want =
        Expected(*index::CircleRegion::Create(c, req.radius_m()), filter, &c);
  }

  // A rectangle search around `c`.
  void BoundsSearch(const index::LatLng& c, const v1::SearchFilter& filter,
                    std::vector<std::string>* got,
                    std::vector<std::string>* want) {
    v1::SearchBoundsRequest req;
    req.set_collection("fleet");
    const double hw = U(0.001, 0.03), hh = U(0.001, 0.03);
    req.mutable_south_west()->set_latitude(std::max(-90.0, c.lat - hh));
    req.mutable_south_west()->set_longitude(Wrap(c.lon - hw));
    req.mutable_north_east()->set_latitude(std::min(90.0, c.lat + hh));
    req.mutable_north_east()->set_longitude(Wrap(c.lon + hw));
    *req.mutable_filter() = filter;
    for (const auto& hit :
         AllPages(req, [&](auto*ctx, const auto&r, auto*resp) {
           return server_.stub().SearchBounds(ctx, r, resp);
         })) {
      got->push_back(hit.point().entity_id());
    }
    *want =
        Expected(*index::RectRegion::Create(
                     req.south_west().latitude(), req.south_west().longitude(),
                     req.north_east().latitude(), req.north_east().longitude()),
                 filter, nullptr);
  }

  // A polygon search around `c`; false for a degenerate random polygon.
  bool PolygonSearch(const index::LatLng& c, const v1::SearchFilter& filter,
                     std::vector<std::string>* got,
                     std::vector<std::string>* want) {
    // A random star-shaped polygon away from the antimeridian and poles.
    const index::LatLng pc{std::clamp(c.lat, -80.0, 80.0),
                           std::clamp(c.lon, -179.9, 179.9)};
    std::vector<double> angles;
    for (int i = 0; i < 3 + static_cast<int>(rng_() % 8); ++i) {
      angles.push_back(U(0, 2 * M_PI));
    }
    std::sort(angles.begin(), angles.end());
    v1::SearchPolygonRequest req;
    req.set_collection("fleet");
    std::vector<index::LatLng> vs;
    for (double a : angles) {
      const double r = U(0.002, 0.03);
      vs.push_back({pc.lat + r * std::sin(a),
                    std::clamp(pc.lon + r * std::cos(a), -180.0, 180.0)});
      auto* v = req.add_vertices();
      v->set_latitude(vs.back().lat);
      v->set_longitude(vs.back().lon);
    }
    auto polygon = index::PolygonRegion::Create(vs);
    if (!polygon.ok()) return false;  // a rare degenerate draw
    *req.mutable_filter() = filter;
    for (const auto& hit :
         AllPages(req, [&](auto*ctx, const auto&r, auto*resp) {
           return server_.stub().SearchPolygon(ctx, r, resp);
         })) {
      got->push_back(hit.point().entity_id());
    }
    *want = Expected(*polygon, filter, nullptr);
    return true;
  }

  static constexpr int kEntities = 4000;
  testing::TestServer server_;
  std::map<std::string, Latest> latest_;
  std::mt19937_64 rng_{2026};
};

TEST_F(SearchDifferentialTest, SearchesMatchBruteForce) {
  AddRandomFleet();
  int nonempty = 0;
  for (int q = 0; q < 240; ++q) {
    const index::LatLng& h = kHubs[q % std::size(kHubs)];
    const index::LatLng c{std::clamp(h.lat + U(-0.02, 0.02),
                                     model::kMinLatitude, model::kMaxLatitude),
                          Wrap(h.lon + U(-0.02, 0.02))};
    const v1::SearchFilter filter = RandomFilter();
    std::vector<std::string> got, want;
    if (q % 3 == 0) {
      RadiusSearch(c, filter, &got, &want);
    } else if (q % 3 == 1) {
      BoundsSearch(c, filter, &got, &want);
    } else if (!PolygonSearch(c, filter, &got, &want)) {
      continue;
    }
    EXPECT_EQ(got, want) << "query " << q;
    nonempty += !want.empty();
  }
  EXPECT_GT(nonempty, 100);
}

}  // namespace
}  // namespace trackdb::service
