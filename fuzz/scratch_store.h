#ifndef TRACKDB_FUZZ_SCRATCH_STORE_H_
#define TRACKDB_FUZZ_SCRATCH_STORE_H_

// A small TrackStore for the fuzz targets that write: in a scratch directory
// (TEST_TMPDIR under `bazel test`, else /dev/shm, else /tmp), without a
// write-ahead log and with small memtables, and replaced by an empty one
// every `inputs_per_store` inputs. Fuzzing needs each input to run against
// a store of a similar, small size (so execution speed holds and a crash
// reproduces from a few inputs), but reopening RocksDB for every input
// would cost more than the input.

#include <memory>
#include <string>

#include "storage/track_store.h"

namespace trackdb::fuzz {

class ScratchStore {
 public:
  explicit ScratchStore(int inputs_per_store);
  ~ScratchStore();
  ScratchStore(const ScratchStore&) = delete;
  ScratchStore& operator=(const ScratchStore&) = delete;

  // The store for the next input. Sets *fresh when it was just opened
  // (empty), so that the caller can rebuild what refers to it.
  storage::TrackStore* Next(bool* fresh);

 private:
  void Reopen();

  const int inputs_per_store_;
  int inputs_ = 0;
  int generation_ = 0;
  std::string root_;
  std::string dir_;
  std::unique_ptr<storage::TrackStore> store_;
};

}  // namespace trackdb::fuzz

#endif  // TRACKDB_FUZZ_SCRATCH_STORE_H_
