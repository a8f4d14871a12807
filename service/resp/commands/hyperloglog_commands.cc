// HyperLogLog on string keys, as Redis 7.0: PFADD, PFCOUNT, PFMERGE,
// PFDEBUG and PFSELFTEST. Each command checks in Redis's order, reads and
// changes its strings in one UpdateStringsFor (atomic against every other
// string command), and replies; the representation and the estimate are
// types/codec/hyperloglog.h, byte for byte Redis's.
//
// PFCOUNT of one key caches the estimate in the value, as Redis does (so
// GET shows the same bytes), except on a replica, which writes nothing of
// its own: it answers the estimate without caching it.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "model/clock.h"
#include "service/resp/commands/string_update.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "storage/replication/replication.h"
#include "types/codec/hyperloglog.h"
#include "types/codec/object_encoding.h"

namespace trackdb::resp {
namespace {

size_t SparseMaxBytes() {
  return types::Limits().hll_sparse_max_bytes.load(std::memory_order_relaxed);
}

// The distinct storage names of argv[from..to), in order, and each
// argument's place among them.
struct Names {
  std::vector<std::string> names;
  std::vector<size_t> slot;  // per argument
};
Names DistinctNames(CommandContext& ctx, size_t from, size_t to) {
  Names out;
  for (size_t i = from; i < to; ++i) {
    const std::string name = ctx.Name(ctx.argv[i]);
    size_t at = 0;
    while (at < out.names.size() && out.names[at] != name) ++at;
    if (at == out.names.size()) out.names.push_back(name);
    out.slot.push_back(at);
  }
  return out;
}

// isHLLObjectOrReply for each present value of `slots`, in argument order
// (an absent name holding another type is WRONGTYPE too). False once
// `answer` holds the error.
absl::StatusOr<bool> CheckHlls(CommandContext& ctx, const Names& n,
                               const StringSlots& values,
                               DeferredReply& answer) {
  for (size_t slot : n.slot) {
    if (!values[slot]) {
      absl::StatusOr<bool> other =
          AnswerWrongTypeIfGeo(ctx.store(), n.names[slot], answer);
      if (!other.ok()) return other.status();
      if (*other) return false;
    } else if (!types::IsHll(values[slot]->value)) {
      answer.Error(types::kHllWrongTypeError);
      return false;
    }
  }
  return true;
}

// ---- PFADD ----

void Pfadd(CommandContext& ctx) {
  const Names n = DistinctNames(ctx, 1, 2);  // the key; the rest are elements
  const size_t max_bytes = SparseMaxBytes();
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, n.names, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        absl::StatusOr<bool> ok = CheckHlls(ctx, n, values, answer);
        if (!ok.ok() || !*ok) return ok;
        std::optional<StringValue>& cur = values[0];
        int updated = 0;
        if (!cur) {
          cur = StringValue{types::NewHll(), 0};
          updated = 1;
        }
        for (size_t i = 2; i < ctx.argv.size(); ++i) {
          const int r = types::HllAdd(&cur->value, ctx.argv[i], max_bytes);
          if (r < 0) {
            answer.Error(types::kHllCorruptError);
            return false;
          }
          updated += r;
        }
        if (updated > 0) types::HllMarkStale(&cur->value);
        answer.Integer(updated > 0 ? 1 : 0);
        return updated > 0;
      });
  if (ran) answer.Send(ctx.reply);
}

// ---- PFCOUNT ----

// The estimate of the union of several keys, cached nowhere.
absl::StatusOr<bool> CountUnion(CommandContext& ctx, const Names& n,
                                const StringSlots& values,
                                DeferredReply& answer) {
  types::HllRegisters max{};
  for (const std::optional<StringValue>& v : values) {
    if (v && !types::HllMergeInto(v->value, &max)) {
      answer.Error(types::kHllCorruptError);
      return false;
    }
  }
  answer.Integer(static_cast<int64_t>(types::HllCountRegisters(max)));
  return false;
}

