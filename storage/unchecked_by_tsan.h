#ifndef TRACKDB_STORAGE_UNCHECKED_BY_TSAN_H_
#define TRACKDB_STORAGE_UNCHECKED_BY_TSAN_H_

// Under ThreadSanitizer (tools/sanitizers/tsan.sh) the memory accesses a
// thread makes while an UncheckedByTsan lives are not checked; its
// synchronisation still counts. Without TSan it is nothing.
//
// For RocksDB's DB::Write only: the leader of a write group copies the
// other writers' batches into the WAL and the memtable, ordered by
// WriteThread's atomics inside librocksdb, which Debian does not build
// with TSan. TSan sees the copies (memcpy is intercepted) but not that
// ordering, so every pair of concurrent writes would be reported as a race
// on a batch. trackdb's own accesses to a batch happen before the call, in
// code TSan checks.

#if defined(__SANITIZE_THREAD__)
#define TRACKDB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TRACKDB_TSAN 1
#endif
#endif

#ifdef TRACKDB_TSAN
// libtsan's, not declared by gcc 12's <sanitizer/tsan_interface.h>.
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace trackdb::storage {

class UncheckedByTsan {
 public:
#ifdef TRACKDB_TSAN
  UncheckedByTsan() { __tsan_ignore_thread_begin(); }
  ~UncheckedByTsan() { __tsan_ignore_thread_end(); }
#else
  UncheckedByTsan() = default;
#endif
  UncheckedByTsan(const UncheckedByTsan&) = delete;
  UncheckedByTsan& operator=(const UncheckedByTsan&) = delete;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_UNCHECKED_BY_TSAN_H_
