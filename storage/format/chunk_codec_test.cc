#include "storage/format/chunk_codec.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

using model::TrackPoint;

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool SameBits(const std::optional<double>& a, const std::optional<double>& b) {
  return a.has_value() == b.has_value() && (!a || SameBits(*a, *b));
}

// Exact equality, bit for bit in the doubles (so -0.0 and NaN count).
void ExpectSame(const std::vector<TrackPoint>& want,
                const std::vector<TrackPoint>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(want[i].loc_time_ms, got[i].loc_time_ms);
    EXPECT_TRUE(SameBits(want[i].lat, got[i].lat)) << got[i].lat;
    EXPECT_TRUE(SameBits(want[i].lon, got[i].lon)) << got[i].lon;
    EXPECT_TRUE(SameBits(want[i].speed_kmh, got[i].speed_kmh));
    EXPECT_TRUE(SameBits(want[i].direction_deg, got[i].direction_deg));
    EXPECT_TRUE(SameBits(want[i].height_m, got[i].height_m));
    EXPECT_TRUE(SameBits(want[i].accuracy_m, got[i].accuracy_m));
    EXPECT_EQ(want[i].attributes, got[i].attributes);
    EXPECT_TRUE(got[i].entity.empty());
  }
}

std::vector<TrackPoint> RoundTrip(const std::vector<TrackPoint>& fixes) {
  const std::string value = EncodeChunk(fixes);
  std::vector<TrackPoint> got;
  EXPECT_TRUE(DecodeChunk(value, &got).ok());
  const std::optional<ChunkSpan> span = DecodeChunkSpan(value);
  EXPECT_TRUE(span.has_value());
  if (span) {
    EXPECT_EQ(span->first_ms, fixes.front().loc_time_ms);
    EXPECT_EQ(span->last_ms, fixes.back().loc_time_ms);
    EXPECT_EQ(span->count, fixes.size());
  }
  return got;
}

// A vehicle every 5 s, ~14 m on each time, 6 decimals, speed to 0.1.
std::vector<TrackPoint> Drive(int n) {
  std::vector<TrackPoint> fixes(n);
  for (int i = 0; i < n; ++i) {
    fixes[i].loc_time_ms = 1'700'000'000'000 + 5'000 * i;
    fixes[i].lat = std::round((40.700000 + 0.000090 * i) * 1e6) / 1e6;
    fixes[i].lon = std::round((-74.010000 + 0.000110 * i) * 1e6) / 1e6;
    fixes[i].speed_kmh = std::round((36 + (i % 7) * 0.1) * 10) / 10;
    fixes[i].direction_deg = 45;
  }
  return fixes;
}

TEST(ChunkCodecTest, ASteadyTrackCostsAFewBytesAFix) {
  const std::vector<TrackPoint> fixes = Drive(1000);
  ExpectSame(fixes, RoundTrip(fixes));
  // times 1 byte, lat and lon 1 each (steady: changes of deltas are 0),
  // speed 1, direction 1, attributes 1.
  EXPECT_LE(EncodeChunk(fixes).size(), 6.5 * fixes.size());
}

TEST(ChunkCodecTest, AnyDoubleIsKeptBitForBit) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> lat(-90, 90), lon(-180, 180);
  std::vector<TrackPoint> fixes(300);
  int64_t t = -5'000;  // times before 1970 too
  for (TrackPoint& p : fixes) {
    t += 1 + static_cast<int64_t>(rng() % 100'000);
    p.loc_time_ms = t;
    p.lat = lat(rng);
    p.lon = lon(rng);
    if (rng() % 2) p.height_m = lat(rng) * 1e-300;  // denormals
    if (rng() % 3 == 0) p.accuracy_m = static_cast<double>(rng() % 50);
  }
  fixes[3].lat = -0.0;
  fixes[4].height_m = std::numeric_limits<double>::quiet_NaN();
  fixes[5].speed_kmh = std::numeric_limits<double>::infinity();
  ExpectSame(fixes, RoundTrip(fixes));
}

TEST(ChunkCodecTest, ScalesAreFoundPerColumn) {
  std::vector<TrackPoint> fixes = Drive(100);
  // Whole degrees, 9 decimals and one value past any scale, in three
  // columns of one chunk.
  for (size_t i = 0; i < fixes.size(); ++i) {
    fixes[i].lat = static_cast<double>(i % 90);
    fixes[i].lon = 12.123456789 + i * 1e-9;
    fixes[i].height_m = i == 50 ? 0.1 + 0.2 : 100.0;
  }
  ExpectSame(fixes, RoundTrip(fixes));
}

TEST(ChunkCodecTest, OptionalsAndAttributesKeepTheirFixes) {
  std::vector<TrackPoint> fixes = Drive(20);
  for (size_t i = 0; i < fixes.size(); ++i) {
    if (i % 3 == 0) fixes[i].speed_kmh.reset();
    fixes[i].direction_deg.reset();
    if (i % 5 == 1) fixes[i].accuracy_m = 3.5;
    if (i >= 4 && i < 9) fixes[i].attributes = {{"status", "moored"}};
    if (i == 9) fixes[i].attributes = {{"a", ""}, {"", "b"}};
    if (i == 10) fixes[i].attributes = {{"a", ""}, {"", "b"}};
  }
  ExpectSame(fixes, RoundTrip(fixes));
  ExpectSame({fixes[0]}, RoundTrip({fixes[0]}));
}

