#include "types/list.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "storage/format/typed_codec.h"

namespace trackdb::types::list {
namespace {

using storage::ListSubkey;
using storage::TypedMeta;
using storage::TypedTxn;

absl::Status MissingElement(absl::string_view name) {
  return absl::DataLossError(
      absl::StrCat("list '", name, "' lacks an element its metadata counts"));
}

// How many elements a pop that reads its element from the store reads
// with it, from the same end: the rest of a pipelined run's pops (16 deep
// is common) find theirs already read.
constexpr uint64_t kPopReadAhead = 16;

// Up to this many elements are read by their keys in one GetMany (the
// list is contiguous, so they are known), which mostly answers from the
// typed cache; more by one scan, which pays for its iterator once.
constexpr uint64_t kMaxElementsByKey = 512;

}  // namespace

absl::StatusOr<std::string> ReadElement(TypedTxn& txn, const std::string& name,
                                        const TypedMeta& meta, uint64_t pos) {
  absl::StatusOr<std::optional<std::string>> value =
      txn.Get(name, meta, ListSubkey(meta.head + pos));
  if (!value.ok()) return value.status();
  if (!*value) return MissingElement(name);
  return **value;
}

void PushElement(TypedTxn& txn, const std::string& name, TypedMeta& meta,
                 absl::string_view value, End end) {
  if (end == End::kLeft) {
    --meta.head;
    txn.Put(name, meta, ListSubkey(meta.head), value);
  } else {
    txn.Put(name, meta, ListSubkey(meta.head + meta.size), value);
  }
  ++meta.size;
}

absl::StatusOr<std::string> PopElement(TypedTxn& txn, const std::string& name,
                                       TypedMeta& meta, End end) {
  const bool left = end == End::kLeft;
  const uint64_t pos = left ? 0 : meta.size - 1;
  // The elements next to it from the same end (a list's elements are its
  // only stored members, by index).
  const size_t ahead = std::min(kPopReadAhead, meta.size) - 1;
  absl::StatusOr<std::optional<std::string>> read = txn.GetReadingAhead(
      name, meta, ListSubkey(meta.head + pos), /*reverse=*/!left, ahead);
  if (!read.ok()) return read.status();
  if (!*read) return MissingElement(name);
  absl::StatusOr<std::string> value = std::move(**read);
  txn.Delete(name, meta, ListSubkey(meta.head + pos));
  if (end == End::kLeft) ++meta.head;
  --meta.size;
  return value;
}

void RemoveEnds(TypedTxn& txn, const std::string& name, TypedMeta& meta,
                uint64_t left, uint64_t right) {
  if (left + right >= meta.size) {
    meta.size = 0;
    return;
  }
  for (uint64_t i = 0; i < left; ++i) {
    txn.Delete(name, meta, ListSubkey(meta.head + i));
  }
  for (uint64_t i = 0; i < right; ++i) {
    txn.Delete(name, meta, ListSubkey(meta.head + meta.size - 1 - i));
  }
  meta.head += left;
  meta.size -= left + right;
}

absl::Status ScanElements(
    TypedTxn& txn, const std::string& name, const TypedMeta& meta, uint64_t pos,
    bool reverse,
    const std::function<bool(uint64_t pos, absl::string_view value)>& visit) {
  if (pos >= meta.size) return absl::OkStatus();
  bool finished = false, gap = false;
  absl::Status s =
      txn.Scan(name, meta, "", ListSubkey(meta.head + pos), reverse,
               [&](absl::string_view subkey, absl::string_view value) {
                 if (subkey != ListSubkey(meta.head + pos)) {
                   gap = true;
                   return false;
                 }
                 const bool more = visit(pos, value);
                 const bool last = reverse ? pos == 0 : pos + 1 == meta.size;
                 if (!more || last) {
                   finished = true;
                   return false;
                 }
                 if (reverse) {
                   --pos;
                 } else {
                   ++pos;
                 }
                 return true;
               });
  if (!s.ok()) return s;
  if (gap || !finished) return MissingElement(name);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ReadElements(
    TypedTxn& txn, const std::string& name, const TypedMeta& meta,
    uint64_t first, uint64_t count, bool reverse) {
  std::vector<std::string> out;
  if (count == 0) return out;
  if (count <= kMaxElementsByKey) {
    std::vector<std::string> subkeys;
    subkeys.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
      subkeys.push_back(
          ListSubkey(meta.head + (reverse ? first - i : first + i)));
    }
    absl::StatusOr<std::vector<std::optional<std::string>>> values =
        txn.GetMany(name, meta, subkeys);
    if (!values.ok()) return values.status();
    out.reserve(values->size());
    for (std::optional<std::string>& v : *values) {
      if (!v) return MissingElement(name);
      out.push_back(*std::move(v));
    }
    return out;
  }
  out.reserve(std::min<uint64_t>(count, 1024));
  absl::Status s = ScanElements(txn, name, meta, first, reverse,
                                [&](uint64_t, absl::string_view value) {
                                  out.emplace_back(value);
                                  return out.size() < count;
                                });
  if (!s.ok()) return s;
  if (out.size() != count) return MissingElement(name);
  return out;
}

void RewriteList(TypedTxn& txn, const std::string& name, TypedMeta& meta,
                 const std::vector<std::string>& was,
                 const std::vector<std::string>& now) {
  const int64_t n = static_cast<int64_t>(was.size());
  const int64_t m = static_cast<int64_t>(now.size());
  if (m == 0) {
    meta.size = 0;
    return;
  }
  // With the new list's first element at old position `shift`: writes
  // (with `write`) or counts the changes.
  auto apply = [&](int64_t shift, bool write) {
    int64_t changes = 0;
    const uint64_t head = meta.head + static_cast<uint64_t>(shift);
    for (int64_t j = 0; j < m; ++j) {
      const int64_t k = j + shift;  // the old position of that index
      if (k >= 0 && k < n && was[k] == now[j]) continue;
      ++changes;
      if (write) txn.Put(name, meta, ListSubkey(head + j), now[j]);
    }
    for (int64_t k = 0; k < n; ++k) {
      if (k - shift >= 0 && k - shift < m) continue;
      ++changes;
      if (write) txn.Delete(name, meta, ListSubkey(meta.head + k));
    }
    return changes;
  };
  const int64_t tail_shift = n - m;
  const int64_t shift =
      apply(tail_shift, false) < apply(0, false) ? tail_shift : 0;
  apply(shift, true);
  meta.head += static_cast<uint64_t>(shift);
  meta.size = static_cast<uint64_t>(m);
}

absl::StatusOr<std::vector<std::string>> ReadAll(TypedTxn& txn,
                                                 const std::string& name,
                                                 const TypedMeta& meta) {
  return ReadElements(txn, name, meta, 0, meta.size, false);
}

std::optional<uint64_t> Position(int64_t index, uint64_t size) {
  const int64_t len = static_cast<int64_t>(size);
  if (index < 0) index += len;
  if (index < 0 || index >= len) return std::nullopt;
  return static_cast<uint64_t>(index);
}

Span RangeOf(int64_t start, int64_t end, uint64_t size) {
  const int64_t len = static_cast<int64_t>(size);
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (start > end || start >= len) return {};
  if (end >= len) end = len - 1;
  return {static_cast<uint64_t>(start), static_cast<uint64_t>(end - start + 1)};
}

void SetElement(TypedTxn& txn, const std::string& name, const TypedMeta& meta,
                uint64_t pos, absl::string_view value) {
  txn.Put(name, meta, ListSubkey(meta.head + pos), value);
}

Ends TrimmedEnds(const Span& keep, uint64_t size) {
  if (keep.count == 0) return {size, 0};
  return {keep.first, size - keep.first - keep.count};
}

std::vector<std::string> WithoutMatches(const std::vector<std::string>& was,
                                        absl::string_view element,
                                        int64_t count) {
  const int64_t n = static_cast<int64_t>(was.size());
  const uint64_t limit =
      count == INT64_MIN ? 0
                         : static_cast<uint64_t>(count < 0 ? -count : count);
  std::vector<bool> drop(n, false);
  uint64_t removed = 0;
  for (int64_t i = 0; i < n && (limit == 0 || removed < limit); ++i) {
    const int64_t at = count < 0 ? n - 1 - i : i;
    if (was[at] == element) {
      drop[at] = true;
      ++removed;
    }
  }
  std::vector<std::string> now;
  now.reserve(n - removed);
  for (int64_t i = 0; i < n; ++i) {
    if (!drop[i]) now.push_back(was[i]);
  }
  return now;
}

absl::StatusOr<std::vector<std::string>> PopCounted(TypedTxn& txn,
                                                    const std::string& name,
                                                    TypedMeta& meta, End end,
                                                    int64_t count) {
  const uint64_t n = std::min<uint64_t>(count, meta.size);
  const bool left = end == End::kLeft;
  absl::StatusOr<std::vector<std::string>> values =
      ReadElements(txn, name, meta, left ? 0 : meta.size - 1, n, !left);
  if (!values.ok()) return values.status();
  RemoveEnds(txn, name, meta, left ? n : 0, left ? 0 : n);
  if (n > 0) txn.SetMeta(name, meta);
  return values;
}

absl::StatusOr<std::vector<uint64_t>> Matches(TypedTxn& txn,
                                              const std::string& name,
                                              const TypedMeta& meta,
                                              absl::string_view element,
                                              PosOptions opts) {
  const bool reverse = opts.rank < 0;
  if (opts.rank == INT64_MIN) {
    opts.rank = 1;
    opts.count = 0;
  } else if (reverse) {
    opts.rank = -opts.rank;
  }
  std::vector<uint64_t> found;
  int64_t scanned = 0, matches = 0;
  absl::Status s = ScanElements(
      txn, name, meta, reverse ? meta.size - 1 : 0, reverse,
      [&](uint64_t pos, absl::string_view value) {
        if (opts.maxlen != 0 && scanned >= opts.maxlen) return false;
        ++scanned;
        if (value != element || ++matches < opts.rank) return true;
        found.push_back(pos);
        if (!opts.has_count) return false;
        return opts.count == 0 || matches - opts.rank + 1 < opts.count;
      });
  if (!s.ok()) return s;
  return found;
}

}  // namespace trackdb::types::list
