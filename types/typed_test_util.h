#ifndef TRACKDB_TYPES_TYPED_TEST_UTIL_H_
#define TRACKDB_TYPES_TYPED_TEST_UTIL_H_

// For the types layer's tests: one transaction over a name's typed value
// on a real store.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "storage/format/typed_values.h"
#include "storage/track_store.h"

namespace trackdb::types::testing {

// The wall clock in Unix ms, the transactions' now.
int64_t Now();

// Runs `body` in one UpdateTyped transaction on `name`'s value (a new one
// of `type` when it has none).
absl::Status WriteValue(
    storage::TrackStore& store, const std::string& name,
    storage::ValueType type,
    const std::function<void(storage::TypedTxn&, const storage::TypedMeta&)>&
        body);

// Runs `body` in one ReadTyped transaction with `name`'s value; nothing
// when it has none.
absl::Status ReadValue(
    storage::TrackStore& store, const std::string& name,
    const std::function<absl::Status(storage::TypedTxn&,
                                     const storage::TypedMeta&)>& body);

// Runs `body` with a Writer (HashWriter, SetWriter, ZsetWriter) over
// `name`'s value (a new one of `type` when it has none), then finishes it.
template <typename Writer>
absl::Status WriteWith(storage::TrackStore& store, const std::string& name,
                       storage::ValueType type,
                       const std::function<void(Writer&)>& body) {
  return WriteValue(
      store, name, type,
      [&](storage::TypedTxn& txn, const storage::TypedMeta& meta) {
        Writer writer(txn, name, meta);
        body(writer);
        writer.Finish();
      });
}

// A writer's answer, failing the test if it is an error.
bool Answer(const absl::StatusOr<bool>& answer);

// A test over a fresh store.
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override;
  std::unique_ptr<storage::TrackStore> store_;
};

}  // namespace trackdb::types::testing

#endif  // TRACKDB_TYPES_TYPED_TEST_UTIL_H_
