#include "types/typed_test_util.h"

#include "absl/time/clock.h"
#include "storage/store_test_util.h"

namespace trackdb::types::testing {

int64_t Now() { return absl::ToUnixMillis(absl::Now()); }

absl::Status WriteValue(
    storage::TrackStore& store, const std::string& name,
    storage::ValueType type,
    const std::function<void(storage::TypedTxn&, const storage::TypedMeta&)>&
        body) {
  const std::string names[] = {name};
  return store.UpdateTyped(
      names, Now(), [&](storage::TypedTxn& txn) -> absl::Status {
        absl::StatusOr<std::optional<storage::TypedMeta>> meta = txn.Meta(name);
        if (!meta.ok()) return meta.status();
        body(txn, *meta ? **meta : txn.Create(type));
        return absl::OkStatus();
      });
}

absl::Status ReadValue(
    storage::TrackStore& store, const std::string& name,
    const std::function<absl::Status(storage::TypedTxn&,
                                     const storage::TypedMeta&)>& body) {
  const std::string names[] = {name};
  return store.ReadTyped(
      names, Now(), [&](storage::TypedTxn& txn) -> absl::Status {
        absl::StatusOr<std::optional<storage::TypedMeta>> meta = txn.Meta(name);
        if (!meta.ok() || !*meta) return meta.status();
        return body(txn, **meta);
      });
}

bool Answer(const absl::StatusOr<bool>& answer) {
  EXPECT_TRUE(answer.ok()) << answer.status();
  return answer.value_or(false);
}

void StoreTest::SetUp() {
  store_ = storage::testing::OpenStore(storage::testing::NewDataDir());
  ASSERT_NE(store_, nullptr);
}

}  // namespace trackdb::types::testing
