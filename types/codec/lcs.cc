#include "types/codec/lcs.h"

#include <algorithm>

namespace trackdb::types {
namespace {

// Table of LCS lengths: cell (i, j) is the LCS length of a[0, i), b[0, j).
class LcsTable {
 public:
  LcsTable(absl::string_view a, absl::string_view b)
      : width_(b.size() + 1), cells_((a.size() + 1) * width_, 0) {
    for (size_t i = 1; i <= a.size(); ++i) {
      for (size_t j = 1; j <= b.size(); ++j) {
        at(i, j) = a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1
                                        : std::max(at(i - 1, j), at(i, j - 1));
      }
    }
  }
  uint32_t at(size_t i, size_t j) const { return cells_[j + i * width_]; }

 private:
  uint32_t& at(size_t i, size_t j) { return cells_[j + i * width_]; }
  const size_t width_;
  std::vector<uint32_t> cells_;
};

}  // namespace

uint64_t LcsTableBytes(uint64_t a_len, uint64_t b_len) {
  return (a_len + 1) * (b_len + 1) * sizeof(uint32_t);
}

LcsResult LongestCommonSubsequence(absl::string_view a, absl::string_view b,
                                   bool walk, int64_t min_match_len) {
  const LcsTable table(a, b);
  LcsResult out;
  out.length = table.at(a.size(), b.size());
  if (!walk) return out;
  out.subsequence.resize(out.length);
  size_t idx = out.length;
  size_t i = a.size(), j = b.size();
  // The range being grown backwards; `open` false: none yet.
  bool open = false;
  LcsRange range;
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      out.subsequence[--idx] = a[i - 1];
      if (!open) {
        open = true;
        range = {static_cast<int64_t>(i - 1), static_cast<int64_t>(i - 1),
                 static_cast<int64_t>(j - 1), static_cast<int64_t>(j - 1)};
      } else if (range.a_start == static_cast<int64_t>(i) &&
                 range.b_start == static_cast<int64_t>(j)) {
        --range.a_start;
        --range.b_start;
      } else {
        emit = true;
      }
      // A match at the first byte of either string ends the walk.
      if (range.a_start == 0 || range.b_start == 0) emit = true;
      --i;
      --j;
    } else {
      table.at(i - 1, j) > table.at(i, j - 1) ? --i : --j;
      emit = open;
    }
    if (emit) {
      if (min_match_len == 0 || range.length() >= min_match_len) {
        out.ranges.push_back(range);
      }
      open = false;
    }
  }
  return out;
}

}  // namespace trackdb::types
