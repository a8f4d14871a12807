#include "tools/import/progress.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace trackdb::import {
namespace {

constexpr double kMiB = 1 << 20;
constexpr int kBarWidth = 20;

std::optional<double> Fraction(const ProgressSnapshot& s) {
  if (s.phase == "reading") {
    if (!s.total_bytes || *s.total_bytes == 0) return std::nullopt;
    return std::min(1.0, static_cast<double>(s.bytes) / *s.total_bytes);
  }
  if (s.total == 0) return std::nullopt;
  return std::min(1.0, static_cast<double>(s.done) / s.total);
}

std::optional<double> EtaSeconds(const ProgressSnapshot& s) {
  const std::optional<double> f = Fraction(s);
  if (!f || *f <= 0 || s.seconds < 1) return std::nullopt;
  return s.seconds * (1 - *f) / *f;
}

}  // namespace

std::string HumanCount(double n) {
  if (n >= 1e9) return absl::StrFormat("%.2fG", n / 1e9);
  if (n >= 1e6) return absl::StrFormat("%.2fM", n / 1e6);
  if (n >= 1e4) return absl::StrFormat("%.0fk", n / 1e3);
  if (n >= 1e3) return absl::StrFormat("%.1fk", n / 1e3);
  return absl::StrFormat("%.0f", n);
}

std::string HumanDuration(double seconds) {
  const int64_t s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  if (s >= 3600) return absl::StrFormat("%dh%02dm", s / 3600, s / 60 % 60);
  if (s >= 60) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  return absl::StrFormat("%ds", s);
}

std::string FormatTerminalLine(const ProgressSnapshot& s) {
  std::string line;
  const std::optional<double> f = Fraction(s);
  if (f) {
    const int filled = static_cast<int>(*f * kBarWidth);
    absl::StrAppend(&line, "[", std::string(filled, '#'),
                    std::string(kBarWidth - filled, '.'), "] ",
                    absl::StrFormat("%3.0f%%  ", *f * 100));
  }
  if (s.phase == "reading") {
    const double rate = s.seconds > 0 ? s.points / s.seconds : 0;
    absl::StrAppend(&line, HumanCount(s.points), " points  ", HumanCount(rate),
                    " points/s  ");
    if (s.total_bytes) {
      absl::StrAppend(&line, absl::StrFormat("%.1f/%.0f MiB", s.bytes / kMiB,
                                             *s.total_bytes / kMiB));
    } else {
      absl::StrAppend(&line, absl::StrFormat("%.1f MiB", s.bytes / kMiB));
    }
    if (s.bad_rows > 0) absl::StrAppend(&line, "  ", s.bad_rows, " bad rows");
  } else {
    absl::StrAppend(&line, s.phase);
    if (s.total > 0 || s.done > 0) {
      absl::StrAppend(&line, "  ", HumanCount(s.done));
      if (s.total > 0) absl::StrAppend(&line, "/", HumanCount(s.total));
    }
  }
  if (auto eta = EtaSeconds(s)) {
    absl::StrAppend(&line, "  ETA ", HumanDuration(*eta));
  }
  return line;
}

std::string FormatPlainLine(const ProgressSnapshot& s) {
  std::string line = absl::StrCat(s.program, ": ", s.phase, ": ");
  const std::optional<double> f = Fraction(s);
  if (s.phase == "reading") {
    const double rate = s.seconds > 0 ? s.points / s.seconds : 0;
    absl::StrAppend(&line, s.points, " points, ", static_cast<int64_t>(rate),
                    " points/s, ", absl::StrFormat("%.1f", s.bytes / kMiB));
    if (s.total_bytes) {
      absl::StrAppend(&line,
                      absl::StrFormat(" of %.1f MiB", *s.total_bytes / kMiB));
    } else {
      absl::StrAppend(&line, " MiB");
    }
    if (f) absl::StrAppend(&line, absl::StrFormat(" (%.0f%%)", *f * 100));
    if (s.bad_rows > 0) absl::StrAppend(&line, ", ", s.bad_rows, " bad rows");
  } else if (s.done > 0 || s.total > 0) {
    absl::StrAppend(&line, s.done);
    if (s.total > 0) absl::StrAppend(&line, " of ", s.total);
    if (f) absl::StrAppend(&line, absl::StrFormat(" (%.0f%%)", *f * 100));
  } else {
    line.resize(line.size() - 2);  // just the phase
  }
  if (auto eta = EtaSeconds(s)) {
    absl::StrAppend(&line, ", ETA ", HumanDuration(*eta));
  }
  return line;
}

Progress::Progress(Style style, std::FILE* out, absl::Duration interval,
                   absl::string_view program)
    : style_(style),
      out_(out),
      interval_(interval),
      phase_start_(absl::Now()),
      last_draw_(absl::Now()) {
  snapshot_.program = std::string(program);
}

Progress::~Progress() { Finish(); }

void Progress::Reading(uint64_t points, uint64_t bad_rows, uint64_t bytes,
                       std::optional<uint64_t> total_bytes) {
  snapshot_.points = points;
  snapshot_.bad_rows = bad_rows;
  snapshot_.bytes = bytes;
  snapshot_.total_bytes = total_bytes;
  Draw(false);
}

void Progress::Phase(absl::string_view phase, uint64_t done, uint64_t total) {
  const bool changed = snapshot_.phase != phase;
  if (changed) {
    snapshot_.phase = std::string(phase);
    phase_start_ = absl::Now();
  }
  snapshot_.done = done;
  snapshot_.total = total;
  Draw(changed);
}

void Progress::Draw(bool force) {
  if (style_ == Style::kNone) return;
  const absl::Time now = absl::Now();
  const absl::Duration every =
      style_ == Style::kTerminal ? absl::Milliseconds(200) : interval_;
  if (!force && now - last_draw_ < every) return;
  last_draw_ = now;
  snapshot_.seconds = absl::ToDoubleSeconds(now - phase_start_);
  if (style_ == Style::kTerminal) {
    std::string line = FormatTerminalLine(snapshot_);
    const size_t width = line.size();
    // Blank what a longer previous line left behind.
    if (width < last_width_) line.append(last_width_ - width, ' ');
    last_width_ = width;
    std::fprintf(out_, "\r%s", line.c_str());
  } else {
    std::fprintf(out_, "%s\n", FormatPlainLine(snapshot_).c_str());
  }
  std::fflush(out_);
  drawn_ = true;
}

void Progress::Finish() {
  if (style_ == Style::kTerminal && drawn_) {
    Draw(true);
    std::fprintf(out_, "\n");
    std::fflush(out_);
    drawn_ = false;
  }
}

}  // namespace trackdb::import