void Pfcount(CommandContext& ctx) {
  const Names n = DistinctNames(ctx, 1, ctx.argv.size());
  const bool cache = !storage::IsReplica(ctx.store());
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, n.names, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        absl::StatusOr<bool> ok = CheckHlls(ctx, n, values, answer);
        if (!ok.ok() || !*ok) return ok;
        if (ctx.argv.size() > 2) return CountUnion(ctx, n, values, answer);
        std::optional<StringValue>& cur = values[0];
        if (!cur) {
          answer.Integer(0);
          return false;
        }
        bool cached = false;
        std::optional<uint64_t> card =
            types::HllCountCaching(&cur->value, &cached);
        if (!card) {
          answer.Error(types::kHllCorruptError);
          return false;
        }
        answer.Integer(static_cast<int64_t>(*card));
        return cached && cache;
      });
  if (ran) answer.Send(ctx.reply);
}

// ---- PFMERGE ----

// Every source's registers into `dest`, Redis's pfmergeCommand: dense if
// any input was.
absl::StatusOr<bool> Merge(const StringSlots& values,
                           std::optional<StringValue>& dest,
                           DeferredReply& answer) {
  types::HllRegisters max{};
  bool use_dense = false;
  for (const std::optional<StringValue>& v : values) {
    if (!v) continue;
    use_dense |= types::HllIsDense(v->value);
    if (!types::HllMergeInto(v->value, &max)) {
      answer.Error(types::kHllCorruptError);
      return false;
    }
  }
  if (!dest) dest = StringValue{types::NewHll(), 0};
  if (use_dense && !types::HllToDense(&dest->value)) {
    answer.Error(types::kHllCorruptError);
    return false;
  }
  const size_t max_bytes = SparseMaxBytes();
  for (int j = 0; j < types::kHllRegisters; ++j) {
    if (max[j] != 0) types::HllSet(&dest->value, j, max[j], max_bytes);
  }
  types::HllMarkStale(&dest->value);
  answer.Ok();
  return true;
}

void Pfmerge(CommandContext& ctx) {
  const Names n = DistinctNames(ctx, 1, ctx.argv.size());
  DeferredReply answer;
  const bool ran = UpdateStringsFor(
      ctx, n.names, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        absl::StatusOr<bool> ok = CheckHlls(ctx, n, values, answer);
        if (!ok.ok() || !*ok) return ok;
        return Merge(values, values[0], answer);
      });
  if (ran) answer.Send(ctx.reply);
}

// ---- PFDEBUG ----

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key. GETREG and TODENSE turn a
// sparse value dense, and keep it so, as Redis does.
struct DebugAnswer {
  DeferredReply reply;
  std::optional<std::string> status;             // ENCODING's
  std::optional<types::HllRegisters> registers;  // GETREG's
};

// One subcommand on the HLL `value`; whether `value` changed.
bool Debug(const std::string& sub, std::string& value, DebugAnswer& out) {
  const bool dense = types::HllIsDense(value);
  if (sub == "encoding") {
    out.status = dense ? "dense" : "sparse";
    return false;
  }
  if (sub == "decode") {
    dense ? out.reply.Error("HLL encoding is not sparse")
          : out.reply.Bulk(types::HllDecodeSparse(value));
    return false;
  }
  if (!dense && !types::HllToDense(&value)) {
    out.reply.Error(types::kHllCorruptError);
    return false;
  }
  if (sub == "getreg") {
    out.registers = types::HllRegistersOf(value);
  } else {
    out.reply.Integer(dense ? 0 : 1);
  }
  return !dense;
}

