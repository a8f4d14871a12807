#include "service/resp/commands/typed_zset.h"

#include <string>
#include <utility>
#include <vector>

#include "model/clock.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"
#include "types/key_type.h"

namespace trackdb::resp {
namespace {

using storage::TypedMeta;
using storage::TypedTxn;
using storage::ValueType;

// LIMIT's offset and count; false once it has replied an error.
bool ParseLimitOrReply(CommandContext& ctx, const std::string& offset,
                       const std::string& count, types::RangeRequest* req) {
  if (!types::ParseInt64(offset, &req->offset) ||
      !types::ParseInt64(count, &req->limit)) {
    ctx.reply.Error(kNotIntegerError);
    return false;
  }
  return true;
}

// The option words from argv[first_option] on, each recorded in `req` as
// ParseRangeOptionsOrReply says; false once it has replied an error.
bool ParseRangeOptionWordsOrReply(CommandContext& ctx, size_t first_option,
                                  bool store, types::RangeRequest* req) {
  const std::vector<std::string>& argv = ctx.argv;
  for (size_t j = first_option; j < argv.size(); ++j) {
    const size_t leftargs = argv.size() - j - 1;
    if (!store && IsWord(argv[j], "withscores")) {
      req->withscores = true;
    } else if (IsWord(argv[j], "limit") && leftargs >= 2) {
      if (!ParseLimitOrReply(ctx, argv[j + 1], argv[j + 2], req)) return false;
      j += 2;
    } else if (req->direction == types::Direction::kAuto &&
               IsWord(argv[j], "rev")) {
      req->direction = types::Direction::kReverse;
    } else if (req->type == types::RangeType::kAuto &&
               IsWord(argv[j], "bylex")) {
      req->type = types::RangeType::kLex;
    } else if (req->type == types::RangeType::kAuto &&
               IsWord(argv[j], "byscore")) {
      req->type = types::RangeType::kScore;
    } else {
      ctx.reply.Error(kSyntaxError);
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<types::ZsetKind> ZsetKindOrReply(CommandContext& ctx,
                                               const std::string& name) {
  absl::StatusOr<types::KeyType> type =
      types::TypeOf(ctx.store(), name, NowMs());
  if (!ctx.Check(type.status())) return std::nullopt;
  switch (*type) {
    case types::KeyType::kNone:
      return types::ZsetKind::kNone;
    case types::KeyType::kGeo:
      return types::ZsetKind::kGeo;
    case types::KeyType::kZset:
      return types::ZsetKind::kTyped;
    default:
      ctx.reply.Error(kWrongTypeError);
      return std::nullopt;
  }
}

void RunOnTypedZset(CommandContext& ctx, const std::string& name,
                    const std::function<void(Reply&)>& absent,
                    const TypedZsetBody& body) {
  RunOnExistingKey(ctx, name, ValueType::kZset, absent,
                   [&](TypedTxn& txn, TypedMeta& meta, Reply& reply) {
                     return body(txn, name, meta, reply);
                   });
}

void RunZsetStore(CommandContext& ctx, const std::vector<std::string>& names,
                  const std::string& dst, const ZsetStoreBody& compute) {
  const std::string replaceable[] = {dst};
  bool stored = false;
  RunTyped(
      ctx, names,
      [&](TypedTxn& txn, Reply& reply) -> absl::Status {
        ZsetResult result;
        if (absl::Status s = compute(txn, reply, &result); !s.ok()) return s;
        if (!result) return absl::OkStatus();  // replied an error
        absl::StatusOr<std::optional<TypedMeta>> meta = txn.Meta(dst);
        if (!meta.ok()) return meta.status();
        // A string or a GEO key goes in the same batch.
        if (absl::Status s = txn.RemoveOtherTypes(dst); !s.ok()) return s;
        types::StageNewZset(txn, dst, meta->has_value(), *result);
        reply.Integer(static_cast<int64_t>(result->size()));
        stored = !result->empty();
        return absl::OkStatus();
      },
      replaceable);
  // A sorted set stored wakes BZPOPMIN and the others waiting for one.
  if (stored) WakePoppers(ctx, dst);
}

bool ParseRangeOptionsOrReply(CommandContext& ctx, size_t first_option,
                              bool store, types::RangeRequest* req) {
  if (!ParseRangeOptionWordsOrReply(ctx, first_option, store, req)) {
    return false;
  }
  if (req->direction == types::Direction::kAuto)
    req->direction = types::Direction::kForward;
  if (req->type == types::RangeType::kAuto) req->type = types::RangeType::kRank;
  req->reverse = req->direction == types::Direction::kReverse;
  if (req->limit != -1 && req->type == types::RangeType::kRank) {
    ctx.reply.Error(
        "syntax error, LIMIT is only supported in combination with either "
        "BYSCORE or BYLEX");
    return false;
  }
  if (req->withscores && req->type == types::RangeType::kLex) {
    ctx.reply.Error(
        "syntax error, WITHSCORES not supported in combination with BYLEX");
    return false;
  }
  return true;
}

bool ParseRangeBoundsOrReply(CommandContext& ctx, size_t min_index,
                             types::RangeRequest* req) {
  size_t minidx = min_index, maxidx = min_index + 1;
  if (req->reverse && req->type != types::RangeType::kRank)
    std::swap(minidx, maxidx);
  const std::string& min = ctx.argv[minidx];
  const std::string& max = ctx.argv[maxidx];
  switch (req->type) {
    case types::RangeType::kRank:
      if (!types::ParseInt64(min, &req->start) ||
          !types::ParseInt64(max, &req->end)) {
        ctx.reply.Error(kNotIntegerError);
        return false;
      }
      return true;
    case types::RangeType::kScore:
      if (!types::ParseScoreRange(min, max, &req->scores)) {
        ctx.reply.Error("min or max is not a float");
        return false;
      }
      return true;
    default:
      if (!types::ParseLexRange(min, max, &req->lex)) {
        ctx.reply.Error("min or max not valid string range item");
        return false;
      }
      return true;
  }
}

void EmitEntry(Reply& reply, const types::ZEntry& entry, bool withscores) {
  if (withscores && reply.protocol() > 2) reply.Array(2);
  reply.Bulk(entry.member);
  if (withscores) reply.Double(entry.score);
}

void EmitEntries(Reply& reply, const std::vector<types::ZEntry>& entries,
                 bool withscores) {
  const size_t per = (withscores && reply.protocol() == 2) ? 2 : 1;
  reply.Array(entries.size() * per);
  for (const types::ZEntry& e : entries) EmitEntry(reply, e, withscores);
}

}  // namespace trackdb::resp
