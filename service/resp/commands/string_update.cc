#include "service/resp/commands/string_update.h"

#include "model/clock.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/key_type.h"

namespace trackdb::resp {

bool UpdateStringsFor(CommandContext& ctx, absl::Span<const std::string> names,
                      int64_t now_ms, const DecideFn& decide) {
  bool declined = false;
  absl::Status s = ctx.store().UpdateStrings(
      names, now_ms, [&](StringSlots* values) -> absl::Status {
        absl::StatusOr<bool> write = decide(*values);
        if (!write.ok()) return write.status();
        if (!*write) {
          declined = true;
          return absl::AbortedError("nothing to write");
        }
        return absl::OkStatus();
      });
  if (declined) return true;
  return ctx.Check(s);
}

void DeferredReply::Send(Reply& reply) const {
  switch (kind_) {
    case kStatus:
      return reply.Status(text_);
    case kNull:
      return reply.Null();
    case kBulk:
      return reply.Bulk(text_);
    case kInteger:
      return reply.Integer(integer_);
    case kError:
      return reply.Error(text_);
    case kNone:
      return reply.Error("internal error: command decided no reply");
  }
}

absl::StatusOr<bool> AnswerWrongTypeIfGeo(storage::TrackStore& store,
                                          absl::string_view name,
                                          DeferredReply& answer) {
  absl::StatusOr<bool> other = types::HoldsNonString(store, name, NowMs());
  if (other.ok() && *other) answer.Error(kWrongTypeError);
  return other;
}

}  // namespace trackdb::resp
