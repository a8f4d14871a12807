// SORT and SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...]
// [ASC | DESC] [ALPHA] [STORE destination]: Redis 7.0's sortCommandGeneric
// over a list, set or sorted set (a typed one or a GEO key), with its
// errors in its order, its LIMIT clamping, its comparisons (numbers by
// strtod, ties by the elements' bytes; ALPHA by C-string order, or by
// bytes when storing) and its BY/GET patterns ("#", "prefix*suffix" for a
// string key, "prefix*suffix->field" for a hash field).
//
// Atomicity: a SORT that needs no other key (no BY pattern with '*' to
// sort by, no GET but "#") reads its key and writes its STORE destination
// in one transaction, as Redis does. One that reads BY or GET keys reads
// its key in one transaction, then those keys (each read whole, at that
// moment: their names are only known once the key is read, and taking
// their locks inside the key's transaction could deadlock), then writes
// the destination in another: between the steps, other clients' writes
// may land. Redis Cluster refuses BY and GET patterns for the same
// reason; so does trackd in cluster mode, with Redis 7.0's errors.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "model/clock.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/commands/typed_zset.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/pop_waiters.h"
#include "service/resp/dispatch/reply_errors.h"
#include "storage/track_store.h"
#include "storage/format/typed_codec.h"
#include "types/codec/redis_number.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

struct SortArgs {
  bool desc = false;
  bool alpha = false;
  // BY a pattern without '*': every weight is the same, so nothing sorts.
  bool dontsort = false;
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  std::optional<std::string> by;
  std::vector<std::string> gets;
  std::optional<std::string> store;  // the destination's key
};

// ASC, DESC and ALPHA: whether `word` is one (recorded in `args`).
bool ParseSortOrderWord(const std::string& word, SortArgs* args) {
  if (IsWord(word, "asc")) {
    args->desc = false;
  } else if (IsWord(word, "desc")) {
    args->desc = true;
  } else if (IsWord(word, "alpha")) {
    args->alpha = true;
  } else {
    return false;
  }
  return true;
}

// LIMIT's offset and count; false once it has replied an error.
bool ParseSortLimit(CommandContext& ctx, const std::string& offset,
                    const std::string& count, SortArgs* args) {
  if (!types::ParseInt64(offset, &args->limit_start) ||
      !types::ParseInt64(count, &args->limit_count)) {
    ctx.reply.Error(kNotIntegerError);
    return false;
  }
  return true;
}

// BY's pattern; false once it has replied an error.
bool ParseSortBy(CommandContext& ctx, const std::string& pattern, bool cluster,
                 SortArgs* args) {
  args->by = pattern;
  // strchr: a pattern's '*' counts only before any NUL byte.
  if (std::strchr(args->by->c_str(), '*') == nullptr) {
    args->dontsort = true;
  } else if (cluster) {
    ctx.reply.Error("BY option of SORT denied in Cluster mode.");
    return false;
  }
  return true;
}

// A GET pattern; false once it has replied an error.
bool ParseSortGet(CommandContext& ctx, const std::string& pattern, bool cluster,
                  SortArgs* args) {
  if (cluster) {
    ctx.reply.Error("GET option of SORT denied in Cluster mode.");
    return false;
  }
  args->gets.push_back(pattern);
  return true;
}

// The options from argv[2] on, in Redis's order of checks; false once it
// has replied an error.
bool ParseSortArgs(CommandContext& ctx, bool read_only, SortArgs* args) {
  const std::vector<std::string>& argv = ctx.argv;
  const bool cluster = ctx.server.cluster() != nullptr;
  for (size_t j = 2; j < argv.size(); ++j) {
    const size_t left = argv.size() - j - 1;
    const std::string& word = argv[j];
    if (ParseSortOrderWord(word, args)) continue;
    bool ok = true;
    if (IsWord(word, "limit") && left >= 2) {
      ok = ParseSortLimit(ctx, argv[j + 1], argv[j + 2], args);
      j += 2;
    } else if (!read_only && IsWord(word, "store") && left >= 1) {
      args->store = argv[++j];
    } else if (IsWord(word, "by") && left >= 1) {
      ok = ParseSortBy(ctx, argv[++j], cluster, args);
    } else if (IsWord(word, "get") && left >= 1) {
      ok = ParseSortGet(ctx, argv[++j], cluster, args);
    } else {
      ctx.reply.Error(kSyntaxError);
      ok = false;
    }
    if (!ok) return false;
  }
  return true;
}

