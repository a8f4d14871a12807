#include "storage/points/history_fixes.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "storage/format/chunk_codec.h"
#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"

namespace trackdb::storage {
namespace {

// A raw fix's key: CollectionPrefix, then an entity part and 8 time bytes,
// not the history cells' tag.
bool IsRawFixKey(absl::string_view key) {
  uint32_t length = 0;
  if (!ReadVarint32(&key, &length) || key.size() < length) return false;
  key.remove_prefix(length);
  return !absl::StartsWith(key, kHistoryCellsTag) && key.size() > 8;
}

class HistoryFixesCollector : public rocksdb::TablePropertiesCollector {
 public:
  explicit HistoryFixesCollector(HistoryFamily family) : family_(family) {}

  rocksdb::Status AddUserKey(const rocksdb::Slice& key,
                             const rocksdb::Slice& value,
                             rocksdb::EntryType type,
                             rocksdb::SequenceNumber /*seq*/,
                             uint64_t /*file_size*/) override {
    if (type != rocksdb::kEntryPut) return rocksdb::Status::OK();
    if (family_ == HistoryFamily::kRawFixes) {
      fixes_ += IsRawFixKey(SliceView(key));
    } else if (const auto span = DecodeChunkSpan(SliceView(value))) {
      fixes_ += span->count;
    }
    return rocksdb::Status::OK();
  }
  rocksdb::Status Finish(rocksdb::UserCollectedProperties* props) override {
    props->emplace(kHistoryFixesProperty, absl::StrCat(fixes_));
    return rocksdb::Status::OK();
  }
  rocksdb::UserCollectedProperties GetReadableProperties() const override {
    return {{kHistoryFixesProperty, absl::StrCat(fixes_)}};
  }
  const char* Name() const override { return "trackdb.HistoryFixes"; }

 private:
  const HistoryFamily family_;
  uint64_t fixes_ = 0;
};

class HistoryFixesCollectorFactory
    : public rocksdb::TablePropertiesCollectorFactory {
 public:
  explicit HistoryFixesCollectorFactory(HistoryFamily family)
      : family_(family) {}
  rocksdb::TablePropertiesCollector* CreateTablePropertiesCollector(
      rocksdb::TablePropertiesCollectorFactory::Context /*context*/) override {
    return new HistoryFixesCollector(family_);
  }
  const char* Name() const override { return "trackdb.HistoryFixesFactory"; }

 private:
  const HistoryFamily family_;
};

}  // namespace

std::shared_ptr<rocksdb::TablePropertiesCollectorFactory>
NewHistoryFixesCollectorFactory(HistoryFamily family) {
  return std::make_shared<HistoryFixesCollectorFactory>(family);
}

HistoryFiles HistoryFixesInFiles(rocksdb::DB* db,
                                 rocksdb::ColumnFamilyHandle* cf) {
  rocksdb::TablePropertiesCollection files;
  HistoryFiles out;
  if (!db->GetPropertiesOfAllTables(cf, &files).ok()) return out;
  for (const auto& [name, props] : files) {
    const auto it = props->user_collected_properties.find(kHistoryFixesProperty);
    uint64_t n = 0;
    if (it == props->user_collected_properties.end() ||
        !absl::SimpleAtoi(it->second, &n)) {
      continue;
    }
    out.fixes += n;
    out.bytes += props->data_size + props->index_size + props->filter_size;
  }
  return out;
}

}  // namespace trackdb::storage
