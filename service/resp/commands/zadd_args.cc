#include "service/resp/commands/zadd_args.h"

#include <cmath>
#include <string>

#include "service/resp/dispatch/option_words.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/redis_number.h"

namespace trackdb::resp {
namespace {

// NX, XX, CH, INCR, GT and LT: whether `word` is one (recorded in `req`).
bool ParseZAddFlag(const std::string& word, ZAddRequest* req) {
  if (IsWord(word, "nx")) {
    req->nx = true;
  } else if (IsWord(word, "xx")) {
    req->xx = true;
  } else if (IsWord(word, "ch")) {
    req->ch = true;
  } else if (IsWord(word, "incr")) {
    req->incr = true;
  } else if (IsWord(word, "gt")) {
    req->gt = true;
  } else if (IsWord(word, "lt")) {
    req->lt = true;
  } else {
    return false;
  }
  return true;
}

// The error for ZADD's flags with `elements` arguments after them, in
// zaddGenericCommand's order of checks; null when there is none.
const char* ZAddFlagsError(const ZAddRequest& req, size_t elements) {
  if (elements % 2 != 0 || elements == 0) return kSyntaxError;
  if (req.nx && req.xx) {
    return "XX and NX options at the same time are not compatible";
  }
  if ((req.gt && req.nx) || (req.lt && req.nx) || (req.gt && req.lt)) {
    return "GT, LT, and/or NX options at the same time are not compatible";
  }
  if (req.incr && elements > 2) {
    return "INCR option supports a single increment-element pair";
  }
  return nullptr;
}

}  // namespace

bool ParseZAddOrReply(CommandContext& ctx, ZAddRequest* req) {
  const auto& argv = ctx.argv;
  size_t& i = req->scoreidx;
  while (i < argv.size() && ParseZAddFlag(argv[i], req)) ++i;
  if (const char* error = ZAddFlagsError(*req, argv.size() - i)) {
    ctx.reply.Error(error);
    return false;
  }
  for (size_t j = i; j < argv.size(); j += 2) {
    double score = 0;
    if (!types::ParseRedisDouble(argv[j], &score)) {
      ctx.reply.Error(kNotFloatError);
      return false;
    }
    req->scores.push_back(score);
  }
  return true;
}

ZAddOutcome ZAddDecide(const ZAddRequest& req, std::optional<double> current,
                       double score, double* newscore) {
  if (!current) {
    if (req.xx) return ZAddOutcome::kNop;
    *newscore = score;
    return ZAddOutcome::kAdded;
  }
  if (req.nx) return ZAddOutcome::kNop;
  if (req.incr) {
    score += *current;
    if (std::isnan(score)) return ZAddOutcome::kNan;
  }
  if ((req.lt && score >= *current) || (req.gt && score <= *current)) {
    return ZAddOutcome::kNop;
  }
  *newscore = score;
  return score == *current ? ZAddOutcome::kSame : ZAddOutcome::kUpdated;
}

}  // namespace trackdb::resp
