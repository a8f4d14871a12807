#include "storage/typed/typed_gc.h"

#include <optional>
#include <string>

#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"
#include "storage/format/typed_codec.h"

namespace trackdb::storage {

void TypedGcTarget::Attach(rocksdb::DB* db,
                           rocksdb::ColumnFamilyHandle* types) {
  absl::MutexLock l(&mu_);
  db_ = db;
  types_ = types;
}

void TypedGcTarget::Detach() {
  absl::MutexLock l(&mu_);
  db_ = nullptr;
  types_ = nullptr;
}

bool TypedGcTarget::ReadMeta(const rocksdb::Slice& key, std::string* value,
                             bool* found) {
  absl::ReaderMutexLock l(&mu_);
  if (db_ == nullptr) return false;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), types_, key, value);
  if (s.IsNotFound()) {
    *found = false;
    return true;
  }
  *found = true;
  return s.ok();
}

namespace {

// How long the members of an expired value outlive its expiry. A command
// reads its clock before it takes its keys' locks, so it may still see a
// value as live a moment after it expired, and write its meta back
// (PERSIST, EXPIRE): its members must still be there then.
constexpr int64_t kMemberGraceMs = 60'000;

class TypedGcFilter : public rocksdb::CompactionFilter {
 public:
  TypedGcFilter(std::shared_ptr<TypedGcTarget> target, int64_t now_ms)
      : target_(std::move(target)), now_ms_(now_ms) {}

  bool Filter(int /*level*/, const rocksdb::Slice& key,
              const rocksdb::Slice& value, std::string* /*new_value*/,
              bool* /*value_changed*/) const override {
    const std::optional<TypedKeyParts> parts = ParseTypedKey(SliceView(key));
    if (!parts) return false;
    if (parts->is_meta) {
      const std::optional<TypedMeta> meta = DecodeTypedMeta(SliceView(value));
      return meta && meta->expired_at(now_ms_);
    }
    if (!Look(parts->name)) return false;
    return !live_version_ || *live_version_ != parts->version;
  }
  const char* Name() const override { return "trackdb.TypedGcFilter"; }

 private:
  // Brings the cached fate of `name`'s members up to date; false when it
  // cannot be known (keep the member).
  bool Look(absl::string_view name) const {
    if (looked_ && name == name_) return known_;
    looked_ = true;
    name_.assign(name.data(), name.size());
    live_version_.reset();
    std::string value;
    bool found = false;
    known_ = target_->ReadMeta(TypedMetaKey(name), &value, &found);
    if (known_ && found) {
      const std::optional<TypedMeta> meta = DecodeTypedMeta(value);
      if (!meta) {
        known_ = false;  // not ours to judge: keep
      } else if (!meta->expired_at(now_ms_ - kMemberGraceMs)) {
        live_version_ = meta->version;
      }
    }
    return known_;
  }

  std::shared_ptr<TypedGcTarget> target_;
  const int64_t now_ms_;
  mutable bool looked_ = false;
  mutable bool known_ = false;
  mutable std::string name_;
  mutable std::optional<uint64_t> live_version_;
};

class TypedGcFilterFactory : public rocksdb::CompactionFilterFactory {
 public:
  TypedGcFilterFactory(std::shared_ptr<TypedGcTarget> target,
                       std::function<int64_t()> clock_ms)
      : target_(std::move(target)), clock_ms_(std::move(clock_ms)) {}

  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& /*context*/) override {
    return std::make_unique<TypedGcFilter>(target_, clock_ms_());
  }
  const char* Name() const override { return "trackdb.TypedGcFilterFactory"; }

 private:
  std::shared_ptr<TypedGcTarget> target_;
  std::function<int64_t()> clock_ms_;
};

}  // namespace

std::shared_ptr<rocksdb::CompactionFilterFactory> NewTypedGcFilterFactory(
    std::shared_ptr<TypedGcTarget> target, std::function<int64_t()> clock_ms) {
  return std::make_shared<TypedGcFilterFactory>(std::move(target),
                                                std::move(clock_ms));
}

}  // namespace trackdb::storage