// The key being sorted: its elements in its own order (a list's, a
// sorted set's by score; a set's members in byte order).
struct SortSource {
  ValueType type = ValueType::kList;  // a missing key sorts as an empty list
  std::vector<std::string> elements;
};

// `name`'s elements, or nullopt for a key of another type (WRONGTYPE).
absl::StatusOr<std::optional<SortSource>> LoadSortSource(
    storage::TrackStore& store, TypedTxn& txn, const std::string& name) {
  absl::StatusOr<std::optional<TypedMeta>> meta = txn.Meta(name);
  if (!meta.ok()) return meta.status();
  SortSource source;
  if (*meta && (*meta)->type != ValueType::kZset) {
    source.type = (*meta)->type;
    if (source.type == ValueType::kHash) return std::nullopt;
    const bool list = source.type == ValueType::kList;
    absl::Status s =
        txn.Scan(name, **meta, "", "", false,
                 [&](absl::string_view subkey, absl::string_view value) {
                   source.elements.emplace_back(list ? value : subkey);
                   return true;
                 });
    if (!s.ok()) return s;
    return source;
  }
  absl::StatusOr<std::optional<types::ZsetSource>> zset =
      types::LookupZsetSource(store, txn, name, /*sets_allowed=*/false);
  if (!zset.ok()) return zset.status();
  if (!*zset) return std::nullopt;
  if ((*zset)->kind == types::ZsetSource::kNone) return source;
  absl::StatusOr<std::vector<types::ZEntry>> entries =
      types::LoadZsetSource(store, txn, name, **zset);
  if (!entries.ok()) return entries.status();
  source.type = ValueType::kZset;
  for (types::ZEntry& e : *entries)
    source.elements.push_back(std::move(e.member));
  return source;
}

// Where a BY or GET pattern points for one element (lookupKeyByPattern):
// the element itself ("#"), nothing (no '*'), or a key (a string) or a
// key's hash field.
struct PatternRef {
  enum Kind { kSelf, kNothing, kString, kHashField } kind = kNothing;
  std::string key;
  std::string field;
};

PatternRef ResolvePattern(const std::string& pattern,
                          const std::string& element) {
  PatternRef ref;
  // Redis reads the pattern as a C string for "#", '*' and "->", and
  // whole for the lengths.
  const char* spat = pattern.c_str();
  if (spat[0] == '#' && spat[1] == '\0') {
    ref.kind = PatternRef::kSelf;
    return ref;
  }
  const char* star = std::strchr(spat, '*');
  if (star == nullptr) return ref;
  const char* arrow = std::strstr(star + 1, "->");
  size_t field_len = 0;
  if (arrow != nullptr && arrow[2] != '\0') {
    field_len = pattern.size() - static_cast<size_t>(arrow - spat) - 2;
    ref.field = pattern.substr(pattern.size() - field_len);
    ref.kind = PatternRef::kHashField;
  } else {
    ref.kind = PatternRef::kString;
  }
  const size_t prefix_len = static_cast<size_t>(star - spat);
  const size_t suffix_len =
      pattern.size() - prefix_len - 1 - (field_len ? field_len + 2 : 0);
  ref.key = pattern.substr(0, prefix_len) + element +
            pattern.substr(prefix_len + 1, suffix_len);
  return ref;
}

// The hash fields of `refs` at `hash_at` (their hashes' storage names in
// `hashes`, in the same order) into `out`, in one read-only transaction; a
// key that is not a hash gives nothing.
absl::Status ReadHashFields(CommandContext& ctx,
                            absl::Span<const PatternRef> refs,
                            const std::vector<std::string>& hashes,
                            const std::vector<size_t>& hash_at, int64_t now,
                            std::vector<std::optional<std::string>>* out) {
  std::vector<std::string> names = hashes;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return ctx.store().ReadTyped(names, now, [&](TypedTxn& txn) {
    for (size_t j = 0; j < hashes.size(); ++j) {
      absl::StatusOr<std::optional<TypedMeta>> meta = txn.Meta(hashes[j]);
      if (!meta.ok()) return meta.status();
      if (!*meta || (*meta)->type != ValueType::kHash) continue;
      const size_t i = hash_at[j];
      absl::StatusOr<std::optional<std::string>> value =
          txn.Get(hashes[j], **meta, refs[i].field);
      if (!value.ok()) return value.status();
      (*out)[i] = *std::move(value);
    }
    return absl::OkStatus();
  });
}

