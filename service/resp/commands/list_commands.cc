// List commands: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LMPOP, LLEN,
// LINDEX, LSET, LRANGE, LTRIM, LREM, LINSERT, LPOS, LMOVE, RPOPLPUSH, and
// the blocking BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH.
//
// Each follows Redis 7.0's t_list.c: the same checks in the same order, so
// that replies, errors included, are byte for byte Redis's. Each runs as
// one storage transaction over every key it names (RunTyped).
//
// Layout (storage/format/typed_codec.h): element i of a list is stored at index
// head + i. Pushing or popping at either end, LLEN, LINDEX and LSET are
// point operations; LRANGE and LPOS read a range; LTRIM and a counted pop
// delete what they remove (nothing when the list ends empty: the key goes,
// its elements become garbage). LREM and LINSERT change the middle: they
// read the whole list and rewrite the elements that shift, anchored at the
// end that rewrites fewer: O(N), as Kvrocks's are.
//
// Where they run: pushes, moves and point reads on the loop; LRANGE and
// counted pops on the loop when their arguments bound them to a few
// elements, else on a worker, as LTRIM, LREM, LINSERT and LPOS always are
// (their work follows the list's length).
//
// Blocking: BLPOP and the others wait as blocking_pop.h says; BLMPOP is
// LMPOP that waits. A BLMOVE whose destination holds another type when its
// source gains an element replies WRONGTYPE, as Redis's does.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "model/clock.h"
#include "service/resp/commands/blocking_pop.h"
#include "service/resp/commands/mpop_args.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/pop_waiters.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"

