#include "storage/strings/kv_expiry.h"

#include <chrono>

#include "storage/format/kv_codec.h"
#include "storage/format/rocks_util.h"

namespace trackdb::storage {
namespace {

class ExpiredStringFilter : public rocksdb::CompactionFilter {
 public:
  explicit ExpiredStringFilter(int64_t now_ms) : now_ms_(now_ms) {}

  bool Filter(int /*level*/, const rocksdb::Slice& /*key*/,
              const rocksdb::Slice& existing_value, std::string* /*new_value*/,
              bool* /*value_changed*/) const override {
    const std::optional<int64_t> expire =
        DecodeStringExpiry(SliceView(existing_value));
    return expire && *expire != 0 && *expire <= now_ms_;
  }
  const char* Name() const override { return "trackdb.ExpiredStringFilter"; }

 private:
  const int64_t now_ms_;
};

class ExpiredStringFilterFactory : public rocksdb::CompactionFilterFactory {
 public:
  explicit ExpiredStringFilterFactory(ClockMs clock)
      : clock_(std::move(clock)) {}

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& /*context*/) override {
    // One clock reading per compaction: a value expiring during it simply
    // waits for the next one.
    return std::make_unique<ExpiredStringFilter>(clock_());
  }
  const char* Name() const override {
    return "trackdb.ExpiredStringFilterFactory";
  }

 private:
  ClockMs clock_;
};

}  // namespace

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::shared_ptr<rocksdb::CompactionFilterFactory> NewExpiredStringFilterFactory(
    ClockMs clock) {
  return std::make_shared<ExpiredStringFilterFactory>(std::move(clock));
}

}  // namespace trackdb::storage