TEST(ChunkCodecTest, ExtremeTimesRoundTrip) {
  std::vector<TrackPoint> fixes(3);
  fixes[0].loc_time_ms = -4'000'000'000'000'000;
  fixes[1].loc_time_ms = 0;
  fixes[2].loc_time_ms = 4'000'000'000'000'000;
  ExpectSame(fixes, RoundTrip(fixes));
}

TEST(ChunkCodecTest, DecodeAppends) {
  const std::vector<TrackPoint> a = Drive(3);
  std::vector<TrackPoint> b = Drive(6);
  b.erase(b.begin(), b.begin() + 3);
  std::vector<TrackPoint> got;
  ASSERT_TRUE(DecodeChunk(EncodeChunk(a), &got).ok());
  ASSERT_TRUE(DecodeChunk(EncodeChunk(b), &got).ok());
  ExpectSame(Drive(6), got);
}

// One ChunkColumns decodes chunk after chunk: what a chunk does not have
// (attributes, an optional field, some fixes' values) is never left over
// from the one before.
TEST(ChunkCodecTest, ColumnsReusedForAnotherChunkHoldOnlyIt) {
  std::vector<TrackPoint> rich = Drive(40);
  for (size_t i = 0; i < rich.size(); ++i) {
    rich[i].attributes = {{"k", std::to_string(i % 3)}};
    if (i % 2) rich[i].height_m = 10.0 + i;
    rich[i].accuracy_m = 5;
  }
  std::vector<TrackPoint> bare = Drive(7);
  for (TrackPoint& p : bare) p.speed_kmh.reset();
  bare[2].height_m = 1;
  ChunkColumns columns;
  for (const std::vector<TrackPoint>* want : {&rich, &bare, &rich, &bare}) {
    ASSERT_TRUE(DecodeChunkColumns(EncodeChunk(*want), &columns).ok());
    ASSERT_EQ(columns.size(), want->size());
    std::vector<TrackPoint> got(want->size());
    for (size_t i = 0; i < got.size(); ++i) {
      got[i].attributes = {{"stale", "x"}};  // Fill replaces all of it
      got[i].direction_deg = 1;
      columns.Fill(i, &got[i]);
      EXPECT_EQ(columns.times()[i], (*want)[i].loc_time_ms);
      EXPECT_EQ(columns.lat(i), (*want)[i].lat);
      EXPECT_EQ(columns.lon(i), (*want)[i].lon);
    }
    ExpectSame(*want, got);
  }
}

TEST(ChunkCodecTest, ForEachChunkCutsTheFewestEvenRuns) {
  const std::vector<TrackPoint> fixes = Drive(300);
  for (const auto& [max, want] :
       std::vector<std::pair<size_t, std::vector<size_t>>>{
           {256, {150, 150}}, {300, {300}}, {100, {100, 100, 100}},
           {7, std::vector<size_t>(43, 0)}}) {
    std::vector<size_t> sizes;
    int64_t next_time = fixes.front().loc_time_ms;
    ASSERT_TRUE(ForEachChunk(fixes, max, [&](absl::Span<const TrackPoint> run) {
                  EXPECT_EQ(run.front().loc_time_ms, next_time);  // in order
                  next_time = run.back().loc_time_ms + 5000;
                  sizes.push_back(run.size());
                  return absl::OkStatus();
                }).ok());
    if (want.front() != 0) {
      EXPECT_EQ(sizes, want) << max;
    } else {  // 300 in 43 runs of 6 or 7
      EXPECT_EQ(sizes.size(), 43u);
      for (size_t n : sizes) EXPECT_TRUE(n == 6 || n == 7) << n;
    }
  }
  int calls = 0;
  const absl::Status stop = ForEachChunk(fixes, 10, [&](auto) {
    ++calls;
    return absl::InternalError("stop");
  });
  EXPECT_EQ(stop.message(), "stop");
  EXPECT_EQ(calls, 1);
}

TEST(ChunkCodecTest, EveryTruncationAndAFlippedVersionAreDataLoss) {
  std::vector<TrackPoint> fixes = Drive(50);
  fixes[7].attributes = {{"k", "v"}};
  fixes[9].accuracy_m = 2;
  const std::string value = EncodeChunk(fixes);
  for (size_t len = 0; len < value.size(); ++len) {
    std::vector<TrackPoint> got;
    const absl::Status s = DecodeChunk(value.substr(0, len), &got);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << len;
  }
  std::string other = value;
  other[0] = 2;
  std::vector<TrackPoint> got;
  EXPECT_EQ(DecodeChunk(other, &got).code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(DecodeChunkSpan(other).has_value());
  EXPECT_EQ(DecodeChunk(value + "x", &got).code(), absl::StatusCode::kDataLoss);
}

TEST(ChunkCodecTest, RandomBytesNeverCrash) {
  std::mt19937 rng(11);
  const std::string value = EncodeChunk(Drive(40));
  for (int round = 0; round < 2000; ++round) {
    std::string bytes = value;
    for (int i = 0; i < 3; ++i) {
      bytes[1 + rng() % (bytes.size() - 1)] = static_cast<char>(rng());
    }
    std::vector<TrackPoint> got;
    const absl::Status s = DecodeChunk(bytes, &got);
    if (s.ok()) {
      EXPECT_EQ(got.size(), DecodeChunkSpan(bytes)->count);
    } else {
      EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
    }
  }
}

}  // namespace
}  // namespace trackdb::storage
