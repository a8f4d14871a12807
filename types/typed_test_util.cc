#include "types/typed_test_util.h"

#include "absl/time/clock.h"

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
        absl::StatusOr<std::optional<storage::TypedMeta>> meta =
            txn.Meta(name);
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
        absl::StatusOr<std::optional<storage::TypedMeta>> meta =
            txn.Meta(name);
        if (!meta.ok() || !*meta) return meta.status();
        return body(txn, **meta);
      });
}

}  // namespace trackdb::types::testing
