#ifndef TRACKDB_FUZZ_FUZZ_CHECK_H_
#define TRACKDB_FUZZ_FUZZ_CHECK_H_

// FUZZ_CHECK(cond) << ...: an invariant of a fuzz target. When it fails it
// prints where and why and aborts, which libFuzzer reports as a crash (and
// saves the input) and which fails the corpus regression test.

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace trackdb::fuzz {

class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition) {
    message_ << file << ":" << line << ": FUZZ_CHECK(" << condition
             << ") failed: ";
  }
  [[noreturn]] ~CheckFailure() {
    std::fprintf(stderr, "%s\n", message_.str().c_str());
    std::abort();
  }
  template <typename T>
  CheckFailure& operator<<(const T& v) {
    message_ << v;
    return *this;
  }

 private:
  std::ostringstream message_;
};

}  // namespace trackdb::fuzz

#define FUZZ_CHECK(cond) \
  if (cond) {            \
  } else                 \
    ::trackdb::fuzz::CheckFailure(__FILE__, __LINE__, #cond)

#endif  // TRACKDB_FUZZ_FUZZ_CHECK_H_
