#include "service/jobs/memory_return.h"

#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace trackdb::service {
namespace {

// What a burst of a client leaves: many small blocks, written and freed on a
// thread of its own (an arena of its own, as gRPC's threads have), but for
// the last one, which the caller keeps: the arena cannot simply shrink from
// its top.
std::unique_ptr<char[]> AllocateAndFreeOnAThread(size_t blocks,
                                                 size_t block_bytes) {
  std::unique_ptr<char[]> last;
  std::thread([&] {
    std::vector<std::unique_ptr<char[]>> held;
    for (size_t i = 0; i < blocks; ++i) {
      held.emplace_back(new char[block_bytes]);
      std::memset(held.back().get(), 1, block_bytes);
    }
    last = std::move(held.back());
  }).join();
  return last;
}

constexpr uint64_t kThreshold = 16u << 20;

TEST(MemoryReturnerTest, ReturnsWhatABurstLeftFree) {
  MemoryReturner returner(absl::ZeroDuration(), kThreshold);
  auto last = AllocateAndFreeOnAThread(4096, 16 * 1024);  // 64 MiB
  ASSERT_GT(MemoryReturner::FreeHeldBytes(), 48u << 20);
  const uint64_t before = MemoryReturner::ResidentBytes();
  EXPECT_TRUE(returner.MaybeReturn());
  const uint64_t after = MemoryReturner::ResidentBytes();
  EXPECT_LT(after + (40u << 20), before)
      << "resident " << before << " -> " << after;
  // Nothing grew since: the next look trims nothing.
  EXPECT_FALSE(returner.MaybeReturn());
}

TEST(MemoryReturnerTest, LeavesABurstBelowTheThreshold) {
  MemoryReturner returner(absl::ZeroDuration(), 1ull << 30);
  auto last = AllocateAndFreeOnAThread(4096, 16 * 1024);
  const uint64_t before = MemoryReturner::ResidentBytes();
  EXPECT_FALSE(returner.MaybeReturn());
  EXPECT_GT(MemoryReturner::ResidentBytes() + (8u << 20), before);
}

TEST(MemoryReturnerTest, LeavesMemoryInUse) {
  MemoryReturner returner(absl::ZeroDuration(), kThreshold);
  std::vector<std::unique_ptr<char[]>> used;
  for (int i = 0; i < 4096; ++i) {
    used.emplace_back(new char[16 * 1024]);
    std::memset(used.back().get(), 1, 16 * 1024);
  }
  EXPECT_FALSE(returner.MaybeReturn());  // grew, but nothing is free
}

TEST(MemoryReturnerTest, ItsThreadTrimsAndStops) {
  const uint64_t start = MemoryReturner::ResidentBytes();
  {
    MemoryReturner returner(absl::Milliseconds(20), kThreshold);
    auto last = AllocateAndFreeOnAThread(4096, 16 * 1024);
    // Without a trim the burst stays resident (LeavesABurstBelowTheThreshold).
    for (int i = 0; i < 200; ++i) {
      if (MemoryReturner::ResidentBytes() < start + (24u << 20)) break;
      absl::SleepFor(absl::Milliseconds(10));
    }
    EXPECT_LT(MemoryReturner::ResidentBytes(), start + (24u << 20));
  }  // the destructor stops and joins its thread
}

}  // namespace
}  // namespace trackdb::service
