// For name_ops_test's crash test: opens the store in argv[1] and renames
// collection "a" to "b" and back, forever, until it is killed. Each rename
// prints a line once it has returned, so the parent knows some have landed.
#include <cstdio>
#include <string>

#include "storage/track_store.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
    return 2;
  }
  trackdb::v1::StorageConfig config;
  config.set_durability(trackdb::v1::DURABILITY_WAL);
  config.set_write_buffer_size_mb(1);
  auto store = trackdb::storage::TrackStore::Open(argv[1], config);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  trackdb::storage::TrackStore::CopyNameOptions rename;
  rename.remove_source = true;
  rename.replace = true;
  for (long i = 0;; ++i) {
    const std::string from = i % 2 == 0 ? "a" : "b";
    const std::string to = i % 2 == 0 ? "b" : "a";
    auto result = (*store)->CopyName(from, to, 0, rename);
    if (!result.ok()) {
      std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
      return 1;
    }
    std::printf("%ld\n", i);
    std::fflush(stdout);
  }
}
