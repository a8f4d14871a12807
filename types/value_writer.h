#ifndef TRACKDB_TYPES_VALUE_WRITER_H_
#define TRACKDB_TYPES_VALUE_WRITER_H_

// What every writer of one typed value shares (HashWriter, SetWriter,
// ZsetWriter): the transaction, the value's name and its meta as this
// writer changes it. Finish stages the meta once, if it changed; a size of
// 0 removes the key, as Redis deletes an emptied value.

#include <string>

#include "absl/strings/string_view.h"
#include "storage/format/typed_values.h"

namespace trackdb::types {

class ValueWriter {
 public:
  // Stages the meta if anything changed.
  void Finish() {
    if (changed_) txn_.SetMeta(name_, meta_);
  }
  const storage::TypedMeta& meta() const { return meta_; }

 protected:
  ValueWriter(storage::TypedTxn& txn, absl::string_view name,
              const storage::TypedMeta& meta)
      : txn_(txn), name_(name), meta_(meta) {}
  storage::TypedTxn& txn() { return txn_; }
  const std::string& name() const { return name_; }
  // The meta, to change: Finish will stage it.
  storage::TypedMeta& ChangeMeta() {
    changed_ = true;
    return meta_;
  }

 private:
  storage::TypedTxn& txn_;
  const std::string name_;
  storage::TypedMeta meta_;
  bool changed_ = false;
};

}  // namespace trackdb::types

#endif  // TRACKDB_TYPES_VALUE_WRITER_H_
