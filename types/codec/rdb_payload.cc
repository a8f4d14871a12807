#include "types/codec/rdb_payload.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace trackdb::types {
namespace {

// Object type bytes, as Redis numbers them in an RDB file.
enum RdbType : uint8_t {
  kTypeString = 0,
  kTypeList = 1,
  kTypeSet = 2,
  kTypeZset = 3,
  kTypeHash = 4,
  kTypeZset2 = 5,
  kTypeListZiplist = 10,
  kTypeSetIntset = 11,
  kTypeZsetZiplist = 12,
  kTypeHashZiplist = 13,
  kTypeListQuicklist = 14,
  kTypeHashListpack = 16,
  kTypeZsetListpack = 17,
  kTypeListQuicklist2 = 18,
  kTypeSetListpack = 20,
};

// Version 9 (Redis 5.0) predates listpacks and is the newest whose plain
// types every Redis from 6.2 on loads.
constexpr uint16_t kEncodeRdbVersion = 9;
// The newest RDB version any Redis this decoder follows (up to 7.4) writes.
constexpr uint64_t kMaxRdbVersion = 12;
constexpr size_t kFooterSize = 10;  // version (2) + CRC-64 (8)

// Low 6 bits of an RDB string length byte whose top bits are 11: 0, 1
// and 2 are little-endian integers of 1, 2 and 4 bytes; 3 is LZF.
constexpr uint64_t kStringInt32 = 2;
constexpr uint64_t kStringLzf = 3;

// Scores of the old ZSET type that are not written as text.
constexpr uint8_t kScoreNan = 253;
constexpr uint8_t kScorePositiveInf = 254;
constexpr uint8_t kScoreNegativeInf = 255;

// LZF's best ratio: a 3-byte back reference that expands to 264 bytes.
constexpr uint64_t kLzfMaxExpansion = 264;

constexpr uint8_t kListpackEnd = 0xff;
constexpr uint64_t kListpackUnknownCount = 0xffff;
constexpr uint8_t kZiplistEnd = 0xff;
constexpr uint8_t kZiplistBigPrevlen = 0xfe;
constexpr uint64_t kZiplistUnknownCount = 0xffff;

// A LIST_QUICKLIST_2 node's container.
constexpr uint64_t kQuicklistPlain = 1;
constexpr uint64_t kQuicklistPacked = 2;

// ---- CRC-64 ----

constexpr uint64_t ReverseBits(uint64_t v) {
  uint64_t r = 0;
  for (int i = 0; i < 64; ++i) r |= ((v >> i) & 1) << (63 - i);
  return r;
}

constexpr std::array<uint64_t, 256> MakeCrc64Table() {
  constexpr uint64_t kReflectedJones = ReverseBits(0xad93d23594c935a9);
  std::array<uint64_t, 256> table{};
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t crc = i;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) ? (crc >> 1) ^ kReflectedJones : crc >> 1;
    }
    table[i] = crc;
  }
  return table;
}

constexpr std::array<uint64_t, 256> kCrc64Table = MakeCrc64Table();

// ---- Encoding ----

void AppendLittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> 8 * i));
}

void AppendBigEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = bytes - 1; i >= 0; --i) {
    out->push_back(static_cast<char>(v >> 8 * i));
  }
}

void AppendLength(uint64_t len, std::string* out) {
  if (len < 64) {
    out->push_back(static_cast<char>(len));
  } else if (len < 16384) {
    out->push_back(static_cast<char>(0x40 | (len >> 8)));
    out->push_back(static_cast<char>(len & 0xff));
  } else if (len <= 0xffffffff) {
    out->push_back('\x80');
    AppendBigEndian(len, 4, out);
  } else {
    out->push_back('\x81');
    AppendBigEndian(len, 8, out);
  }
}

void AppendRdbString(absl::string_view s, std::string* out) {
  AppendLength(s.size(), out);
  out->append(s.data(), s.size());
}

// ---- Decoding ----
// Parsers return false for anything malformed; DecodeDumpPayload turns that
// into the one error RESTORE gives for all of it.

uint64_t LoadLittleEndian(absl::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) {
    v = (v << 8) | static_cast<uint8_t>(bytes[i]);
  }
  return v;
}

