#ifndef TRACKDB_STORAGE_FORMAT_CHUNK_CODEC_H_
#define TRACKDB_STORAGE_FORMAT_CHUNK_CODEC_H_

// A chunk: a run of one entity's fixes, oldest first, distinct times,
// stored as one value column by column, so that a fix costs a few bytes
// where a point value costs 40 and a key of its own.
//
//   byte     format version (1)
//   varint   count (at least 1)
//   zigzag   first loc_time_ms, then last - first (so a reader learns the
//            chunk's span without decoding the rest)
//   times    the second time's delta, then each next delta's change
//            (a tracker reporting at a steady rate costs a byte a fix)
//   doubles  latitudes, then longitudes (a double column, below)
//   4 x      speed, direction, height, accuracy: a presence byte (0 none,
//            1 all, 2 a bitmap of count bits follows), then the present
//            values as a double column
//   attrs    per fix: varint 0 when its attributes are the previous fix's
//            (the first fix's "previous" is none), else 1 + count, then
//            per attribute varint len, key, varint len, value
//
// A double column is a mode byte, then its values: mode 0xff keeps each
// value's 8 bytes; otherwise the low nibble is a decimal scale s (0..9)
// such that every value v is exactly llround(v * 10^s) / 10^s, bit for
// bit, and the high nibble the order (1: deltas of those integers, 2:
// changes of the deltas, as zigzag varints), whichever is shorter. So
// every value is kept exactly; values of at most s decimals cost their
// deltas.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "model/track_point.h"

namespace trackdb::storage {

// `fixes` must be non-empty and strictly increasing in loc_time_ms; their
// entities are not stored.
std::string EncodeChunk(absl::Span<const model::TrackPoint> fixes);

// A chunk decoded column by column: what a reader seeks and steps through
// without building a TrackPoint a fix (one is built when it is read).
// Decoding into the same object again reuses its memory.
class ChunkColumns {
 public:
  size_t size() const { return times_.size(); }
  const std::vector<int64_t>& times() const { return times_; }
  double lat(size_t i) const { return lat_.at(i); }
  double lon(size_t i) const { return lon_.at(i); }
  // Fix i into *p, its entity untouched.
  void Fill(size_t i, model::TrackPoint* p) const;

  // A double column as it is stored: integers and their decimal scale,
  // divided only for the values read (a reader at one fix of a chunk pays
  // for one), or each value's bits.
  struct Doubles {
    std::vector<int64_t> ints;  // scaled integers, or raw bits
    int scale = -1;             // -1: ints holds each double's bits
    bool empty() const { return ints.empty(); }
    double at(size_t i) const;
  };

 private:
  friend absl::Status DecodeChunkColumns(absl::string_view, ChunkColumns*);
  static constexpr int kOptionalFields = 4;  // speed, direction, height, acc.
  std::vector<int64_t> times_;
  Doubles lat_, lon_;
  // Per optional field: each fix's value, meaningful only where has_ says.
  Doubles optional_[kOptionalFields];
  std::vector<uint8_t> has_[kOptionalFields];  // empty: none has it
  // Each fix's attributes: an index into attribute_sets_ (0: none).
  std::vector<uint32_t> attribute_of_;
  std::vector<std::vector<std::pair<std::string, std::string>>> attribute_sets_;
};

// DATA_LOSS on a value that is not a chunk (*out then unspecified).
absl::Status DecodeChunkColumns(absl::string_view value, ChunkColumns* out);

// Appends the chunk's fixes to `fixes`, entities left empty. DATA_LOSS on
// a value that is not a chunk.
absl::Status DecodeChunk(absl::string_view value,
                         std::vector<model::TrackPoint>* fixes);

// Calls `put` with runs of `fixes` that make the fewest chunks of at most
// `max` fixes each, in order, their sizes differing by one at most (so a
// run of 300 at 256 is two of 150, not 256 and 44); stops at an error.
absl::Status ForEachChunk(
    absl::Span<const model::TrackPoint> fixes, size_t max,
    const std::function<absl::Status(absl::Span<const model::TrackPoint>)>&
        put);

struct ChunkSpan {
  int64_t first_ms;
  int64_t last_ms;
  uint32_t count;
};
// The header alone; nullopt on a value that is not a chunk.
std::optional<ChunkSpan> DecodeChunkSpan(absl::string_view value);

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_CHUNK_CODEC_H_
