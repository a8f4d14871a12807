#include "tools/import/input_source.h"

#include <fcntl.h>
#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/import/test_files.h"

namespace trackdb::import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Lines(InputSource& in) {
  std::vector<std::string> lines;
  absl::string_view line;
  while (in.ReadLine(&line)) lines.emplace_back(line);
  EXPECT_TRUE(in.status().ok()) << in.status();
  return lines;
}

TEST(InputSourceTest, LinesWithCrLfAndNoFinalNewline) {
  auto in = InputSource::FromString("a,b\r\n\nc\nlast");
  EXPECT_THAT(Lines(*in), ElementsAre("a,b", "", "c", "last"));
  EXPECT_EQ(in->line_number(), 4);
  EXPECT_FALSE(in->compressed());
}

TEST(InputSourceTest, ByteOrderMarkIsDropped) {
  auto in = InputSource::FromString("\xef\xbb\xbfid,time\n1,2\n");
  EXPECT_THAT(Lines(*in), ElementsAre("id,time", "1,2"));
  auto gz = InputSource::FromString(testing::Gzip("\xef\xbb\xbf{}"));
  EXPECT_EQ(gz->Get(), '{');
  auto short_input = InputSource::FromString("\xef\xbb");
  EXPECT_THAT(Lines(*short_input), ElementsAre("\xef\xbb"));
}

TEST(InputSourceTest, EmptyInputHasNoLines) {
  auto in = InputSource::FromString("");
  EXPECT_TRUE(Lines(*in).empty());
}

TEST(InputSourceTest, GzipIsRecognisedByContentNotName) {
  const std::string dir = testing::NewTempDir();
  const std::string path =
      testing::WriteFile(dir + "/plain-name.csv", "x\ny\n", /*gzip=*/true);
  auto in = InputSource::Open(path);
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_THAT(Lines(**in), ElementsAre("x", "y"));
  EXPECT_TRUE((*in)->compressed());
  EXPECT_EQ((*in)->bytes_read(), *(*in)->size());  // compressed bytes
}

TEST(InputSourceTest, ConcatenatedGzipMembersAreOneStream) {
  auto in = InputSource::FromString(testing::Gzip("one\ntw") +
                                    testing::Gzip("o\nthree\n"));
  EXPECT_THAT(Lines(*in), ElementsAre("one", "two", "three"));
}

TEST(InputSourceTest, LargeGzipInputSpansManyBuffers) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += std::to_string(i) + "\n";
  auto in = InputSource::FromString(testing::Gzip(text));
  const std::vector<std::string> lines = Lines(*in);
  ASSERT_EQ(lines.size(), 200000u);
  EXPECT_EQ(lines[123456], "123456");
}

TEST(InputSourceTest, TruncatedAndCorruptGzipAreErrors) {
  const std::string gz = testing::Gzip(std::string(10000, 'a') + "\n");
  auto truncated = InputSource::FromString(gz.substr(0, gz.size() / 2));
  absl::string_view line;
  while (truncated->ReadLine(&line)) {
  }
  EXPECT_THAT(std::string(truncated->status().message()),
              HasSubstr("truncated gzip"));

  std::string corrupt = gz;
  corrupt[12] ^= 0x55;
  corrupt[13] ^= 0x55;
  auto bad = InputSource::FromString(corrupt, "bad.gz");
  while (bad->ReadLine(&line)) {
  }
  EXPECT_THAT(std::string(bad->status().message()), HasSubstr("bad.gz"));
  EXPECT_EQ(bad->status().code(), absl::StatusCode::kDataLoss);

  auto trailing = InputSource::FromString(gz + "junk");
  while (trailing->ReadLine(&line)) {
  }
  EXPECT_THAT(std::string(trailing->status().message()),
              HasSubstr("trailing bytes"));
}

TEST(InputSourceTest, ByteReadingCountsLines) {
  auto in = InputSource::FromString("ab\nc");
  EXPECT_EQ(in->Peek(), 'a');
  EXPECT_EQ(in->Get(), 'a');
  EXPECT_EQ(in->line_number(), 1);
  EXPECT_EQ(in->Get(), 'b');
  EXPECT_EQ(in->Get(), '\n');
  EXPECT_EQ(in->line_number(), 1);
  EXPECT_EQ(in->Get(), 'c');
  EXPECT_EQ(in->line_number(), 2);
  EXPECT_EQ(in->Get(), -1);
  EXPECT_EQ(in->Peek(), -1);
}

TEST(InputSourceTest, OpenErrors) {
  auto missing = InputSource::Open("/nonexistent/points.csv");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("/nonexistent/points.csv"));
  auto dir = InputSource::Open(testing::NewTempDir());
  EXPECT_THAT(std::string(dir.status().message()), HasSubstr("directory"));
}

TEST(InputSourceTest, ReadsAPipe) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string gz = testing::Gzip("p\nq\n");
  ASSERT_EQ(write(fds[1], gz.data(), gz.size()),
            static_cast<ssize_t>(gz.size()));
  close(fds[1]);
  // Open("-") reads fd 0: put the pipe there for the test.
  const int saved = dup(0);
  dup2(fds[0], 0);
  close(fds[0]);
  auto in = InputSource::Open("-");
  ASSERT_TRUE(in.ok());
  EXPECT_EQ((*in)->name(), "stdin");
  EXPECT_FALSE((*in)->size().has_value());
  EXPECT_THAT(Lines(**in), ElementsAre("p", "q"));
  EXPECT_EQ((*in)->bytes_read(), gz.size());
  dup2(saved, 0);
  close(saved);
}

}  // namespace
}  // namespace trackdb::import
