#include "storage/format/counter_merge.h"

#include "storage/format/rocks_util.h"

namespace trackdb::storage {
namespace {

class CounterMergeOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice& /*key*/,
             const rocksdb::Slice* existing_value, const rocksdb::Slice& value,
             std::string* new_value,
             rocksdb::Logger* /*logger*/) const override {
    int64_t sum = 0;
    if (existing_value != nullptr) {
      const std::optional<int64_t> existing =
          DecodeCounter(SliceView(*existing_value));
      if (!existing) return false;  // corruption: RocksDB reports it
      sum = *existing;
    }
    const std::optional<int64_t> delta = DecodeCounter(SliceView(value));
    if (!delta) return false;
    *new_value = EncodeCounter(static_cast<int64_t>(
        static_cast<uint64_t>(sum) + static_cast<uint64_t>(*delta)));
    return true;
  }
  const char* Name() const override { return "trackdb.CounterAdd"; }
};

}  // namespace

std::string EncodeCounter(int64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  }
  return out;
}

std::optional<int64_t> DecodeCounter(absl::string_view encoded) {
  if (encoded.size() != 8) return std::nullopt;
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(encoded[i])) << (8 * i);
  }
  return static_cast<int64_t>(v);
}

std::shared_ptr<rocksdb::MergeOperator> NewCounterMergeOperator() {
  return std::make_shared<CounterMergeOperator>();
}

}  // namespace trackdb::storage
