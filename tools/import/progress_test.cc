#include "tools/import/progress.h"

#include <cstdio>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::import {
namespace {

using ::testing::HasSubstr;

TEST(ProgressTest, HumanUnits) {
  EXPECT_EQ(HumanCount(950), "950");
  EXPECT_EQ(HumanCount(1500), "1.5k");
  EXPECT_EQ(HumanCount(612345), "612k");
  EXPECT_EQ(HumanCount(1234567), "1.23M");
  EXPECT_EQ(HumanDuration(12.4), "12s");
  EXPECT_EQ(HumanDuration(92), "1m32s");
  EXPECT_EQ(HumanDuration(7500), "2h05m");
}

ProgressSnapshot Reading(uint64_t bytes, std::optional<uint64_t> total) {
  ProgressSnapshot s;
  s.points = 1230000;
  s.bytes = bytes;
  s.total_bytes = total;
  s.seconds = 2;
  return s;
}

TEST(ProgressTest, TerminalLineWithKnownSize) {
  const std::string line = FormatTerminalLine(Reading(40 << 20, 100 << 20));
  EXPECT_EQ(line,
            "[########............]  40%  1.23M points  615k points/s  "
            "40.0/100 MiB  ETA 3s");
}

TEST(ProgressTest, UnknownSizeHasNoBarOrEta) {
  const std::string line = FormatTerminalLine(Reading(40 << 20, std::nullopt));
  EXPECT_EQ(line, "1.23M points  615k points/s  40.0 MiB");
  EXPECT_EQ(
      FormatPlainLine(Reading(40 << 20, std::nullopt)),
      "trackdb_import: reading: 1230000 points, 615000 points/s, 40.0 MiB");
}

TEST(ProgressTest, PlainLineAndLaterPhases) {
  ProgressSnapshot s = Reading(40 << 20, 100 << 20);
  s.bad_rows = 3;
  EXPECT_EQ(FormatPlainLine(s),
            "trackdb_import: reading: 1230000 points, 615000 points/s, 40.0 of "
            "100.0 MiB (40%), 3 bad rows, ETA 3s");
  ProgressSnapshot w;
  w.phase = "writing points";
  w.done = 500;
  w.total = 2000;
  w.seconds = 1;
  EXPECT_EQ(FormatPlainLine(w),
            "trackdb_import: writing points: 500 of 2000 (25%), ETA 3s");
  EXPECT_THAT(FormatTerminalLine(w), HasSubstr("writing points  500/2.0k"));
  ProgressSnapshot c;
  c.phase = "compacting";
  EXPECT_EQ(FormatPlainLine(c), "trackdb_import: compacting");
}

TEST(ProgressTest, PlainStyleWritesLinesTerminalStyleRedraws) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  {
    Progress plain(Progress::Style::kPlain, out, absl::ZeroDuration());
    plain.Reading(10, 0, 100, 1000);
    plain.Phase("ingesting", 0, 0);
    plain.Finish();
  }
  std::fflush(out);
  EXPECT_THAT(std::string(text, size), HasSubstr("reading: 10 points"));
  EXPECT_THAT(std::string(text, size),
              HasSubstr("\ntrackdb_import: ingesting\n"));
  std::fclose(out);
  free(text);

  out = open_memstream(&text, &size);
  {
    Progress bar(Progress::Style::kTerminal, out, absl::ZeroDuration());
    bar.Phase("compacting", 0, 0);  // drawn at once: a new phase
    bar.Finish();
  }
  std::fflush(out);
  EXPECT_EQ(std::string(text, size), "\rcompacting\rcompacting\n");
  std::fclose(out);
  free(text);

  out = open_memstream(&text, &size);
  {
    Progress named(Progress::Style::kPlain, out, absl::ZeroDuration(),
                   "trackdb_export");
    named.Phase("exporting entities", 1, 4);
  }
  std::fflush(out);
  EXPECT_THAT(std::string(text, size),
              HasSubstr("trackdb_export: exporting entities: 1 of 4 (25%)"));
  std::fclose(out);
  free(text);
}

}  // namespace
}  // namespace trackdb::import
