#include "storage/points/latest_index.h"

#include <map>
#include <random>
#include <tuple>

#include "gtest/gtest.h"
#include "index/covering.h"

namespace trackdb::storage {
namespace {

using Kind = LatestIndex::Change::Kind;

PointPosition At(double lat, double lon, int64_t t = 1) {
  return {t, lat, lon};
}

// Every (collection, entity) -> (lat, lon) the index holds.
std::map<std::pair<std::string, std::string>, std::pair<double, double>>
Contents(const LatestIndex& index) {
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> out;
  index.ForEach(
      [&](absl::string_view c, absl::string_view e, const PointPosition& p) {
        out[{std::string(c), std::string(e)}] = {p.lat, p.lon};
      });
  return out;
}

std::vector<std::string> ScanNames(const LatestIndex& index,
                                   absl::string_view collection,
                                   const index::CellRange& range) {
  std::vector<LatestIndex::Hit> hits;
  index.Scan(
      collection, {range}, [](const PointPosition&) { return true; }, &hits);
  std::vector<std::string> names;
  for (const auto& h : hits) names.push_back(h.entity);
  return names;
}

const index::CellRange kEverything{0, ~uint64_t{0} - 1};

TEST(LatestIndexTest, SetMovesAndEraseRemoves) {
  LatestIndex index;
  index.Set("fleet", "a", At(39.9, 116.4));
  index.Set("fleet", "b", At(10, 10));
  index.Set("fleet", "a", At(40.0, 116.5, 2));  // moves: one entry, new cell
  EXPECT_EQ(index.Size("fleet"), 2);
  auto found = index.Find("fleet", {"a", "b", "c"});
  ASSERT_TRUE(found[0]);
  EXPECT_EQ(found[0]->lat, 40.0);
  EXPECT_EQ(found[0]->loc_time_ms, 2);
  EXPECT_FALSE(found[2]);
  // The vacated cell holds nothing: only a's new cell finds it.
  const uint64_t old_cell = index::CellIdOf({39.9, 116.4});
  EXPECT_TRUE(ScanNames(index, "fleet", {old_cell, old_cell}).empty());
  const uint64_t new_cell = index::CellIdOf({40.0, 116.5});
  EXPECT_EQ(ScanNames(index, "fleet", {new_cell, new_cell}),
            std::vector<std::string>{"a"});
  index.Apply({{Kind::kErase, "fleet", "a"}});
  EXPECT_EQ(ScanNames(index, "fleet", kEverything),
            std::vector<std::string>{"b"});
  EXPECT_EQ(index.Size("other"), 0);
}

TEST(LatestIndexTest, SameCellEntitiesOrderByName) {
  LatestIndex index;
  for (const char* name : {"c", "a", "b"}) index.Set("k", name, At(1, 2));
  EXPECT_EQ(ScanNames(index, "k", kEverything),
            (std::vector<std::string>{"a", "b", "c"}));
}

TEST(LatestIndexTest, DropAndCopyCollections) {
  LatestIndex index;
  index.Set("src", "a", At(1, 1));
  index.Set("src", "b", At(2, 2));
  index.Set("dst", "old", At(3, 3));
  // A rename as the funnel records it: the destination is replaced by a
  // copy, then the source goes.
  LatestIndex::Change copy{Kind::kCopyCollection, "dst"};
  copy.source = "src";
  index.Apply({copy, {Kind::kDropCollection, "src"}});
  EXPECT_EQ(
      Contents(index),
      (std::map<std::pair<std::string, std::string>, std::pair<double, double>>{
          {{"dst", "a"}, {1, 1}}, {{"dst", "b"}, {2, 2}}}));
  const int64_t two = index.ApproximateBytes();
  EXPECT_GT(two, 0);
  index.Apply({{Kind::kDropCollection, "dst"}});
  EXPECT_TRUE(Contents(index).empty());
  EXPECT_EQ(index.ApproximateBytes(), 0);
}

// Scans of random ranges equal a brute-force filter of every entry, in
// (cell, name) order, after random sets, moves and erases.
TEST(LatestIndexTest, ScanEqualsBruteForce) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> lat(39.6, 40.2), lon(116.0, 116.8);
  LatestIndex index;
  std::map<std::string, PointPosition> truth;
  for (int i = 0; i < 20000; ++i) {
    const std::string name = "e" + std::to_string(rng() % 5000);
    if (rng() % 10 == 0) {
      index.Apply({{Kind::kErase, "k", name}});
      truth.erase(name);
    } else {
      const PointPosition p = At(lat(rng), lon(rng), i);
      index.Set("k", name, p);
      truth[name] = p;
    }
  }
  EXPECT_EQ(index.Size("k"), static_cast<int64_t>(truth.size()));
  for (int q = 0; q < 50; ++q) {
    uint64_t a = index::CellIdOf({lat(rng), lon(rng)});
    uint64_t b = index::CellIdOf({lat(rng), lon(rng)});
    if (a > b) std::swap(a, b);
    std::vector<std::tuple<uint64_t, std::string>> expected;
    for (const auto& [name, p] : truth) {
      const uint64_t cell = index::CellIdOf({p.lat, p.lon});
      if (cell >= a && cell <= b && p.lat > 39.9)
        expected.emplace_back(cell, name);
    }
    std::sort(expected.begin(), expected.end());
    std::vector<LatestIndex::Hit> hits;
    const uint64_t examined = index.Scan(
        "k", {{a, b}}, [](const PointPosition& p) { return p.lat > 39.9; },
        &hits);
    ASSERT_EQ(hits.size(), expected.size());
    EXPECT_GE(examined, hits.size());
    for (size_t i = 0; i < hits.size(); ++i) {
      EXPECT_EQ(hits[i].entity, std::get<1>(expected[i]));
      EXPECT_EQ(hits[i].position.loc_time_ms,
                truth[hits[i].entity].loc_time_ms);
    }
  }
}

}  // namespace
}  // namespace trackdb::storage