// The values `refs` point at (one for each of `elements`), in order
// (nullopt: nothing there, or a key of the wrong type), each key read as it
// is now: strings in one read, hash fields in one read-only transaction
// over their hashes.
absl::StatusOr<std::vector<std::optional<std::string>>> LookUp(
    CommandContext& ctx, absl::Span<const PatternRef> refs,
    absl::Span<const std::string> elements) {
  std::vector<std::optional<std::string>> out(refs.size());
  std::vector<std::string> strings;
  std::vector<size_t> string_at;
  std::vector<std::string> hashes;
  std::vector<size_t> hash_at;
  for (size_t i = 0; i < refs.size(); ++i) {
    if (refs[i].kind == PatternRef::kSelf) {
      out[i] = elements[i];
    } else if (refs[i].kind == PatternRef::kString) {
      strings.push_back(ctx.Name(refs[i].key));
      string_at.push_back(i);
    } else if (refs[i].kind == PatternRef::kHashField) {
      hashes.push_back(ctx.Name(refs[i].key));
      hash_at.push_back(i);
    }
  }
  const int64_t now = NowMs();
  if (!strings.empty()) {
    auto values = ctx.store().GetStrings(strings, now);
    if (!values.ok()) return values.status();
    for (size_t j = 0; j < strings.size(); ++j) {
      if ((*values)[j]) out[string_at[j]] = std::move((*values)[j]->value);
    }
  }
  if (hashes.empty()) return out;
  absl::Status s = ReadHashFields(ctx, refs, hashes, hash_at, now, &out);
  if (!s.ok()) return s;
  return out;
}

// Pattern keys read at a time: a read holds their stripes, so a SORT of a
// big key keeps no writer of them waiting for the whole of it.
constexpr size_t kLookUpChunk = 1024;

// What `pattern` gives for each of `elements`.
absl::StatusOr<std::vector<std::optional<std::string>>> LookUpPattern(
    CommandContext& ctx, const std::string& pattern,
    const std::vector<std::string>& elements) {
  std::vector<std::optional<std::string>> out;
  out.reserve(elements.size());
  std::vector<PatternRef> refs;
  for (size_t begin = 0; begin < elements.size(); begin += kLookUpChunk) {
    const absl::Span<const std::string> chunk =
        absl::MakeConstSpan(elements).subspan(begin, kLookUpChunk);
    refs.clear();
    for (const std::string& e : chunk) {
      refs.push_back(ResolvePattern(pattern, e));
    }
    auto values = LookUp(ctx, refs, chunk);
    if (!values.ok()) return values.status();
    for (std::optional<std::string>& v : *values) out.push_back(std::move(v));
  }
  return out;
}

// Whether SORT with `args` reads keys other than the one it sorts.
bool ReadsOtherKeys(const SortArgs& args) {
  if (args.by && !args.dontsort) return true;
  for (const std::string& get : args.gets) {
    const PatternRef::Kind kind = ResolvePattern(get, "").kind;
    if (kind == PatternRef::kString || kind == PatternRef::kHashField) {
      return true;
    }
  }
  return false;
}

// One element being sorted, with what it sorts by.
struct SortItem {
  const std::string* element = nullptr;
  double score = 0;
  const std::string* by = nullptr;  // ALPHA with BY: the weight, if any
};

// Redis's strtod check of a weight: the whole C string a double that is
// neither NaN nor out of range.
bool SortScore(const std::string& text, double* score) {
  char* end = nullptr;
  errno = 0;
  *score = std::strtod(text.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(*score);
}

// sortCompare: < 0 when `a` sorts before `b` (ascending).
int CompareItems(const SortItem& a, const SortItem& b, const SortArgs& args) {
  const bool store = args.store.has_value();
  if (!args.alpha) {
    if (a.score != b.score) return a.score < b.score ? -1 : 1;
    return a.element->compare(*b.element);
  }
  const std::string* x = a.element;
  const std::string* y = b.element;
  if (args.by) {
    if (!a.by || !b.by) return a.by == b.by ? 0 : (a.by ? 1 : -1);
    x = a.by;
    y = b.by;
  }
  // Redis collates with strcoll in its locale, C unless LC_COLLATE says
  // otherwise: strcmp, which stops at a NUL byte.
  return store ? x->compare(*y) : std::strcmp(x->c_str(), y->c_str());
}

// The elements in SORT's order; false once it has replied the weights'
// conversion error.
absl::StatusOr<bool> SortItems(CommandContext& ctx, const SortArgs& args,
                               const std::vector<std::string>& elements,
                               std::vector<const std::string*>* sorted) {
  std::vector<SortItem> items(elements.size());
  for (size_t i = 0; i < elements.size(); ++i) items[i].element = &elements[i];
  std::vector<std::optional<std::string>> weights;
  if (args.by) {
    auto looked_up = LookUpPattern(ctx, *args.by, elements);
    if (!looked_up.ok()) return looked_up.status();
    weights = *std::move(looked_up);
  }
  bool convertible = true;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string* weight =
        args.by ? (weights[i] ? &*weights[i] : nullptr) : &elements[i];
    if (weight == nullptr) continue;
    if (args.alpha) {
      if (args.by) items[i].by = weight;
    } else if (!SortScore(*weight, &items[i].score)) {
      convertible = false;
    }
  }
  if (!convertible) {
    ctx.reply.Error("One or more scores can't be converted into double");
    return false;
  }
  std::stable_sort(items.begin(), items.end(),
                   [&](const SortItem& a, const SortItem& b) {
                     const int cmp = CompareItems(a, b, args);
                     return args.desc ? cmp > 0 : cmp < 0;
                   });
  for (const SortItem& item : items) sorted->push_back(item.element);
  return true;
}

