#include "storage/memory/read_front.h"

#include <optional>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::storage {
namespace {

using ::testing::Eq;
using ::testing::Optional;

TEST(ReadFrontTest, KeepsWhatItAdmitsUntilTheKeyChanges) {
  ReadFront front;
  std::optional<std::string> value;
  EXPECT_FALSE(front.Lookup("k", &value));
  front.Admit("k", std::string("v1"), front.Seen("k"));
  ASSERT_TRUE(front.Lookup("k", &value));
  EXPECT_THAT(value, Optional(Eq("v1")));
  front.Admit("absent", std::nullopt, front.Seen("absent"));
  ASSERT_TRUE(front.Lookup("absent", &value));
  EXPECT_EQ(value, std::nullopt);
  front.Changed("k");
  EXPECT_FALSE(front.Lookup("k", &value));
  EXPECT_EQ(front.EntriesOnThisThread(), 1u);  // the outdated one went
}

TEST(ReadFrontTest, AnEntryCopiedAcrossAChangeIsNeverReturned) {
  ReadFront front;
  const uint64_t seen = front.Seen("k");
  // The shared lookup that started after `seen` found the old value; the
  // key changed before the copy was admitted.
  front.Changed("k");
  front.Admit("k", std::string("old"), seen);
  std::optional<std::string> value;
  EXPECT_FALSE(front.Lookup("k", &value));
}

TEST(ReadFrontTest, AChangeOnAnotherThreadOutdatesThisThreadsCopy) {
  ReadFront front;
  front.Admit("k", std::string("old"), front.Seen("k"));
  std::thread writer([&] { front.Changed("k"); });
  writer.join();
  std::optional<std::string> value;
  EXPECT_FALSE(front.Lookup("k", &value));
}

TEST(ReadFrontTest, EachThreadHasItsOwnCopies) {
  ReadFront front;
  front.Admit("k", std::string("here"), front.Seen("k"));
  bool found_there = true;
  std::thread other([&] {
    std::optional<std::string> value;
    found_there = front.Lookup("k", &value);
  });
  other.join();
  EXPECT_FALSE(found_there);
  std::optional<std::string> value;
  EXPECT_TRUE(front.Lookup("k", &value));
}

TEST(ReadFrontTest, InstancesDoNotShareEntries) {
  ReadFront a;
  a.Admit("k", std::string("from a"), a.Seen("k"));
  std::optional<std::string> value;
  {
    ReadFront b;
    EXPECT_FALSE(b.Lookup("k", &value));
    b.Admit("k", std::string("from b"), b.Seen("k"));  // the thread moves
  }
  EXPECT_FALSE(a.Lookup("k", &value));
  // A new instance, even at the address of one gone, starts empty.
  ReadFront c;
  EXPECT_FALSE(c.Lookup("k", &value));
}

TEST(ReadFrontTest, StaysWithinItsBounds) {
  ReadFront front;
  for (size_t i = 0; i < ReadFront::kMaxEntries + 10; ++i) {
    const std::string key = "k" + std::to_string(i);
    front.Admit(key, std::string("v"), front.Seen(key));
    EXPECT_LE(front.EntriesOnThisThread(), ReadFront::kMaxEntries);
  }
  EXPECT_GT(front.EntriesOnThisThread(), 0u);
  ReadFront by_bytes;
  const std::string big(ReadFront::kMaxBytes / 3, 'x');
  for (int i = 0; i < 4; ++i) {
    const std::string key = "big" + std::to_string(i);
    by_bytes.Admit(key, big, by_bytes.Seen(key));
    EXPECT_LE(by_bytes.EntriesOnThisThread(), 2u);
  }
  const size_t before = by_bytes.EntriesOnThisThread();
  by_bytes.Admit("huge", std::string(ReadFront::kMaxBytes, 'x'),
                 by_bytes.Seen("huge"));
  std::optional<std::string> value;
  EXPECT_FALSE(by_bytes.Lookup("huge", &value));
  EXPECT_EQ(by_bytes.EntriesOnThisThread(), before);  // kept what it had
}

TEST(ReadFrontTest, ReadmittingAKeyReplacesItsEntry) {
  ReadFront front;
  front.Admit("k", std::string("v1"), front.Seen("k"));
  front.Admit("k", std::string("v2"), front.Seen("k"));
  std::optional<std::string> value;
  ASSERT_TRUE(front.Lookup("k", &value));
  EXPECT_THAT(value, Optional(Eq("v2")));
  EXPECT_EQ(front.EntriesOnThisThread(), 1u);
}

}  // namespace
}  // namespace trackdb::storage
