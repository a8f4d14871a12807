#include "types/codec/object_encoding.h"

#include <algorithm>
#include <string>
#include <utility>

#include "types/codec/redis_number.h"

namespace trackdb::types {
namespace {

bool IsIntEncodable(absl::string_view value, int64_t* n) {
  return value.size() <= 20 && ParseInt64(value, n);
}

bool HashFitsListpack(const RdbValue& value) {
  return std::all_of(value.hash.begin(), value.hash.end(),
                     [](const std::pair<std::string, std::string>& fv) {
                       return FitsHashListpack(fv.first, fv.second);
                     });
}

bool ZsetFitsListpack(const RdbValue& value) {
  return std::all_of(value.zset.begin(), value.zset.end(),
                     [](const std::pair<std::string, double>& ms) {
                       return ms.first.size() <= ZsetMaxListpackValue();
                     });
}

bool SetFitsIntset(const RdbValue& value) {
  return std::all_of(
      value.elements.begin(), value.elements.end(),
      [](const std::string& member) { return FitsIntset(member); });
}

}  // namespace

EncodingLimits& Limits() {
  static EncodingLimits* limits = new EncodingLimits();
  return *limits;
}

bool FitsIntset(absl::string_view member) {
  int64_t n;
  return ParseInt64(member, &n);
}

const char* StringEncoding(absl::string_view value) {
  int64_t n;
  if (IsIntEncodable(value, &n)) return "int";
  return value.size() <= kEmbstrSizeLimit ? "embstr" : "raw";
}

int64_t StringRefcount(absl::string_view value) {
  int64_t n;
  if (IsIntEncodable(value, &n) && n >= 0 && n < kSharedIntegers) {
    return kSharedRefcount;
  }
  return 1;
}

const char* EncodingBySize(RdbValue::Kind kind, uint64_t size) {
  switch (kind) {
    case RdbValue::Kind::kList:
      return "quicklist";
    case RdbValue::Kind::kHash:
      return size > HashMaxListpackEntries() ? "hashtable" : nullptr;
    case RdbValue::Kind::kZset:
      return size > ZsetMaxListpackEntries() ? "skiplist" : nullptr;
    case RdbValue::Kind::kSet:
      return size > SetMaxIntsetEntries() ? "hashtable" : nullptr;
    case RdbValue::Kind::kString:
      return nullptr;
  }
  return nullptr;
}

const char* Encoding(const RdbValue& value) {
  switch (value.kind) {
    case RdbValue::Kind::kString:
      return StringEncoding(value.string);
    case RdbValue::Kind::kList:
      return "quicklist";
    case RdbValue::Kind::kHash:
      return value.hash.size() <= HashMaxListpackEntries() &&
                     HashFitsListpack(value)
                 ? "listpack"
                 : "hashtable";
    case RdbValue::Kind::kZset:
      return value.zset.size() <= ZsetMaxListpackEntries() &&
                     ZsetFitsListpack(value)
                 ? "listpack"
                 : "skiplist";
    case RdbValue::Kind::kSet:
      return value.elements.size() <= SetMaxIntsetEntries() &&
                     SetFitsIntset(value)
                 ? "intset"
                 : "hashtable";
  }
  return "raw";
}

}  // namespace trackdb::types
