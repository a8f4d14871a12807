#ifndef TRACKDB_TYPES_CODEC_LCS_H_
#define TRACKDB_TYPES_CODEC_LCS_H_

// The longest common subsequence of two strings as Redis 7.0's LCS
// command computes it: the dynamic-programming table of LCS lengths, then
// one walk back from the end that picks, at every mismatch, the longer of
// the two shorter problems (ties: the one that drops b's last byte). The
// walk decides which subsequence and which matched ranges are reported, so
// it is Redis's, step for step.
//
// The table holds (|a| + 1) x (|b| + 1) 32-bit cells: the caller bounds
// LcsTableBytes first (Redis refuses more than proto-max-bulk-len).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace trackdb::types {

// A run of consecutive matched bytes: a[a_start..a_end] ==
// b[b_start..b_end], both inclusive.
struct LcsRange {
  int64_t a_start = 0;
  int64_t a_end = 0;
  int64_t b_start = 0;
  int64_t b_end = 0;
  int64_t length() const { return a_end - a_start + 1; }
};

struct LcsResult {
  std::string subsequence;
  int64_t length = 0;
  // The walk's ranges, last bytes first, those shorter than the walk's
  // `min_match_len` left out.
  std::vector<LcsRange> ranges;
};

// Bytes of the table for strings of these lengths.
uint64_t LcsTableBytes(uint64_t a_len, uint64_t b_len);

// With `walk` false only `length` is set (Redis's LEN: no walk).
LcsResult LongestCommonSubsequence(absl::string_view a, absl::string_view b,
                                   bool walk, int64_t min_match_len);

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_CODEC_LCS_H_
