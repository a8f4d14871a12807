// The history chunk codec (storage/format/chunk_codec.h) both ways.
//
// First byte even: the rest is a stored value, decoded as a chunk. Checked:
// nothing crashes; a refused value says why; an accepted one has the fixes
// its header says, from its first time to its last, and decodes the same
// into reused columns.
// First byte odd: the rest describes fixes (increasing times, positions
// with few decimals or any bits, optional fields, attributes), which are
// encoded, cut into chunks (ForEachChunk) and decoded back. Checked: every
// field comes back bit for bit, and the cut covers the fixes in order in
// runs of at most the limit, even to one.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_input.h"
#include "model/track_point.h"
#include "storage/format/chunk_codec.h"

namespace trackdb::fuzz {
namespace {

using model::TrackPoint;

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool SameBits(const std::optional<double>& a, const std::optional<double>& b) {
  return a.has_value() == b.has_value() && (!a || SameBits(*a, *b));
}

bool SameFix(const TrackPoint& a, const TrackPoint& b) {
  return a.loc_time_ms == b.loc_time_ms && SameBits(a.lat, b.lat) &&
         SameBits(a.lon, b.lon) && SameBits(a.speed_kmh, b.speed_kmh) &&
         SameBits(a.direction_deg, b.direction_deg) &&
         SameBits(a.height_m, b.height_m) &&
         SameBits(a.accuracy_m, b.accuracy_m) && a.attributes == b.attributes;
}

void DecodeStored(absl::string_view value) {
  std::vector<TrackPoint> fixes;
  const absl::Status s = storage::DecodeChunk(value, &fixes);
  storage::ChunkColumns columns;
  const absl::Status c = storage::DecodeChunkColumns(value, &columns);
  FUZZ_CHECK(s.ok() == c.ok());
  if (!s.ok()) {
    FUZZ_CHECK(!s.message().empty());
    return;
  }
  const std::optional<storage::ChunkSpan> span =
      storage::DecodeChunkSpan(value);
  FUZZ_CHECK(span.has_value());
  FUZZ_CHECK(span->count == fixes.size() && columns.size() == fixes.size());
  FUZZ_CHECK(fixes.front().loc_time_ms == span->first_ms);
  FUZZ_CHECK(fixes.back().loc_time_ms == span->last_ms);
  for (size_t i = 0; i < fixes.size(); ++i) {
    TrackPoint p;
    columns.Fill(i, &p);
    FUZZ_CHECK(SameFix(p, fixes[i])) << "fix " << i;
  }
}

std::optional<double> Optional(FuzzInput& in) {
  const uint8_t b = in.Byte();
  if (b % 3 == 0) return std::nullopt;
  return b % 3 == 1 ? in.DoubleIn(0, 400) : in.RawDouble();
}

std::vector<TrackPoint> Fixes(FuzzInput& in) {
  std::vector<TrackPoint> fixes;
  int64_t t = static_cast<int64_t>(in.U32()) << (in.Byte() % 32);
  for (size_t n = 1 + in.Byte() % 300; n > 0 && in.remaining() > 0; --n) {
    TrackPoint p;
    p.loc_time_ms = t;
    const uint8_t kind = in.Byte();
    p.lat = kind % 4 == 0 ? in.RawDouble()
                          : static_cast<int64_t>(in.U32() % 180000000) / 1e6 - 90;
    p.lon = kind % 4 == 1 ? in.RawDouble()
                          : static_cast<int64_t>(in.U32() % 360000000) / 1e6 - 180;
    if (kind & 0x10) p.speed_kmh = Optional(in);
    if (kind & 0x20) p.direction_deg = Optional(in);
    if (kind & 0x40) p.height_m = Optional(in);
    if (kind & 0x80) p.accuracy_m = Optional(in);
    if (kind % 8 == 3) p.attributes = {{in.String(8), in.String(8)}};
    if (kind % 8 == 4 && !fixes.empty()) p.attributes = fixes.back().attributes;
    fixes.push_back(std::move(p));
    const int64_t step = 1 + (in.Byte() % 4 == 0 ? in.U32() : in.Byte() % 3);
    if (t > INT64_MAX - step) break;
    t += step;
  }
  return fixes;
}

void RoundTrip(FuzzInput& in) {
  const std::vector<TrackPoint> fixes = Fixes(in);
  const size_t max = 1 + in.Byte() % 64;
  size_t next = 0;
  const absl::Status cut = storage::ForEachChunk(
      fixes, max, [&](absl::Span<const TrackPoint> run) {
        FUZZ_CHECK(!run.empty() && run.size() <= max);
        FUZZ_CHECK(&run.front() == &fixes[next]) << "runs out of order";
        next += run.size();
        std::vector<TrackPoint> back;
        const std::string value = storage::EncodeChunk(run);
        FUZZ_CHECK(storage::DecodeChunk(value, &back).ok());
        DecodeStored(value);
        FUZZ_CHECK(back.size() == run.size());
        for (size_t i = 0; i < run.size(); ++i) {
          FUZZ_CHECK(SameFix(back[i], run[i])) << "fix " << i;
        }
        return absl::OkStatus();
      });
  FUZZ_CHECK(cut.ok() && next == fixes.size());
}

}  // namespace
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trackdb::fuzz::FuzzInput in(data, size);
  if (in.Byte() % 2 == 0) {
    trackdb::fuzz::DecodeStored(in.Rest());
  } else {
    trackdb::fuzz::RoundTrip(in);
  }
  return 0;
}