uint64_t LoadBigEndian(absl::string_view bytes) {
  uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

// The two's complement value of the low `bits` bits of `v`.
int64_t SignExtend(uint64_t v, int bits) {
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (sign << 1) - 1;
  return static_cast<int64_t>(((v & mask) ^ sign) - sign);
}

// Reads `data` front to back. A read that runs past the end fails.
class Cursor {
 public:
  explicit Cursor(absl::string_view data) : data_(data) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

  bool Bytes(uint64_t n, absl::string_view* out) {
    if (n > remaining()) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Skip(uint64_t n) {
    absl::string_view skipped;
    return Bytes(n, &skipped);
  }
  bool Peek(uint8_t* out) const {
    if (remaining() == 0) return false;
    *out = static_cast<uint8_t>(data_[pos_]);
    return true;
  }
  bool Byte(uint8_t* out) { return Peek(out) && Skip(1); }
  bool LittleEndian(int n, uint64_t* out) {
    absl::string_view bytes;
    if (!Bytes(n, &bytes)) return false;
    *out = LoadLittleEndian(bytes);
    return true;
  }
  bool BigEndian(int n, uint64_t* out) {
    absl::string_view bytes;
    if (!Bytes(n, &bytes)) return false;
    *out = LoadBigEndian(bytes);
    return true;
  }

 private:
  absl::string_view data_;
  size_t pos_ = 0;
};

bool ReadStringOfLength(Cursor* in, uint64_t len, std::string* out) {
  absl::string_view bytes;
  if (!in->Bytes(len, &bytes)) return false;
  out->assign(bytes.data(), bytes.size());
  return true;
}

bool ReadLittleEndianInt(Cursor* in, int bytes, std::string* out) {
  uint64_t v = 0;
  if (!in->LittleEndian(bytes, &v)) return false;
  *out = absl::StrCat(SignExtend(v, 8 * bytes));
  return true;
}

// An RDB length. With `*special` set, the byte instead announced a string
// in a special encoding, and `*len` is that encoding's number.
bool ReadLength(Cursor* in, uint64_t* len, bool* special) {
  uint8_t b = 0;
  if (!in->Byte(&b)) return false;
  *special = false;
  switch (b >> 6) {
    case 0:
      *len = b & 0x3f;
      return true;
    case 1: {
      uint8_t low = 0;
      if (!in->Byte(&low)) return false;
      *len = (uint64_t{b & 0x3fu} << 8) | low;
      return true;
    }
    case 2:
      if (b == 0x80) return in->BigEndian(4, len);
      if (b == 0x81) return in->BigEndian(8, len);
      return false;
    default:
      *special = true;
      *len = b & 0x3f;
      return true;
  }
}

bool ReadPlainLength(Cursor* in, uint64_t* len) {
  bool special = false;
  return ReadLength(in, len, &special) && !special;
}

// LZF's decompression of `in`, which must produce exactly `size` bytes.
bool LzfDecompress(absl::string_view compressed, uint64_t size,
                   std::string* out) {
  out->clear();
  out->reserve(size);
  Cursor in(compressed);
  uint8_t control = 0;
  while (in.Byte(&control)) {
    if (control < 32) {  // a literal run of control + 1 bytes
      absl::string_view literal;
      if (!in.Bytes(control + 1, &literal)) return false;
      if (literal.size() > size - out->size()) return false;
      out->append(literal.data(), literal.size());
      continue;
    }
    uint64_t len = control >> 5;
    uint8_t b = 0;
    if (len == 7) {
      if (!in.Byte(&b)) return false;
      len += b;
    }
    len += 2;
    if (!in.Byte(&b)) return false;
    const size_t back = ((control & 0x1fu) << 8) + b + 1;
    if (back > out->size() || len > size - out->size()) return false;
    // Byte by byte: the source may overlap what this copy appends.
    const size_t from = out->size() - back;
    for (size_t i = 0; i < len; ++i) out->push_back((*out)[from + i]);
  }
  return out->size() == size;
}

bool ReadLzfString(Cursor* in, std::string* out) {
  uint64_t compressed_len = 0;
  uint64_t len = 0;
  absl::string_view compressed;
  if (!ReadPlainLength(in, &compressed_len) || !ReadPlainLength(in, &len) ||
      !in->Bytes(compressed_len, &compressed)) {
    return false;
  }
  // No LZF stream expands further; refusing a longer claim up front also
  // keeps a forged length from reserving memory.
  if (len / kLzfMaxExpansion > compressed_len) return false;
  return LzfDecompress(compressed, len, out);
}

// An RDB string: raw bytes, a small integer or an LZF block.
bool ReadRdbString(Cursor* in, std::string* out) {
  uint64_t len = 0;
  bool special = false;
  if (!ReadLength(in, &len, &special)) return false;
  if (!special) return ReadStringOfLength(in, len, out);
  if (len <= kStringInt32) {
    return ReadLittleEndianInt(in, 1 << len, out);
  }
  if (len == kStringLzf) return ReadLzfString(in, out);
  return false;
}

// A whole-string score: strtod's reading, minus NaN.
bool ParseScore(absl::string_view text, double* score) {
  if (text.empty()) return false;
  const std::string terminated(text);
  char* end = nullptr;
  *score = std::strtod(terminated.c_str(), &end);
  return end == terminated.c_str() + terminated.size() && !std::isnan(*score);
}

// ---- Listpack, ziplist, intset ----

// How many bytes a listpack entry's backlen takes: 7 bits of the entry's
// length per byte.
size_t ListpackBacklenSize(size_t entry_len) {
  size_t n = 1;
  while (n < 5 && entry_len >= (size_t{1} << (7 * n))) ++n;
  return n;
}

// One listpack entry, integers as their decimal strings.
bool ReadListpackEntry(Cursor* in, std::string* out) {
  static constexpr int kIntBytes[] = {2, 3, 4, 8};  // 0xf1..0xf4
  const size_t start = in->pos();
  uint8_t b0 = 0;
  uint8_t b1 = 0;
  uint64_t len = 0;
  if (!in->Byte(&b0)) return false;
  bool ok = true;
  if (b0 < 0x80) {
    *out = absl::StrCat(b0);
  } else if ((b0 & 0xc0) == 0x80) {
    ok = ReadStringOfLength(in, b0 & 0x3f, out);
  } else if ((b0 & 0xe0) == 0xc0) {
    ok = in->Byte(&b1);
    *out = absl::StrCat(SignExtend((uint64_t{b0 & 0x1fu} << 8) | b1, 13));
  } else if ((b0 & 0xf0) == 0xe0) {
    ok = in->Byte(&b1) &&
         ReadStringOfLength(in, (uint64_t{b0 & 0x0fu} << 8) | b1, out);
  } else if (b0 == 0xf0) {
    ok = in->LittleEndian(4, &len) && ReadStringOfLength(in, len, out);
  } else if (b0 >= 0xf1 && b0 <= 0xf4) {
    ok = ReadLittleEndianInt(in, kIntBytes[b0 - 0xf1], out);
  } else {
    return false;
  }
  return ok && in->Skip(ListpackBacklenSize(in->pos() - start));
}

// A listpack's entries, appended to `out`.
bool ParseListpack(absl::string_view blob, std::vector<std::string>* out) {
  Cursor in(blob);
  uint64_t total = 0;
  uint64_t count = 0;
  if (!in.LittleEndian(4, &total) || total != blob.size() ||
      !in.LittleEndian(2, &count)) {
    return false;
  }
  uint64_t seen = 0;
  uint8_t next = 0;
  while (in.Peek(&next) && next != kListpackEnd) {
    std::string entry;
    if (!ReadListpackEntry(&in, &entry)) return false;
    out->push_back(std::move(entry));
    ++seen;
  }
  return in.Skip(1) && in.remaining() == 0 &&
         (count == kListpackUnknownCount || count == seen);
}

// A ziplist entry's value, after its prevlen.
bool ReadZiplistValue(Cursor* in, std::string* out) {
  uint8_t enc = 0;
  uint8_t b1 = 0;
  uint64_t len = 0;
  if (!in->Byte(&enc)) return false;
  switch (enc >> 6) {
    case 0:
      return ReadStringOfLength(in, enc & 0x3f, out);
    case 1:
      return in->Byte(&b1) &&
             ReadStringOfLength(in, (uint64_t{enc & 0x3fu} << 8) | b1, out);
    case 2:
      return enc == 0x80 && in->BigEndian(4, &len) &&
             ReadStringOfLength(in, len, out);
  }
  switch (enc) {
    case 0xc0:
      return ReadLittleEndianInt(in, 2, out);
    case 0xd0:
      return ReadLittleEndianInt(in, 4, out);
    case 0xe0:
      return ReadLittleEndianInt(in, 8, out);
    case 0xf0:
      return ReadLittleEndianInt(in, 3, out);
    case 0xfe:
      return ReadLittleEndianInt(in, 1, out);
  }
  if (enc < 0xf1 || enc > 0xfd) return false;
  *out = absl::StrCat((enc & 0x0f) - 1);  // an immediate 0..12
  return true;
}

// A ziplist entry whose first byte is `first`: its prevlen, which must be
// `last_len` (the previous entry's size), then its value.
bool ReadZiplistEntry(Cursor* in, uint8_t first, uint64_t last_len,
                      std::string* out) {
  uint64_t prevlen = 0;
  if (!in->Skip(1)) return false;
  if (first == kZiplistBigPrevlen && !in->LittleEndian(4, &prevlen)) {
    return false;
  }
  if (first != kZiplistBigPrevlen) prevlen = first;
  return prevlen == last_len && ReadZiplistValue(in, out);
}

// A ziplist's entries, appended to `out`. Each entry's prevlen and the
// header's tail offset must agree with the entries as parsed.
bool ParseZiplist(absl::string_view blob, std::vector<std::string>* out) {
  Cursor in(blob);
  uint64_t total = 0;
  uint64_t tail = 0;
  uint64_t count = 0;
  if (!in.LittleEndian(4, &total) || total != blob.size() ||
      !in.LittleEndian(4, &tail) || !in.LittleEndian(2, &count)) {
    return false;
  }
  uint64_t seen = 0;
  size_t last_start = in.pos();
  uint64_t last_len = 0;
  uint8_t next = 0;
  while (in.Peek(&next) && next != kZiplistEnd) {
    const size_t start = in.pos();
    std::string entry;
    if (!ReadZiplistEntry(&in, next, last_len, &entry)) return false;
    out->push_back(std::move(entry));
    last_start = start;
    last_len = in.pos() - start;
    ++seen;
  }
  return in.Skip(1) && in.remaining() == 0 && tail == last_start &&
         (count == kZiplistUnknownCount || count == seen);
}

// An intset's members as decimal strings, appended to `out`.
bool ParseIntset(absl::string_view blob, std::vector<std::string>* out) {
  Cursor in(blob);
  uint64_t width = 0;
  uint64_t count = 0;
  if (!in.LittleEndian(4, &width) || !in.LittleEndian(4, &count)) return false;
  if ((width != 2 && width != 4 && width != 8) ||
      in.remaining() != count * width) {
    return false;
  }
  for (uint64_t i = 0; i < count; ++i) {
    std::string member;
    if (!ReadLittleEndianInt(&in, static_cast<int>(width), &member))
      return false;
    out->push_back(std::move(member));
  }
  return true;
}

// ---- Objects ----

// A length, then `length * per_item` RDB strings.
bool ReadStrings(Cursor* in, int per_item, std::vector<std::string>* out) {
  uint64_t len = 0;
  // Every RDB string takes at least a byte: a longer count is a lie, and
  // multiplying it could overflow.
  if (!ReadPlainLength(in, &len) || len > in->remaining()) return false;
  for (uint64_t i = 0; i < len * per_item; ++i) {
    std::string s;
    if (!ReadRdbString(in, &s)) return false;
    out->push_back(std::move(s));
  }
  return true;
}

bool ToHash(std::vector<std::string> flat, RdbValue* value) {
  if (flat.size() % 2 != 0) return false;
  value->kind = RdbValue::Kind::kHash;
  for (size_t i = 0; i < flat.size(); i += 2) {
    value->hash.emplace_back(std::move(flat[i]), std::move(flat[i + 1]));
  }
  return true;
}

bool ToZset(std::vector<std::string> flat, RdbValue* value) {
  if (flat.size() % 2 != 0) return false;
  value->kind = RdbValue::Kind::kZset;
  for (size_t i = 0; i < flat.size(); i += 2) {
    double score = 0;
    if (!ParseScore(flat[i + 1], &score)) return false;
    value->zset.emplace_back(std::move(flat[i]), score);
  }
  return true;
}

// The old ZSET type's score: a length byte, then the number as text.
bool ReadTextScore(Cursor* in, double* score) {
  uint8_t len = 0;
  if (!in->Byte(&len) || len == kScoreNan) return false;
  if (len == kScorePositiveInf || len == kScoreNegativeInf) {
    *score = len == kScorePositiveInf ? HUGE_VAL : -HUGE_VAL;
    return true;
  }
  absl::string_view text;
  return in->Bytes(len, &text) && ParseScore(text, score);
}

// ZSET (text scores) and ZSET_2 (binary doubles).
bool ReadZset(uint8_t type, Cursor* in, RdbValue* value) {
  uint64_t len = 0;
  if (!ReadPlainLength(in, &len) || len > in->remaining()) return false;
  value->kind = RdbValue::Kind::kZset;
  for (uint64_t i = 0; i < len; ++i) {
    std::string member;
    double score = 0;
    if (!ReadRdbString(in, &member)) return false;
    if (type == kTypeZset2) {
      uint64_t bits = 0;
      if (!in->LittleEndian(8, &bits)) return false;
      std::memcpy(&score, &bits, sizeof(score));
      if (std::isnan(score)) return false;
    } else if (!ReadTextScore(in, &score)) {
      return false;
    }
    value->zset.emplace_back(std::move(member), score);
  }
  return true;
}

// The types whose object is one RDB string holding a ziplist, listpack or
// intset.
bool ReadPackedObject(uint8_t type, Cursor* in, RdbValue* value) {
  std::string blob;
  if (!ReadRdbString(in, &blob)) return false;
  std::vector<std::string> flat;
  switch (type) {
    case kTypeListZiplist:
      value->kind = RdbValue::Kind::kList;
      return ParseZiplist(blob, &value->elements);
    case kTypeSetIntset:
      value->kind = RdbValue::Kind::kSet;
      return ParseIntset(blob, &value->elements);
    case kTypeSetListpack:
      value->kind = RdbValue::Kind::kSet;
      return ParseListpack(blob, &value->elements);
    case kTypeHashZiplist:
      return ParseZiplist(blob, &flat) && ToHash(std::move(flat), value);
    case kTypeHashListpack:
      return ParseListpack(blob, &flat) && ToHash(std::move(flat), value);
    case kTypeZsetZiplist:
      return ParseZiplist(blob, &flat) && ToZset(std::move(flat), value);
    case kTypeZsetListpack:
      return ParseListpack(blob, &flat) && ToZset(std::move(flat), value);
    default:
      return false;
  }
}

// LIST_QUICKLIST (ziplist nodes) and LIST_QUICKLIST_2 (plain or listpack
// nodes). Empty nodes add nothing.
bool ReadQuicklist(uint8_t type, Cursor* in, RdbValue* value) {
  uint64_t nodes = 0;
  if (!ReadPlainLength(in, &nodes) || nodes > in->remaining()) return false;
  value->kind = RdbValue::Kind::kList;
  for (uint64_t i = 0; i < nodes; ++i) {
    uint64_t container = kQuicklistPacked;
    if (type == kTypeListQuicklist2 && !ReadPlainLength(in, &container)) {
      return false;
    }
    std::string blob;
    if (!ReadRdbString(in, &blob)) return false;
    if (container == kQuicklistPlain) {
      value->elements.push_back(std::move(blob));
      continue;
    }
    if (container != kQuicklistPacked) return false;
    const bool ok = type == kTypeListQuicklist2
                        ? ParseListpack(blob, &value->elements)
                        : ParseZiplist(blob, &value->elements);
    if (!ok) return false;
  }
  return true;
}

// Whether type byte `type` is one whose object is a ziplist, listpack or
// intset blob.
bool IsPackedType(uint8_t type) {
  switch (type) {
    case kTypeListZiplist:
    case kTypeSetIntset:
    case kTypeZsetZiplist:
    case kTypeHashZiplist:
    case kTypeHashListpack:
    case kTypeZsetListpack:
    case kTypeSetListpack:
      return true;
    default:
      return false;
  }
}

// The object that follows type byte `type`.
bool ReadObject(uint8_t type, Cursor* in, RdbValue* value) {
  if (IsPackedType(type)) return ReadPackedObject(type, in, value);
  std::vector<std::string> flat;
  switch (type) {
    case kTypeString:
      value->kind = RdbValue::Kind::kString;
      return ReadRdbString(in, &value->string);
    case kTypeList:
    case kTypeSet:
      value->kind =
          type == kTypeList ? RdbValue::Kind::kList : RdbValue::Kind::kSet;
      return ReadStrings(in, 1, &value->elements);
    case kTypeHash:
      return ReadStrings(in, 2, &flat) && ToHash(std::move(flat), value);
    case kTypeZset:
    case kTypeZset2:
      return ReadZset(type, in, value);
    case kTypeListQuicklist:
    case kTypeListQuicklist2:
      return ReadQuicklist(type, in, value);
    default:  // zipmap, modules, streams, hashes with field TTLs, unknown
      return false;
  }
}

template <typename Items, typename KeyOf>
bool AllDistinct(const Items& items, KeyOf key_of) {
  absl::flat_hash_set<absl::string_view> seen;
  seen.reserve(items.size());
  for (const auto& item : items) {
    if (!seen.insert(key_of(item)).second) return false;
  }
  return true;
}

// What Redis refuses to hold: an empty collection, or one with a member
// (set, zset) or field (hash) twice.
bool IsValidValue(const RdbValue& value) {
  switch (value.kind) {
    case RdbValue::Kind::kString:
      return true;
    case RdbValue::Kind::kList:
      return !value.elements.empty();
    case RdbValue::Kind::kSet:
      return !value.elements.empty() &&
             AllDistinct(
                 value.elements,
                 [](const std::string& s) -> absl::string_view { return s; });
    case RdbValue::Kind::kZset:
      return !value.zset.empty() &&
             AllDistinct(value.zset, [](const auto& p) -> absl::string_view {
               return p.first;
             });
    case RdbValue::Kind::kHash:
      return !value.hash.empty() &&
             AllDistinct(value.hash, [](const auto& p) -> absl::string_view {
               return p.first;
             });
  }
  return false;
}

}  // namespace

uint64_t RedisCrc64(uint64_t crc, absl::string_view data) {
  for (char c : data) {
    crc = kCrc64Table[(crc ^ static_cast<uint8_t>(c)) & 0xff] ^ (crc >> 8);
  }
  return crc;
}

std::string EncodeDumpPayload(const RdbValue& value) {
  std::string out;
  switch (value.kind) {
    case RdbValue::Kind::kString:
      out.push_back(kTypeString);
      AppendRdbString(value.string, &out);
      break;
    case RdbValue::Kind::kList:
    case RdbValue::Kind::kSet:
      out.push_back(value.kind == RdbValue::Kind::kList ? kTypeList : kTypeSet);
      AppendLength(value.elements.size(), &out);
      for (const std::string& e : value.elements) AppendRdbString(e, &out);
      break;
    case RdbValue::Kind::kHash:
      out.push_back(kTypeHash);
      AppendLength(value.hash.size(), &out);
      for (const auto& [field, v] : value.hash) {
        AppendRdbString(field, &out);
        AppendRdbString(v, &out);
      }
      break;
    case RdbValue::Kind::kZset:
      out.push_back(kTypeZset2);
      AppendLength(value.zset.size(), &out);
      for (const auto& [member, score] : value.zset) {
        AppendRdbString(member, &out);
        uint64_t bits = 0;
        std::memcpy(&bits, &score, sizeof(bits));
        AppendLittleEndian(bits, 8, &out);
      }
      break;
  }
  AppendLittleEndian(kEncodeRdbVersion, 2, &out);
  AppendLittleEndian(RedisCrc64(0, out), 8, &out);
  return out;
}

absl::StatusOr<RdbValue> DecodeDumpPayload(absl::string_view payload) {
  if (payload.size() < kFooterSize) {
    return absl::DataLossError(kDumpPayloadVersionOrChecksum);
  }
  const absl::string_view body =
      payload.substr(0, payload.size() - kFooterSize);
  const uint64_t version = LoadLittleEndian(payload.substr(body.size(), 2));
  const uint64_t crc = LoadLittleEndian(payload.substr(body.size() + 2));
  if (version == 0 || version > kMaxRdbVersion ||
      crc != RedisCrc64(0, payload.substr(0, body.size() + 2))) {
    return absl::DataLossError(kDumpPayloadVersionOrChecksum);
  }
  Cursor in(body);
  uint8_t type = 0;
  RdbValue value;
  if (!in.Byte(&type) || !ReadObject(type, &in, &value) ||
      in.remaining() != 0 || !IsValidValue(value)) {
    return absl::InvalidArgumentError(kBadDataFormat);
  }
  return value;
}

}  // namespace trackdb::types