// Redis's LIMIT clamping: the [start, end] positions of the output.
std::pair<int64_t, int64_t> OutputRange(const SortArgs& args, int64_t n) {
  int64_t start = std::min(std::max<int64_t>(args.limit_start, 0), n);
  const int64_t count = std::min(std::max<int64_t>(args.limit_count, -1), n);
  int64_t end = count < 0 ? n - 1 : start + count - 1;
  if (start >= n) {
    start = n - 1;
    end = n - 2;
  }
  if (end >= n) end = n - 1;
  return {start, end};
}

// SORT's output (GET nothing: nullopt), or nullopt once it has replied an
// error.
using SortOutput = std::vector<std::optional<std::string>>;

// The source's elements in SORT's order; false once it has replied the
// weights' conversion error.
absl::StatusOr<bool> OrderElements(CommandContext& ctx, const SortArgs& args,
                                   const SortSource& source,
                                   std::vector<const std::string*>* order) {
  if (!args.dontsort) return SortItems(ctx, args, source.elements, order);
  for (const std::string& e : source.elements) order->push_back(&e);
  // A list or sorted set keeps its order, DESC reversing it.
  if (args.desc && source.type != ValueType::kSet) {
    std::reverse(order->begin(), order->end());
  }
  return true;
}

// What the GET patterns give for each of `picked`: per element, one value
// for each pattern, in the patterns' order.
absl::StatusOr<SortOutput> LookUpGets(CommandContext& ctx,
                                      const std::vector<std::string>& gets,
                                      const std::vector<std::string>& picked) {
  std::vector<SortOutput> columns;
  for (const std::string& get : gets) {
    auto column = LookUpPattern(ctx, get, picked);
    if (!column.ok()) return column.status();
    columns.push_back(*std::move(column));
  }
  SortOutput out;
  for (size_t j = 0; j < picked.size(); ++j) {
    for (SortOutput& column : columns) out.push_back(std::move(column[j]));
  }
  return out;
}

absl::StatusOr<std::optional<SortOutput>> ComputeSort(CommandContext& ctx,
                                                      SortArgs args,
                                                      SortSource source) {
  // A set has no order of its own: stored, it is sorted as ALPHA.
  if (args.dontsort && source.type == ValueType::kSet && args.store) {
    args.dontsort = false;
    args.alpha = true;
    args.by.reset();
  }
  std::vector<const std::string*> order;
  absl::StatusOr<bool> ordered = OrderElements(ctx, args, source, &order);
  if (!ordered.ok()) return ordered.status();
  if (!*ordered) return std::nullopt;
  const auto [start, end] =
      OutputRange(args, static_cast<int64_t>(order.size()));
  std::vector<std::string> picked;
  for (int64_t j = start; j <= end; ++j) picked.push_back(*order[j]);
  if (args.gets.empty()) {
    SortOutput out;
    for (std::string& e : picked) out.emplace_back(std::move(e));
    return out;
  }
  absl::StatusOr<SortOutput> out = LookUpGets(ctx, args.gets, picked);
  if (!out.ok()) return out.status();
  return *std::move(out);
}

