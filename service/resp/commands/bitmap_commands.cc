// Bitmaps on string keys, as Redis 7.0: SETBIT, GETBIT, BITCOUNT, BITPOS,
// BITOP, BITFIELD, BITFIELD_RO. Each command parses and checks in Redis's
// order, reads or changes the string in one UpdateStringsFor (atomic
// against every other string command), and replies; the bit arithmetic is
// types/codec/bitmap.h.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "model/clock.h"
#include "service/resp/commands/string_update.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/bitmap.h"
#include "types/codec/redis_number.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

using types::BitfieldType;
using types::BitRange;
using types::Overflow;

constexpr char kBadOffset[] = "bit offset is not an integer or out of range";

// Redis's getBitOffsetFromArgument: an offset in bits, "#n" meaning n
// fields of `bits` where `bits` > 0; below proto-max-bulk-len bytes.
bool ParseBitOffset(CommandContext& ctx, absl::string_view text, int bits,
                    uint64_t* offset) {
  const bool fields = bits > 0 && !text.empty() && text[0] == '#';
  int64_t v = 0;
  if (!types::ParseInt64(text.substr(fields ? 1 : 0), &v) ||
      (fields && __builtin_mul_overflow(v, bits, &v)) || v < 0 ||
      (v >> 3) >= ctx.server.settings().proto_max_bulk_len) {
    ctx.reply.Error(kBadOffset);
    return false;
  }
  *offset = static_cast<uint64_t>(v);
  return true;
}

// The string of `name` for a read: nullopt-valued when absent. Replies
// WRONGTYPE (returning false) for a key of another type, and on a storage
// error.
bool ReadString(CommandContext& ctx, const std::string& name,
                std::optional<std::string>* value) {
  auto v = ctx.store().GetString(name, NowMs());
  if (!ctx.Check(v.status())) return false;
  if (*v) {
    *value = std::move((*v)->value);
    return true;
  }
  absl::StatusOr<bool> other =
      types::HoldsNonString(ctx.store(), name, NowMs());
  if (!ctx.Check(other.status())) return false;
  if (*other) {
    ctx.reply.Error(kWrongTypeError);
    return false;
  }
  return true;
}

// Runs `change` on the string of `name`, created empty if absent (Redis's
// lookupStringObjectForBitCommand), as one update; false once it has
// replied (WRONGTYPE, a storage error).
bool ChangeString(CommandContext& ctx, const std::string& name,
                  const std::function<void(std::string&)>& change) {
  DeferredReply wrong;
  bool refused = false;
  const bool ran = UpdateStringsFor(
      ctx, {name}, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        std::optional<StringValue>& cur = values[0];
        if (!cur) {
          absl::StatusOr<bool> other =
              AnswerWrongTypeIfGeo(ctx.store(), name, wrong);
          if (!other.ok()) return other.status();
          if (*other) {
            refused = true;
            return false;
          }
          cur = StringValue();
        }
        change(cur->value);
        return true;
      });
  if (ran && refused) wrong.Send(ctx.reply);
  return ran && !refused;
}

// ---- SETBIT, GETBIT ----

void Setbit(CommandContext& ctx) {
  uint64_t offset = 0;
  if (!ParseBitOffset(ctx, ctx.argv[2], 0, &offset)) return;
  int64_t on = 0;
  if (!types::ParseInt64(ctx.argv[3], &on) || (on & ~1) != 0) {
    return ctx.reply.Error("bit is not an integer or out of range");
  }
  int old = 0;
  if (ChangeString(ctx, ctx.Name(ctx.argv[1]), [&](std::string& s) {
        old = types::SetBit(&s, offset, static_cast<int>(on));
      })) {
    ctx.reply.Integer(old);
  }
}

void Getbit(CommandContext& ctx) {
  uint64_t offset = 0;
  if (!ParseBitOffset(ctx, ctx.argv[2], 0, &offset)) return;
  std::optional<std::string> s;
  if (!ReadString(ctx, ctx.Name(ctx.argv[1]), &s)) return;
  ctx.reply.Integer(s ? types::GetBit(*s, offset) : 0);
}

// ---- BITCOUNT, BITPOS ----

