#ifndef TRACKDB_TOOLS_IMPORT_PROGRESS_H_
#define TRACKDB_TOOLS_IMPORT_PROGRESS_H_

// trackdb_import's (and trackdb_export's) progress on stderr. On a terminal:
// one line redrawn in place, with a bar and an ETA when the input's size is
// known
//
//   [########............]  41%  1.23M points  612k points/s  45.1/110 MiB  ETA
//   1m32s
//
// Otherwise (a log file, CI): a plain line every `interval`
//
//   trackdb_import: reading: 1234567 points, 612345 points/s, 45.1 of 110.0 MiB
//   (41%), ETA 1m32s
//
// Later phases (an offline import's sorting, ingestion and compaction) are
// shown the same way with their own counts.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace trackdb::import {

struct ProgressSnapshot {
  std::string program = "trackdb_import";  // what plain lines start with
  std::string phase = "reading";
  uint64_t points = 0;
  uint64_t bad_rows = 0;
  uint64_t bytes = 0;
  std::optional<uint64_t> total_bytes;  // when every input's size is known
  double seconds = 0;                   // since the phase started
  // A phase counting something other than points: done of total (0:
  // unknown).
  uint64_t done = 0;
  uint64_t total = 0;
};

// One line, without a newline.
std::string FormatTerminalLine(const ProgressSnapshot& s);
std::string FormatPlainLine(const ProgressSnapshot& s);
// "1.23M", "612k", "950".
std::string HumanCount(double n);
// "1m32s", "2h05m", "12s".
std::string HumanDuration(double seconds);

class Progress {
 public:
  enum class Style { kNone, kTerminal, kPlain };

  // kTerminal redraws at most every 0.2 s; kPlain prints every `interval`,
  // each line starting with `program`.
  Progress(Style style, std::FILE* out, absl::Duration interval,
           absl::string_view program = "trackdb_import");
  ~Progress();

  // Cheap unless it is time to draw; call often.
  void Reading(uint64_t points, uint64_t bad_rows, uint64_t bytes,
               std::optional<uint64_t> total_bytes);
  // Enters or updates a later phase.
  void Phase(absl::string_view phase, uint64_t done, uint64_t total);
  // Ends the redrawn line (so a summary starts on its own line).
  void Finish();

 private:
  void Draw(bool force);

  Style style_;
  std::FILE* out_;
  absl::Duration interval_;
  absl::Time phase_start_;
  absl::Time last_draw_;
  ProgressSnapshot snapshot_;
  size_t last_width_ = 0;
  bool drawn_ = false;
};

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_PROGRESS_H_
