#include "service/resp/key_access.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "service/resp/common.h"

namespace trackdb::resp {

absl::string_view CWord(absl::string_view arg) {
  const size_t nul = arg.find('\0');
  return nul == absl::string_view::npos ? arg : arg.substr(0, nul);
}

bool IsWord(absl::string_view arg, absl::string_view word) {
  return absl::EqualsIgnoreCase(CWord(arg), word);
}

absl::StatusOr<bool> IsGeoKey(storage::TrackStore& store,
                              absl::string_view name) {
  absl::StatusOr<int64_t> size = store.CollectionSize(name);
  if (!size.ok()) return size.status();
  return *size > 0;
}

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

void ReplyInvalidExpire(CommandContext& ctx, absl::string_view command) {
  ctx.reply.Error(
      absl::StrCat("invalid expire time in '", command, "' command"));
}

absl::StatusOr<bool> AnswerWrongTypeIfGeo(storage::TrackStore& store,
                                          absl::string_view name,
                                          DeferredReply& answer) {
  absl::StatusOr<bool> geo = IsGeoKey(store, name);
  if (geo.ok() && *geo) answer.Error(kWrongTypeError);
  return geo;
}

}  // namespace trackdb::resp
