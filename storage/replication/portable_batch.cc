#include "storage/replication/portable_batch.h"

#include <array>
#include <string>

namespace trackdb::storage {
namespace {

class PortableHandle : public rocksdb::ColumnFamilyHandle {
 public:
  explicit PortableHandle(uint32_t id) : id_(id) {}
  const std::string& GetName() const override { return name_; }
  uint32_t GetID() const override { return id_; }
  rocksdb::Status GetDescriptor(rocksdb::ColumnFamilyDescriptor*) override {
    return rocksdb::Status::NotSupported("a portable batch's family");
  }
  const rocksdb::Comparator* GetComparator() const override {
    return rocksdb::BytewiseComparator();
  }

 private:
  const uint32_t id_;
  const std::string name_;
};

}  // namespace

rocksdb::ColumnFamilyHandle* PortableFamily(ColumnFamily cf) {
  static std::array<PortableHandle*, kColumnFamilyCount>* const handles = [] {
    auto* all = new std::array<PortableHandle*, kColumnFamilyCount>();
    for (uint32_t i = 0; i < kColumnFamilyCount; ++i) {
      (*all)[i] = new PortableHandle(i);
    }
    return all;
  }();
  return (*handles)[static_cast<size_t>(cf)];
}

}  // namespace trackdb::storage
