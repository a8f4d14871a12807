#include "service/jobs/memory_return.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace trackdb::service {

MemoryReturner::MemoryReturner(absl::Duration interval,
                               uint64_t threshold_bytes)
    : interval_(interval),
      threshold_bytes_(threshold_bytes),
      low_mark_(ResidentBytes()) {
  if (interval_ > absl::ZeroDuration()) {
    thread_.Start([this] { Run(); });
  }
}

uint64_t MemoryReturner::ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  long size = 0, resident = 0;
  if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
  std::fclose(f);
  return static_cast<uint64_t>(resident) * sysconf(_SC_PAGESIZE);
}

uint64_t MemoryReturner::FreeHeldBytes() {
  const struct mallinfo2 info = mallinfo2();
  return info.fordblks;  // free chunks of every arena, their tops included
}

bool MemoryReturner::MaybeReturn() {
  const uint64_t resident = ResidentBytes();
  const bool grew = resident > low_mark_ + threshold_bytes_;
  if (!grew || FreeHeldBytes() <= threshold_bytes_) {
    // The mark only falls between trims: a burst that spans several looks
    // is still measured from before it began.
    low_mark_ = std::min(low_mark_, resident);
    return false;
  }
  malloc_trim(0);
  // What stays after a trim is in use: growth is measured from here.
  low_mark_ = ResidentBytes();
  return true;
}

void MemoryReturner::Run() {
  while (thread_.WaitFor(interval_)) MaybeReturn();
}

}  // namespace trackdb::service