// Stages `dst` as a new list of `output` (GET's nothing stored as ""),
// replacing whatever it held; no elements removes it.
absl::Status StageSortStore(TypedTxn& txn, const std::string& dst,
                            const SortOutput& output) {
  if (absl::Status s = txn.RemoveOtherTypes(dst); !s.ok()) return s;
  absl::StatusOr<std::optional<TypedMeta>> old = txn.Meta(dst);
  if (!old.ok()) return old.status();
  if (output.empty()) {
    if (*old) txn.DeleteMeta(dst);
    return absl::OkStatus();
  }
  TypedMeta meta = txn.Create(ValueType::kList);
  for (size_t i = 0; i < output.size(); ++i) {
    txn.Put(dst, meta, storage::ListSubkey(meta.head + i),
            output[i].value_or(""));
  }
  meta.size = output.size();
  txn.SetMeta(dst, meta);
  return absl::OkStatus();
}

void ReplyOutput(Reply& reply, const SortOutput& output) {
  reply.Array(output.size());
  for (const std::optional<std::string>& v : output) {
    v ? reply.Bulk(*v) : reply.Null();
  }
}

// Reads the key, sorts and replies, or stores, in one transaction: for a
// SORT that reads no other key.
void SortInOneTransaction(CommandContext& ctx, const SortArgs& args,
                          const std::string& name) {
  std::vector<std::string> names = {name};
  std::vector<std::string> replaceable;
  if (args.store) {
    replaceable.push_back(ctx.Name(*args.store));
    names.push_back(replaceable.back());
  }
  bool stored = false;
  RunTyped(
      ctx, names,
      [&](TypedTxn& txn, Reply& reply) -> absl::Status {
        auto source = LoadSortSource(ctx.store(), txn, name);
        if (!source.ok()) return source.status();
        if (!*source) {
          reply.Error(kWrongTypeError);
          return absl::OkStatus();
        }
        // No lookups: the only error left is the weights' conversion,
        // replied into `reply` through a context of its own.
        CommandContext inner{ctx.server, ctx.client, ctx.argv, reply, ctx.spec};
        auto output = ComputeSort(inner, args, **std::move(source));
        if (!output.ok() || !*output) return output.status();
        if (!args.store) {
          ReplyOutput(reply, **output);
          return absl::OkStatus();
        }
        absl::Status s = StageSortStore(txn, replaceable[0], **output);
        if (s.ok()) reply.Integer(static_cast<int64_t>((*output)->size()));
        stored = s.ok() && !(*output)->empty();
        return s;
      },
      replaceable);
  // A list stored: a blocking pop waiting on it is served now.
  if (stored) WakePoppers(ctx, replaceable[0]);
}

// The key read in one transaction, its BY and GET keys after it, and the
// destination written in a third (the file comment says why).
void SortInSteps(CommandContext& ctx, const SortArgs& args,
                 const std::string& name) {
  std::optional<SortSource> source;
  RunTyped(ctx, {name}, [&](TypedTxn& txn, Reply& reply) -> absl::Status {
    auto loaded = LoadSortSource(ctx.store(), txn, name);
    if (!loaded.ok()) return loaded.status();
    if (!*loaded) {
      reply.Error(kWrongTypeError);
    } else {
      source = **std::move(loaded);
    }
    return absl::OkStatus();
  });
  if (!source) return;  // replied
  auto output = ComputeSort(ctx, args, *std::move(source));
  if (!ctx.Check(output.status()) || !*output) return;
  if (!args.store) return ReplyOutput(ctx.reply, **output);
  const std::string dst[] = {ctx.Name(*args.store)};
  bool stored = false;
  RunTyped(
      ctx, dst,
      [&](TypedTxn& txn, Reply& reply) {
        absl::Status s = StageSortStore(txn, dst[0], **output);
        if (s.ok()) reply.Integer(static_cast<int64_t>((*output)->size()));
        stored = s.ok() && !(*output)->empty();
        return s;
      },
      dst);
  if (stored) WakePoppers(ctx, dst[0]);
}

void SortCommand(CommandContext& ctx, bool read_only) {
  SortArgs args;
  if (!ParseSortArgs(ctx, read_only, &args)) return;
  const std::string name = ctx.Name(ctx.argv[1]);
  ReadsOtherKeys(args) ? SortInSteps(ctx, args, name)
                       : SortInOneTransaction(ctx, args, name);
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(sort, table) {
  table->Add(
      "sort", -2, [](CommandContext& ctx) { SortCommand(ctx, false); },
      {"write", "denyoom", "movablekeys"}, 1, 1, 1, RunsOn::kWorker);
  table->Add(
      "sort_ro", -2, [](CommandContext& ctx) { SortCommand(ctx, true); },
      {"readonly", "movablekeys"}, 1, 1, 1, RunsOn::kWorker);
}

}  // namespace trackdb::resp