namespace trackdb::resp {
namespace {

using storage::ListSubkey;
using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

constexpr char kNoSuchKeyError[] = "no such key";
constexpr char kIndexOutOfRangeError[] = "index out of range";
constexpr char kCountNotPositiveError[] =
    "value is out of range, must be positive";

enum class End { kLeft, kRight };

absl::Status MissingElement(absl::string_view name) {
  return absl::DataLossError(
      absl::StrCat("list '", name, "' lacks an element its metadata counts"));
}

// ---- Elements ----

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

// How many elements a pop that reads its element from the store reads
// with it, from the same end: the rest of a pipelined run's pops (16 deep
// is common) find theirs already read.
constexpr uint64_t kPopReadAhead = 16;

// Pops one element of a non-empty list; the caller stores `meta`.
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

// Removes `left` elements from the head and `right` from the tail; the
// caller stores `meta`. Removing them all deletes nothing: the key goes.
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

// Visits the stored elements (not this transaction's staged ones) from
// position `pos` towards the tail, or with `reverse` towards the head, as
// (position, element), until `visit` returns false or the list ends.
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

// Up to this many elements are read by their keys in one GetMany (the
// list is contiguous, so they are known), which mostly answers from the
// typed cache; more by one scan, which pays for its iterator once.
constexpr uint64_t kMaxElementsByKey = 512;

// `count` elements from position `first` on (with `reverse`, down).
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

// Stores `now` as the list's elements where `was` were, both in list
// order: only the positions whose element changes are written, with the
// list anchored at its head (the head stays) or at its tail (the tail
// stays), whichever writes fewer. The caller stores `meta`.
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

// ---- Positions and ranges ----

// An index argument (negative from the tail) as a position, if in range.
std::optional<uint64_t> Position(int64_t index, uint64_t size) {
  const int64_t len = static_cast<int64_t>(size);
  if (index < 0) index += len;
  if (index < 0 || index >= len) return std::nullopt;
  return static_cast<uint64_t>(index);
}

struct Span {
  uint64_t first = 0;
  uint64_t count = 0;  // 0: empty
};

// Redis's start/end rule (addListRangeReply, LTRIM).
Span RangeOf(int64_t start, int64_t end, uint64_t size) {
  const int64_t len = static_cast<int64_t>(size);
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (start > end || start >= len) return {};
  if (end >= len) end = len - 1;
  return {static_cast<uint64_t>(start), static_cast<uint64_t>(end - start + 1)};
}

bool ParseEnd(const std::string& arg, End* end) {
  if (IsWord(arg, "left")) {
    *end = End::kLeft;
  } else if (IsWord(arg, "right")) {
    *end = End::kRight;
  } else {
    return false;
  }
  return true;
}

// ---- Push ----

// LPUSH, RPUSH, and with `only_existing` LPUSHX, RPUSHX.
void PushGeneric(CommandContext& ctx, End end, bool only_existing) {
  const std::string name = ctx.Name(ctx.argv[1]);
  bool pushed = false;
  RunOnKey(ctx, name, ValueType::kList, /*create=*/!only_existing,
           [&](TypedTxn& txn, std::optional<TypedMeta>& found, Reply& reply) {
             if (!found) {
               reply.Integer(0);
               return absl::OkStatus();
             }
             TypedMeta& meta = *found;
             for (size_t i = 2; i < ctx.argv.size(); ++i) {
               PushElement(txn, name, meta, ctx.argv[i], end);
             }
             txn.SetMeta(name, meta);
             reply.Integer(static_cast<int64_t>(meta.size));
             pushed = true;
             return absl::OkStatus();
           });
  if (pushed) WakePoppers(ctx, name);
}

void LPush(CommandContext& ctx) { PushGeneric(ctx, End::kLeft, false); }
void RPush(CommandContext& ctx) { PushGeneric(ctx, End::kRight, false); }
void LPushX(CommandContext& ctx) { PushGeneric(ctx, End::kLeft, true); }
void RPushX(CommandContext& ctx) { PushGeneric(ctx, End::kRight, true); }

// LINSERT key BEFORE|AFTER pivot element.
void LInsert(CommandContext& ctx) {
  bool after = false;
  if (IsWord(ctx.argv[2], "after")) {
    after = true;
  } else if (!IsWord(ctx.argv[2], "before")) {
    return ctx.reply.Error(kSyntaxError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kList, [&](Reply& reply) { reply.Integer(0); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        absl::StatusOr<std::vector<std::string>> was = ReadAll(txn, name, meta);
        if (!was.ok()) return was.status();
        auto pivot = std::find(was->begin(), was->end(), ctx.argv[3]);
        if (pivot == was->end()) {
          reply.Integer(-1);
          return absl::OkStatus();
        }
        std::vector<std::string> now = *was;
        now.insert(now.begin() + (pivot - was->begin()) + (after ? 1 : 0),
                   ctx.argv[4]);
        RewriteList(txn, name, meta, *was, now);
        txn.SetMeta(name, meta);
        reply.Integer(static_cast<int64_t>(meta.size));
        return absl::OkStatus();
      });
}

// ---- Pop ----

// LPOP and RPOP: key [count].
// Pops up to `count` elements of `name` at `end`, in pop order, and
// stages the list's new meta when it popped any.
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

void PopGeneric(CommandContext& ctx, End end) {
  if (ctx.argv.size() > 3) {
    return ReplyArityError(ctx, end == End::kLeft ? "lpop" : "rpop");
  }
  const bool has_count = ctx.argv.size() == 3;
  int64_t count = 0;
  if (has_count && (!types::ParseInt64(ctx.argv[2], &count) || count < 0)) {
    return ctx.reply.Error(kCountNotPositiveError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kList,
      [&](Reply& reply) { has_count ? reply.NullArray() : reply.Null(); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        if (!has_count) {
          absl::StatusOr<std::string> value = PopElement(txn, name, meta, end);
          if (!value.ok()) return value.status();
          txn.SetMeta(name, meta);
          reply.Bulk(*value);
          return absl::OkStatus();
        }
        absl::StatusOr<std::vector<std::string>> values =
            PopCounted(txn, name, meta, end, count);
        if (!values.ok()) return values.status();
        reply.Array(values->size());
        for (const std::string& v : *values) reply.Bulk(v);
        return absl::OkStatus();
      });
}

void LPop(CommandContext& ctx) { PopGeneric(ctx, End::kLeft); }
void RPop(CommandContext& ctx) { PopGeneric(ctx, End::kRight); }

// ---- Reads ----

void LLen(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kList, /*create=*/false,
           [&](TypedTxn&, std::optional<TypedMeta>& meta, Reply& reply) {
             reply.Integer(meta ? static_cast<int64_t>(meta->size) : 0);
             return absl::OkStatus();
           });
}

// LINDEX reads the key before its index argument, as Redis does.
void LIndex(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(
      ctx, name, ValueType::kList, /*create=*/false,
      [&](TypedTxn& txn, std::optional<TypedMeta>& meta, Reply& reply) {
        int64_t index = 0;
        if (!meta) {
          reply.Null();
        } else if (!types::ParseInt64(ctx.argv[2], &index)) {
          reply.Error(kNotIntegerError);
        } else if (std::optional<uint64_t> pos = Position(index, meta->size);
                   !pos) {
          reply.Null();
        } else {
          absl::StatusOr<std::string> value =
              ReadElement(txn, name, *meta, *pos);
          if (!value.ok()) return value.status();
          reply.Bulk(*value);
        }
        return absl::OkStatus();
      });
}

void LSet(CommandContext& ctx) {
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(
      ctx, name, ValueType::kList, /*create=*/false,
      [&](TypedTxn& txn, std::optional<TypedMeta>& meta, Reply& reply) {
        int64_t index = 0;
        if (!meta) {
          reply.Error(kNoSuchKeyError);
        } else if (!types::ParseInt64(ctx.argv[2], &index)) {
          reply.Error(kNotIntegerError);
        } else if (std::optional<uint64_t> pos = Position(index, meta->size);
                   !pos) {
          reply.Error(kIndexOutOfRangeError);
        } else {
          txn.Put(name, *meta, ListSubkey(meta->head + *pos), ctx.argv[3]);
          reply.Ok();
        }
        return absl::OkStatus();
      });
}

void LRange(CommandContext& ctx) {
  int64_t start = 0, end = 0;
  if (!types::ParseInt64(ctx.argv[2], &start) ||
      !types::ParseInt64(ctx.argv[3], &end)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kList, [&](Reply& reply) { reply.Array(0); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        const Span span = RangeOf(start, end, meta.size);
        absl::StatusOr<std::vector<std::string>> values =
            ReadElements(txn, name, meta, span.first, span.count, false);
        if (!values.ok()) return values.status();
        reply.Array(values->size());
        for (const std::string& v : *values) reply.Bulk(v);
        return absl::OkStatus();
      });
}

// ---- LPOS ----

struct LposOptions {
  int64_t rank = 1;
  bool has_count = false;
  int64_t count = 0;   // 0: every match
  int64_t maxlen = 0;  // 0: the whole list
};

// A COUNT or MAXLEN value: Redis's getPositiveLongFromObjectOrReply, whose
// one message covers both a bad number and a negative one.
bool ParseNonNegative(const std::string& arg, int64_t* out) {
  return types::ParseInt64(arg, out) && *out >= 0;
}

// The options after key and element; false once it has replied an error.
bool ParseLposOptionsOrReply(CommandContext& ctx, LposOptions* opts) {
  const std::vector<std::string>& argv = ctx.argv;
  for (size_t j = 3; j < argv.size(); ++j) {
    const bool more = j + 1 < argv.size();
    if (IsWord(argv[j], "rank") && more) {
      if (!types::ParseInt64(argv[++j], &opts->rank)) {
        ctx.reply.Error(kNotIntegerError);
        return false;
      }
      if (opts->rank == 0) {
        ctx.reply.Error(
            "RANK can't be zero: use 1 to start from the first match, 2 from "
            "the second ... or use negative to start from the end of the "
            "list");
        return false;
      }
    } else if (IsWord(argv[j], "count") && more) {
      opts->has_count = true;
      if (!ParseNonNegative(argv[++j], &opts->count)) {
        ctx.reply.Error("COUNT can't be negative");
        return false;
      }
    } else if (IsWord(argv[j], "maxlen") && more) {
      if (!ParseNonNegative(argv[++j], &opts->maxlen)) {
        ctx.reply.Error("MAXLEN can't be negative");
        return false;
      }
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

// The positions of the matches LPOS reports. Redis negates a negative
// rank; LLONG_MIN stays negative there, which makes it report from the
// first match from the tail on, with no COUNT limit: kept here.
absl::StatusOr<std::vector<uint64_t>> LposMatches(TypedTxn& txn,
                                                  const std::string& name,
                                                  const TypedMeta& meta,
                                                  absl::string_view element,
                                                  LposOptions opts) {
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

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
void LPos(CommandContext& ctx) {
  LposOptions opts;
  if (!ParseLposOptionsOrReply(ctx, &opts)) return;
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kList, /*create=*/false,
           [&](TypedTxn& txn, std::optional<TypedMeta>& meta,
               Reply& reply) -> absl::Status {
             std::vector<uint64_t> found;
             if (meta) {
               absl::StatusOr<std::vector<uint64_t>> matches =
                   LposMatches(txn, name, *meta, ctx.argv[2], opts);
               if (!matches.ok()) return matches.status();
               found = *std::move(matches);
             }
             if (opts.has_count) {
               reply.Array(found.size());
               for (uint64_t pos : found)
                 reply.Integer(static_cast<int64_t>(pos));
             } else if (found.empty()) {
               reply.Null();
             } else {
               reply.Integer(static_cast<int64_t>(found[0]));
             }
             return absl::OkStatus();
           });
}

// ---- Removal ----

// LREM key count element: count > 0 removes the first count matches from
// the head, < 0 from the tail, 0 all of them.
void LRem(CommandContext& ctx) {
  int64_t count = 0;
  if (!types::ParseInt64(ctx.argv[2], &count)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnExistingKey(
      ctx, name, ValueType::kList, [&](Reply& reply) { reply.Integer(0); },
      [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) -> absl::Status {
        absl::StatusOr<std::vector<std::string>> was = ReadAll(txn, name, meta);
        if (!was.ok()) return was.status();
        const int64_t n = static_cast<int64_t>(was->size());
        // INT64_MIN has no positive counterpart; Redis's negation keeps it
        // negative and never reaches it: every match goes.
        const uint64_t limit =
            count == INT64_MIN
                ? 0
                : static_cast<uint64_t>(count < 0 ? -count : count);
        std::vector<bool> drop(n, false);
        uint64_t removed = 0;
        for (int64_t i = 0; i < n && (limit == 0 || removed < limit); ++i) {
          const int64_t at = count < 0 ? n - 1 - i : i;
          if ((*was)[at] == ctx.argv[3]) {
            drop[at] = true;
            ++removed;
          }
        }
        if (removed > 0) {
          std::vector<std::string> now;
          now.reserve(n - removed);
          for (int64_t i = 0; i < n; ++i) {
            if (!drop[i]) now.push_back((*was)[i]);
          }
          RewriteList(txn, name, meta, *was, now);
          txn.SetMeta(name, meta);
        }
        reply.Integer(static_cast<int64_t>(removed));
        return absl::OkStatus();
      });
}

void LTrim(CommandContext& ctx) {
  int64_t start = 0, end = 0;
  if (!types::ParseInt64(ctx.argv[2], &start) ||
      !types::ParseInt64(ctx.argv[3], &end)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  const std::string name = ctx.Name(ctx.argv[1]);
  RunOnKey(ctx, name, ValueType::kList, /*create=*/false,
           [&](TypedTxn& txn, std::optional<TypedMeta>& found,
               Reply& reply) -> absl::Status {
             if (found) {
               TypedMeta& meta = *found;
               const Span keep = RangeOf(start, end, meta.size);
               const uint64_t left = keep.count == 0 ? meta.size : keep.first;
               const uint64_t right =
                   keep.count == 0 ? 0 : meta.size - keep.first - keep.count;
               if (left + right > 0) {
                 RemoveEnds(txn, name, meta, left, right);
                 txn.SetMeta(name, meta);
               }
             }
             reply.Ok();
             return absl::OkStatus();
           });
}

// ---- Moves ----

// Pops from `src` (whose list is `src_meta`, not empty) at `from` and
// pushes the element onto `dst` at `to`, or replies WRONGTYPE if `dst`
// holds another type. Sets *moved when it moved one.
absl::Status MoveFrom(TypedTxn& txn, Reply& reply, const std::string& src,
                      TypedMeta src_meta, const std::string& dst, End from,
                      End to, bool* moved) {
  std::optional<TypedMeta> dst_meta;
  if (dst != src) {
    absl::StatusOr<TypedKey> key = LookupOrCreate(txn, dst, ValueType::kList);
    if (!key.ok()) return key.status();
    if (key->wrong_type) {
      reply.Error(kWrongTypeError);
      return absl::OkStatus();
    }
    dst_meta = key->meta;
  }
  absl::StatusOr<std::string> value = PopElement(txn, src, src_meta, from);
  if (!value.ok()) return value.status();
  // The same list rotates: its one meta takes the pop and the push.
  TypedMeta& into = dst_meta ? *dst_meta : src_meta;
  PushElement(txn, dst, into, *value, to);
  txn.SetMeta(src, src_meta);
  if (dst_meta) txn.SetMeta(dst, *dst_meta);
  reply.Bulk(*value);
  *moved = true;
  return absl::OkStatus();
}

// LMOVE and RPOPLPUSH: source destination.
void MoveGeneric(CommandContext& ctx, End from, End to) {
  const std::string src = ctx.Name(ctx.argv[1]);
  const std::string dst = ctx.Name(ctx.argv[2]);
  bool moved = false;
  RunTyped(ctx, {src, dst}, [&](TypedTxn& txn, Reply& reply) {
    absl::StatusOr<TypedKey> key = LookupTyped(txn, src, ValueType::kList);
    if (!key.ok()) return key.status();
    if (key->wrong_type) {
      reply.Error(kWrongTypeError);
      return absl::OkStatus();
    }
    if (!key->meta) {
      reply.Null();
      return absl::OkStatus();
    }
    return MoveFrom(txn, reply, src, *key->meta, dst, from, to, &moved);
  });
  if (moved) WakePoppers(ctx, dst);
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT.
void LMove(CommandContext& ctx) {
  End from, to;
  if (!ParseEnd(ctx.argv[3], &from) || !ParseEnd(ctx.argv[4], &to)) {
    return ctx.reply.Error(kSyntaxError);
  }
  MoveGeneric(ctx, from, to);
}

void RPopLPush(CommandContext& ctx) {
  MoveGeneric(ctx, End::kRight, End::kLeft);
}

// ---- Blocking ----

// One try of a blocking list command over `names` (every key it
// touches), in one transaction: replies when done, nothing when it found
// nothing to pop.
using ListTry = std::function<absl::Status(
    TypedTxn& txn, Reply& reply, bool first, const PopWaiters::Ticket& ticket)>;

BlockingTry InOneTransaction(CommandContext& ctx,
                             std::vector<std::string> names, ListTry attempt) {
  return [&ctx, names = std::move(names), attempt = std::move(attempt)](
             Reply& reply, bool first, const PopWaiters::Ticket& ticket) {
    std::string out;
    Reply scratch(&out, reply.protocol());
    absl::Status s = ctx.store().UpdateTyped(
        names, NowMs(),
        [&](TypedTxn& txn) { return attempt(txn, scratch, first, ticket); });
    if (!ctx.Check(s)) return true;
    reply.Encoded(out);
    return !out.empty();
  };
}

// BLPOP and BRPOP: key [key ...] timeout.
void BlockingPop(CommandContext& ctx, End end) {
  const std::optional<absl::Time> deadline =
      ParseDeadlineOrReply(ctx, ctx.argv.back());
  if (!deadline) return;
  std::vector<std::string> names;
  for (size_t j = 1; j + 1 < ctx.argv.size(); ++j) {
    names.push_back(ctx.Name(ctx.argv[j]));
  }
  ListTry pop = [&](TypedTxn& txn, Reply& reply, bool first,
                    const PopWaiters::Ticket& ticket) -> absl::Status {
    for (size_t j = 0; j < names.size(); ++j) {
      absl::StatusOr<TypedKey> key =
          LookupTyped(txn, names[j], ValueType::kList);
      if (!key.ok()) return key.status();
      if (key->wrong_type && first) {
        reply.Error(kWrongTypeError);
        return absl::OkStatus();
      }
      if (!key->meta || !ticket.First(names[j])) continue;
      TypedMeta& meta = *key->meta;
      absl::StatusOr<std::string> value = PopElement(txn, names[j], meta, end);
      if (!value.ok()) return value.status();
      txn.SetMeta(names[j], meta);
      reply.Array(2);
      reply.Bulk(ctx.argv[j + 1]);
      reply.Bulk(*value);
      return absl::OkStatus();
    }
    return absl::OkStatus();
  };
  BlockUntilServed(ctx, PopWaiters::Kind::kList, names, *deadline,
                   InOneTransaction(ctx, names, pop));
}

void BLPop(CommandContext& ctx) { BlockingPop(ctx, End::kLeft); }
void BRPop(CommandContext& ctx) { BlockingPop(ctx, End::kRight); }

// BLMOVE and BRPOPLPUSH, once their arguments are read.
void BlockingMove(CommandContext& ctx, End from, End to, absl::Time deadline) {
  const std::string src = ctx.Name(ctx.argv[1]);
  const std::string dst = ctx.Name(ctx.argv[2]);
  bool moved = false;
  ListTry move = [&](TypedTxn& txn, Reply& reply, bool first,
                     const PopWaiters::Ticket& ticket) -> absl::Status {
    absl::StatusOr<TypedKey> key = LookupTyped(txn, src, ValueType::kList);
    if (!key.ok()) return key.status();
    if (key->wrong_type && first) {
      reply.Error(kWrongTypeError);
      return absl::OkStatus();
    }
    if (!key->meta || !ticket.First(src)) return absl::OkStatus();
    return MoveFrom(txn, reply, src, *key->meta, dst, from, to, &moved);
  };
  BlockUntilServed(ctx, PopWaiters::Kind::kList, {src}, deadline,
                   InOneTransaction(ctx, {src, dst}, move));
  if (moved) WakePoppers(ctx, dst);
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout.
void BLMove(CommandContext& ctx) {
  End from, to;
  if (!ParseEnd(ctx.argv[3], &from) || !ParseEnd(ctx.argv[4], &to)) {
    return ctx.reply.Error(kSyntaxError);
  }
  const std::optional<absl::Time> deadline =
      ParseDeadlineOrReply(ctx, ctx.argv[5]);
  if (deadline) BlockingMove(ctx, from, to, *deadline);
}

// BRPOPLPUSH source destination timeout.
void BRPopLPush(CommandContext& ctx) {
  const std::optional<absl::Time> deadline =
      ParseDeadlineOrReply(ctx, ctx.argv[3]);
  if (deadline) BlockingMove(ctx, End::kRight, End::kLeft, *deadline);
}

// ---- LMPOP, BLMPOP ----

// LMPOP's pop over its keys (`names`: the storage names of argv's keys
// from args.first_key), in one transaction: from the first that holds a
// list (and where `ticket`, if any, is first in line), replying [key,
// [elements]]; WRONGTYPE for a key of another type before it, on a `first`
// try only. False when it found nothing to pop and replied nothing.
absl::StatusOr<bool> MpopOnce(CommandContext& ctx, const MpopArgs& args,
                              const std::vector<std::string>& names, End end,
                              TypedTxn& txn, Reply& reply, bool first,
                              const PopWaiters::Ticket* ticket) {
  for (size_t j = 0; j < names.size(); ++j) {
    absl::StatusOr<TypedKey> key = LookupTyped(txn, names[j], ValueType::kList);
    if (!key.ok()) return key.status();
    if (key->wrong_type && first) {
      reply.Error(kWrongTypeError);
      return true;
    }
    if (!key->meta || (ticket && !ticket->First(names[j]))) continue;
    absl::StatusOr<std::vector<std::string>> values =
        PopCounted(txn, names[j], *key->meta, end, args.count);
    if (!values.ok()) return values.status();
    reply.Array(2);
    reply.Bulk(ctx.argv[args.first_key + j]);
    reply.Array(values->size());
    for (const std::string& v : *values) reply.Bulk(v);
    return true;
  }
  return false;
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count], and with
// `blocking` BLMPOP timeout numkeys ... (its timeout read after the rest,
// as Redis reads it).
void MpopGeneric(CommandContext& ctx, bool blocking) {
  MpopArgs args;
  End end = End::kLeft;
  auto is_end = [&](const std::string& arg) { return ParseEnd(arg, &end); };
  if (!ParseMpopArgsOrReply(ctx, blocking ? 2 : 1, is_end, &args)) return;
  std::optional<absl::Time> deadline = absl::InfinitePast();
  if (blocking) deadline = ParseDeadlineOrReply(ctx, ctx.argv[1]);
  if (!deadline) return;
  std::vector<std::string> names;
  for (size_t j = 0; j < args.keys; ++j) {
    names.push_back(ctx.Name(ctx.argv[args.first_key + j]));
  }
  if (!blocking) {
    return RunTyped(ctx, names, [&](TypedTxn& txn, Reply& reply) {
      absl::StatusOr<bool> replied =
          MpopOnce(ctx, args, names, end, txn, reply, true, nullptr);
      if (!replied.ok()) return replied.status();
      if (!*replied) reply.NullArray();
      return absl::OkStatus();
    });
  }
  ListTry pop = [&](TypedTxn& txn, Reply& reply, bool first,
                    const PopWaiters::Ticket& ticket) {
    return MpopOnce(ctx, args, names, end, txn, reply, first, &ticket).status();
  };
  BlockUntilServed(ctx, PopWaiters::Kind::kList, names, *deadline,
                   InOneTransaction(ctx, names, pop));
}

void LMPop(CommandContext& ctx) { MpopGeneric(ctx, false); }
void BLMPop(CommandContext& ctx) { MpopGeneric(ctx, true); }

// ---- Where they run ----

// LRANGE of a range known small from its arguments alone: both ends on
// one side of the list, close together.
bool SmallRange(const std::vector<std::string>& argv) {
  int64_t start = 0, end = 0;
  if (argv.size() != 4 || !types::ParseInt64(argv[2], &start) ||
      !types::ParseInt64(argv[3], &end)) {
    return false;
  }
  return (start < 0) == (end < 0) && end - start < kLoopMembers;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(list, table) {
  table->Add("lpush", -3, LPush, {"write", "denyoom", "fast"});
  table->Add("rpush", -3, RPush, {"write", "denyoom", "fast"});
  table->Add("lpushx", -3, LPushX, {"write", "denyoom", "fast"});
  table->Add("rpushx", -3, RPushX, {"write", "denyoom", "fast"});
  table->Add("lpop", -2, LPop, {"write", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("rpop", -2, RPop, {"write", "fast"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("llen", 2, LLen, {"readonly", "fast"});
  table->Add("lindex", 3, LIndex, {"readonly"});
  table->Add("lset", 4, LSet, {"write", "denyoom"});
  table->Add("lrange", 4, LRange, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("ltrim", 4, LTrim, {"write"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("lrem", 4, LRem, {"write"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("linsert", 5, LInsert, {"write", "denyoom"}, 1, 1, 1,
             RunsOn::kWorker);
  table->Add("lpos", -3, LPos, {"readonly"}, 1, 1, 1, RunsOn::kWorker);
  table->Add("lmove", 5, LMove, {"write", "denyoom"}, 1, 2, 1);
  table->Add("rpoplpush", 3, RPopLPush, {"write", "denyoom"}, 1, 2, 1);
  // A try of BLPOP, BRPOP, BLMOVE or BRPOPLPUSH pops one element, as LPOP
  // does on the loop; a wait holds no thread (blocking_pop.h).
  table->Add("blpop", -3, BLPop, {"write", "noscript", "blocking"}, 1, -2, 1);
  table->Add("brpop", -3, BRPop, {"write", "noscript", "blocking"}, 1, -2, 1);
  table->Add("lmpop", -4, LMPop, {"write", "movablekeys"}, 0, 0, 0,
             RunsOn::kWorker);
  table->Add("blmpop", -5, BLMPop, {"write", "blocking", "movablekeys"}, 0, 0,
             0, RunsOn::kWorker);
  table->Add("blmove", 6, BLMove, {"write", "denyoom", "noscript", "blocking"},
             1, 2, 1);
  table->Add("brpoplpush", 4, BRPopLPush,
             {"write", "denyoom", "noscript", "blocking"}, 1, 2, 1);
  table->RunOnLoopWhen("lrange", SmallRange);
  table->RunOnLoopWhen("lpop", SmallPopCount);
  table->RunOnLoopWhen("rpop", SmallPopCount);
  AddTypedGroup(table, {"lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop",
                        "llen", "lindex", "lset", "lrange"});
}

}  // namespace trackdb::resp