// argv[at] as BYTE or BIT (in_bits); false once it has replied.
bool ParseUnit(CommandContext& ctx, size_t at, bool* in_bits) {
  if (IsWord(ctx.argv[at], "bit")) {
    *in_bits = true;
  } else if (!IsWord(ctx.argv[at], "byte")) {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  return true;
}

void Bitcount(CommandContext& ctx) {
  std::optional<std::string> s;
  if (!ReadString(ctx, ctx.Name(ctx.argv[1]), &s)) return;
  if (!s) return ctx.reply.Integer(0);  // before the range, as Redis 7.0
  const size_t argc = ctx.argv.size();
  int64_t start = 0, end = -1;
  bool in_bits = false;
  if (argc == 4 || argc == 5) {
    if (!types::ParseInt64(ctx.argv[2], &start) ||
        !types::ParseInt64(ctx.argv[3], &end)) {
      return ctx.reply.Error(kNotIntegerError);
    }
    if (argc == 5 && !ParseUnit(ctx, 4, &in_bits)) return;
  } else if (argc != 2) {
    return ctx.reply.Error(kSyntaxError);
  }
  const std::optional<BitRange> range =
      types::NormalizeRange(start, end, s->size(), in_bits, true);
  ctx.reply.Integer(range ? types::CountBits(*s, *range) : 0);
}

// BITPOS's range arguments (argv[3] on); false once it has replied.
struct PosRange {
  int64_t start = 0;
  int64_t end = -1;
  bool in_bits = false;
  bool end_given = false;
};
bool ParsePosRange(CommandContext& ctx, PosRange* r) {
  const size_t argc = ctx.argv.size();
  if (argc == 3) return true;
  if (argc > 6) {
    ctx.reply.Error(kSyntaxError);
    return false;
  }
  if (!types::ParseInt64(ctx.argv[3], &r->start)) {
    ctx.reply.Error(kNotIntegerError);
    return false;
  }
  if (argc == 6 && !ParseUnit(ctx, 5, &r->in_bits)) return false;
  if (argc >= 5) {
    if (!types::ParseInt64(ctx.argv[4], &r->end)) {
      ctx.reply.Error(kNotIntegerError);
      return false;
    }
    r->end_given = true;
  }
  return true;
}

void Bitpos(CommandContext& ctx) {
  int64_t bit = 0;
  if (!types::ParseInt64(ctx.argv[2], &bit)) {
    return ctx.reply.Error(kNotIntegerError);
  }
  if (bit != 0 && bit != 1) {
    return ctx.reply.Error("The bit argument must be 1 or 0.");
  }
  std::optional<std::string> s;
  if (!ReadString(ctx, ctx.Name(ctx.argv[1]), &s)) return;
  // A missing key is an endless run of zeros.
  if (!s) return ctx.reply.Integer(bit ? -1 : 0);
  PosRange r;
  if (!ParsePosRange(ctx, &r)) return;
  const std::optional<BitRange> range =
      types::NormalizeRange(r.start, r.end, s->size(), r.in_bits, false);
  if (!range) return ctx.reply.Integer(-1);
  const int64_t at = types::FindBit(*s, static_cast<int>(bit), *range);
  // No clear bit: past the range, unless the range's end was given (then
  // the bits after it are not the string's zero padding).
  if (at < 0 && bit == 0 && !r.end_given) {
    const uint64_t after =
        r.in_bits ? range->last_bit + 1 : (range->last_bit / 8 + 1) * 8;
    return ctx.reply.Integer(static_cast<int64_t>(after));
  }
  ctx.reply.Integer(at);
}

// ---- BITOP ----

// BITOP's operation word; false once it has replied.
bool ParseBitOperation(CommandContext& ctx, types::BitOperation* op) {
  static const std::pair<const char*, types::BitOperation> kWords[] = {
      {"and", types::BitOperation::kAnd},
      {"or", types::BitOperation::kOr},
      {"xor", types::BitOperation::kXor},
      {"not", types::BitOperation::kNot}};
  for (const auto& [word, value] : kWords) {
    if (IsWord(ctx.argv[1], word)) {
      *op = value;
      if (value == types::BitOperation::kNot && ctx.argv.size() != 4) {
        ctx.reply.Error("BITOP NOT must be called with a single source key.");
        return false;
      }
      return true;
    }
  }
  ctx.reply.Error(kSyntaxError);
  return false;
}

// Sources and destination in one update, each name once: `source_slot[i]`
// is argv[3 + i]'s place in `names`, `dest_slot` the destination's (which
// may be a source's too).
struct BitopNames {
  std::vector<std::string> names;
  std::vector<size_t> source_slot;
  size_t dest_slot = 0;
};
BitopNames NamesOfBitop(CommandContext& ctx) {
  BitopNames out;
  auto slot_of = [&out](std::string name) {
    for (size_t i = 0; i < out.names.size(); ++i) {
      if (out.names[i] == name) return i;
    }
    out.names.push_back(std::move(name));
    return out.names.size() - 1;
  };
  for (size_t i = 3; i < ctx.argv.size(); ++i) {
    out.source_slot.push_back(slot_of(ctx.Name(ctx.argv[i])));
  }
  out.dest_slot = slot_of(ctx.Name(ctx.argv[2]));
  return out;
}

void Bitop(CommandContext& ctx) {
  types::BitOperation op;
  if (!ParseBitOperation(ctx, &op)) return;
  const BitopNames n = NamesOfBitop(ctx);
  const std::string dest = ctx.Name(ctx.argv[2]);
  DeferredReply answer;
  // The destination holds another type (a GEO key, a hash...): replaced
  // after the update, as SET does.
  std::optional<std::string> replace_other;
  const bool ran = UpdateStringsFor(
      ctx, n.names, NowMs(), [&](StringSlots& values) -> absl::StatusOr<bool> {
        std::vector<absl::string_view> views;
        for (size_t slot : n.source_slot) {
          if (!values[slot]) {
            absl::StatusOr<bool> other =
                AnswerWrongTypeIfGeo(ctx.store(), n.names[slot], answer);
            if (!other.ok()) return other.status();
            if (*other) return false;
          }
          views.push_back(values[slot] ? absl::string_view(values[slot]->value)
                                       : absl::string_view());
        }
        std::string result = types::ApplyBitOp(op, views);
        answer.Integer(static_cast<int64_t>(result.size()));
        std::optional<StringValue>& out = values[n.dest_slot];
        if (!out) {
          absl::StatusOr<bool> other =
              types::HoldsNonString(ctx.store(), dest, NowMs());
          if (!other.ok()) return other.status();
          if (*other) {
            replace_other = std::move(result);
            return false;
          }
        }
        // An empty result deletes the destination; a new value has no TTL.
        if (result.empty()) {
          out.reset();
        } else {
          out = StringValue{std::move(result), 0};
        }
        return true;
      });
  if (!ran) return;
  if (replace_other) {
    const std::string names[] = {dest};
    absl::Status s =
        replace_other->empty()
            ? ctx.store().DeleteNames(names, NowMs()).status()
            : ctx.store().ReplaceWithStrings(
                  names, {StringValue{*std::move(replace_other), 0}});
    if (!ctx.Check(s)) return;
  }
  answer.Send(ctx.reply);
}

// ---- BITFIELD, BITFIELD_RO ----

struct FieldOp {
  enum Kind { kGet, kSet, kIncrBy } kind;
  BitfieldType type;
  uint64_t offset;
  int64_t value;  // SET's value, INCRBY's increment
  Overflow overflow;
};

// Redis's getBitfieldTypeFromArgument: i1..i64 or u1..u63.
bool ParseFieldType(CommandContext& ctx, absl::string_view text,
                    BitfieldType* type) {
  int64_t bits = 0;
  // Lower case only, as Redis 7.0 reads them.
  const char c = text.empty() ? '\0' : text[0];
  type->is_signed = c == 'i';
  if ((!type->is_signed && c != 'u') ||
      !types::ParseInt64(text.substr(1), &bits) || bits < 1 ||
      bits > (type->is_signed ? 64 : 63)) {
    ctx.reply.Error(
        "Invalid bitfield type. Use something like i16 u8. Note that u64 is "
        "not supported but i64 is.");
    return false;
  }
  type->bits = static_cast<int>(bits);
  return true;
}

// argv[at] (GET, SET, INCRBY) and its arguments as one op; false once it
// has replied.
bool ParseFieldOp(CommandContext& ctx, size_t at, FieldOp::Kind kind,
                  Overflow overflow, FieldOp* op) {
  op->kind = kind;
  op->overflow = overflow;
  op->value = 0;
  if (!ParseFieldType(ctx, ctx.argv[at + 1], &op->type) ||
      !ParseBitOffset(ctx, ctx.argv[at + 2], op->type.bits, &op->offset)) {
    return false;
  }
  if (kind != FieldOp::kGet &&
      !types::ParseInt64(ctx.argv[at + 3], &op->value)) {
    ctx.reply.Error(kNotIntegerError);
    return false;
  }
  return true;
}

// BITFIELD's subcommands in order, each checked as Redis does; false once
// it has replied.
bool ParseFieldOps(CommandContext& ctx, std::vector<FieldOp>* ops) {
  Overflow overflow = Overflow::kWrap;
  const std::vector<std::string>& argv = ctx.argv;
  for (size_t j = 2; j < argv.size();) {
    const size_t rest = argv.size() - j - 1;
    FieldOp::Kind kind;
    if (IsWord(argv[j], "get") && rest >= 2) {
      kind = FieldOp::kGet;
    } else if (IsWord(argv[j], "set") && rest >= 3) {
      kind = FieldOp::kSet;
    } else if (IsWord(argv[j], "incrby") && rest >= 3) {
      kind = FieldOp::kIncrBy;
    } else if (IsWord(argv[j], "overflow") && rest >= 1) {
      const std::string& w = argv[j + 1];
      if (IsWord(w, "wrap")) {
        overflow = Overflow::kWrap;
      } else if (IsWord(w, "sat")) {
        overflow = Overflow::kSat;
      } else if (IsWord(w, "fail")) {
        overflow = Overflow::kFail;
      } else {
        ctx.reply.Error("Invalid OVERFLOW type specified");
        return false;
      }
      j += 2;
      continue;
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
    if (!ParseFieldOp(ctx, j, kind, overflow, &ops->emplace_back())) {
      return false;
    }
    j += kind == FieldOp::kGet ? 3 : 4;
  }
  return true;
}

// One op on `s` (long enough for every write): its reply, nullopt for an
// overflow under FAIL (nothing written).
std::optional<int64_t> RunFieldOp(const FieldOp& op, std::string* s) {
  const int64_t old = types::GetBitfield(*s, op.offset, op.type);
  if (op.kind == FieldOp::kGet) return old;
  const std::optional<int64_t> now =
      op.kind == FieldOp::kSet
          ? types::AddToBitfield(op.value, 0, op.type, op.overflow)
          : types::AddToBitfield(old, op.value, op.type, op.overflow);
  if (!now) return std::nullopt;
  types::SetBitfield(s, op.offset, op.type, static_cast<uint64_t>(*now));
  return op.kind == FieldOp::kSet ? old : *now;
}

void BitfieldGeneric(CommandContext& ctx, bool read_only_command) {
  std::vector<FieldOp> ops;
  if (!ParseFieldOps(ctx, &ops)) return;
  uint64_t highest = 0;
  bool writes = false;
  for (const FieldOp& op : ops) {
    if (op.kind == FieldOp::kGet) continue;
    writes = true;
    highest = std::max<uint64_t>(highest, op.offset + op.type.bits - 1);
  }
  std::vector<std::optional<int64_t>> results;
  const std::string name = ctx.Name(ctx.argv[1]);
  if (!writes) {
    std::optional<std::string> s;
    if (!ReadString(ctx, name, &s)) return;
    for (const FieldOp& op : ops) {
      results.push_back(types::GetBitfield(s ? *s : "", op.offset, op.type));
    }
  } else if (read_only_command) {
    return ctx.reply.Error("BITFIELD_RO only supports the GET subcommand");
  } else if (!ChangeString(ctx, name, [&](std::string& s) {
               // Room up to the farthest bit written, as Redis makes it.
               if (s.size() <= highest / 8) s.resize(highest / 8 + 1, '\0');
               for (const FieldOp& op : ops) {
                 results.push_back(RunFieldOp(op, &s));
               }
             })) {
    return;
  }
  ctx.reply.Array(results.size());
  for (const std::optional<int64_t>& r : results) {
    if (r) {
      ctx.reply.Integer(*r);
    } else {
      ctx.reply.Null();
    }
  }
}

void Bitfield(CommandContext& ctx) { BitfieldGeneric(ctx, false); }
void BitfieldRo(CommandContext& ctx) { BitfieldGeneric(ctx, true); }

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(bitmap, table) {
  table->Add("setbit", 4, Setbit, {"write", "denyoom"});
  table->Add("getbit", 3, Getbit, {"readonly", "fast"});
  table->Add("bitcount", -2, Bitcount, {"readonly"});
  table->Add("bitpos", -3, Bitpos, {"readonly"});
  table->Add("bitop", -4, Bitop, {"write", "denyoom"}, 2, -1, 1);
  table->Add("bitfield", -2, Bitfield, {"write", "denyoom"});
  table->Add("bitfield_ro", -2, BitfieldRo, {"readonly", "fast"});
}

}  // namespace trackdb::resp
