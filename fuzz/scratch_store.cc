#include "fuzz/scratch_store.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace trackdb::fuzz {
namespace {

std::string ScratchRoot() {
  if (const char* tmp = std::getenv("TEST_TMPDIR")) return tmp;
  if (access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return "/tmp";
}

}  // namespace

ScratchStore::ScratchStore(int inputs_per_store)
    : inputs_per_store_(inputs_per_store),
      root_(absl::StrCat(ScratchRoot(), "/trackdb-fuzz-", getpid())) {}

ScratchStore::~ScratchStore() {
  store_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(root_, ignored);
}

storage::TrackStore* ScratchStore::Next(bool* fresh) {
  *fresh = store_ == nullptr || inputs_ >= inputs_per_store_;
  if (*fresh) Reopen();
  ++inputs_;
  return store_.get();
}

void ScratchStore::Reopen() {
  store_.reset();
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  dir_ = absl::StrCat(root_, "/", generation_++);
  std::filesystem::create_directories(dir_);
  v1::StorageConfig config;
  config.set_durability(v1::DURABILITY_WAL_OFF);
  config.set_write_buffer_size_mb(1);
  config.set_db_write_buffer_size_mb(8);
  config.set_block_cache_size_mb(8);
  auto store = storage::TrackStore::Open(dir_, config);
  if (!store.ok()) {
    std::fprintf(stderr, "cannot open a scratch store in %s: %s\n",
                 dir_.c_str(), store.status().ToString().c_str());
    std::abort();
  }
  store_ = *std::move(store);
  inputs_ = 0;
}

}  // namespace trackdb::fuzz