void Pfdebug(CommandContext& ctx) {
  const std::string sub = absl::AsciiStrToLower(ctx.argv[1]);
  DebugAnswer answer;
  const bool ran = UpdateStringsFor(
      ctx, {ctx.Name(ctx.argv[2])}, NowMs(),
      [&](StringSlots& values) -> absl::StatusOr<bool> {
        std::optional<StringValue>& cur = values[0];
        if (!cur) {
          answer.reply.Error("The specified key does not exist");
          return false;
        }
        if (!types::IsHll(cur->value)) {
          answer.reply.Error(types::kHllWrongTypeError);
          return false;
        }
        if (sub != "getreg" && sub != "decode" && sub != "encoding" &&
            sub != "todense") {
          answer.reply.Error(
              absl::StrCat("Unknown PFDEBUG subcommand '", ctx.argv[1], "'"));
          return false;
        }
        return Debug(sub, cur->value, answer);
      });
  if (!ran) return;
  if (answer.registers) {
    ctx.reply.Array(answer.registers->size());
    for (uint8_t v : *answer.registers) ctx.reply.Integer(v);
  } else if (answer.status) {
    ctx.reply.Status(*answer.status);
  } else {
    answer.reply.Send(ctx.reply);
  }
}

// ---- PFSELFTEST ----

// Redis's self-test: registers keep what is set without touching their
// neighbours, and the estimate of up to 10^7 distinct elements, sparse
// and dense alike, stays within six standard errors.
std::string SelfTest() {
  std::mt19937_64 rng(std::random_device{}());
  std::string dense(types::kHllDenseSize, '\0');
  std::memcpy(dense.data(), "HYLL", 4);
  for (int cycle = 0; cycle < 1000; ++cycle) {
    types::HllRegisters want{};
    for (int i = 0; i < types::kHllRegisters; ++i) want[i] = rng() & 63;
    std::string d = dense;
    for (int i = 0; i < types::kHllRegisters; ++i) {
      if (want[i] != 0) types::HllSet(&d, i, want[i], 0);
    }
    if (types::HllRegistersOf(d) != want) return "TESTFAILED Register";
  }
  std::string sparse = types::NewHll();
  const double relerr = 1.04 / std::sqrt(types::kHllRegisters);
  const uint64_t seed = rng();
  int64_t checkpoint = 1;
  for (uint64_t j = 1; j <= 10000000; ++j) {
    const uint64_t ele = j ^ seed;
    const absl::string_view bytes(reinterpret_cast<const char*>(&ele), 8);
    types::HllAdd(&dense, bytes, 0);
    types::HllAdd(&sparse, bytes, SparseMaxBytes());
    if (static_cast<int64_t>(j) != checkpoint) continue;
    types::HllMarkStale(&dense);
    types::HllMarkStale(&sparse);
    bool cached = false;
    const uint64_t a = *types::HllCountCaching(&dense, &cached);
    if (a != *types::HllCountCaching(&sparse, &cached)) {
      return "TESTFAILED dense/sparse disagree";
    }
    int64_t abserr = std::llabs(checkpoint - static_cast<int64_t>(a));
    int64_t maxerr = std::ceil(relerr * 6 * checkpoint);
    if (j == 10) maxerr = 1;
    if (abserr > maxerr) {
      return absl::StrCat("TESTFAILED Too big error. card:", checkpoint,
                          " abserr:", abserr);
    }
    checkpoint *= 10;
  }
  return "";
}

void Pfselftest(CommandContext& ctx) {
  const std::string failed = SelfTest();
  failed.empty() ? ctx.reply.Status("OK") : ctx.reply.Error(failed);
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(hyperloglog, table) {
  table->Add("pfadd", -2, Pfadd, {"write", "denyoom", "fast"});
  // It may write: the estimate cached (a read-only script may not call it).
  table->Add("pfcount", -2, Pfcount, {"readonly", "may_replicate"}, 1, -1, 1);
  table->Add("pfmerge", -2, Pfmerge, {"write", "denyoom"}, 1, -1, 1);
  table->Add("pfdebug", 3, Pfdebug, {"write", "denyoom", "admin"}, 2, 2, 1);
  table->Add("pfselftest", 1, Pfselftest, {"admin"}, 0, 0, 0, RunsOn::kWorker);
}

}  // namespace trackdb::resp
