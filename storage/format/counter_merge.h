#ifndef TRACKDB_STORAGE_FORMAT_COUNTER_MERGE_H_
#define TRACKDB_STORAGE_FORMAT_COUNTER_MERGE_H_

// The merge operator of the `default` column family: values are int64
// little-endian counters and a merge operand is a delta. The collection
// registry (storage/format/keys.h) counts entities this way, so a write that adds an
// entity bumps its collection's count in the same WriteBatch without reading
// it first, and concurrent writers never lose an increment.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "rocksdb/merge_operator.h"

namespace trackdb::storage {

std::string EncodeCounter(int64_t v);
// nullopt unless `encoded` is exactly 8 bytes.
std::optional<int64_t> DecodeCounter(absl::string_view encoded);

std::shared_ptr<rocksdb::MergeOperator> NewCounterMergeOperator();

// At most this many operands of one counter stay unmerged in a memtable
// (the default column family's max_successive_merges), so reading a count
// merges a few operands, not one per write since the last flush.
inline constexpr size_t kMaxCounterOperands = 32;

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_COUNTER_MERGE_H_
