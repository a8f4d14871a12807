// Redis pub/sub commands over the server's PubSub (pubsub.h), with Redis's
// replies: one "subscribe" (or "unsubscribe", ...) frame per channel, each
// with the client's count of subscriptions after it. Besides what clients
// PUBLISH, trackd publishes every fence event on channel "fence:<fence
// name>" (fence_publisher.h): `PSUBSCRIBE fence:*` follows them all.

#include <string>
#include <vector>

#include "service/resp/command.h"
#include "service/resp/pubsub.h"

namespace trackdb::resp {
namespace {

void Confirm(CommandContext& ctx, const std::string& kind,
             const std::string* channel, int count) {
  ctx.client.subscriptions = count;
  ctx.reply.Encoded(PushFrame(ctx.client.protocol, {&kind, channel}, count));
}

void SubscribeGeneric(CommandContext& ctx, bool pattern) {
  static const std::string kChannel = "subscribe", kPattern = "psubscribe";
  for (size_t i = 1; i < ctx.argv.size(); ++i) {
    const int count = ctx.server.pubsub().Subscribe(
        ctx.client.id, ctx.client.push, ctx.client.protocol, ctx.argv[i],
        pattern);
    Confirm(ctx, pattern ? kPattern : kChannel, &ctx.argv[i], count);
  }
}

// Without arguments: every channel (or pattern) the client has, or one
// frame with a null name when it has none.
void UnsubscribeGeneric(CommandContext& ctx, bool pattern) {
  static const std::string kChannel = "unsubscribe", kPattern = "punsubscribe";
  const std::string& kind = pattern ? kPattern : kChannel;
  PubSub& pubsub = ctx.server.pubsub();
  std::vector<std::string> names(ctx.argv.begin() + 1, ctx.argv.end());
  if (names.empty()) names = pubsub.SubscriptionsOf(ctx.client.id, pattern);
  if (names.empty()) {
    return Confirm(ctx, kind, nullptr, ctx.client.subscriptions);
  }
  for (const std::string& name : names) {
    Confirm(ctx, kind, &name, pubsub.Unsubscribe(ctx.client.id, name, pattern));
  }
}

void Publish(CommandContext& ctx) {
  ctx.reply.Integer(ctx.server.pubsub().Publish(ctx.argv[1], ctx.argv[2]));
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(pubsub, table) {
  const std::vector<std::string> subscriber = {"pubsub", "noscript", "loading",
                                               "stale"};
  table->Add(
      "subscribe", -2,
      [](CommandContext& ctx) { SubscribeGeneric(ctx, false); }, subscriber, 0,
      0, 0);
  table->Add(
      "psubscribe", -2,
      [](CommandContext& ctx) { SubscribeGeneric(ctx, true); }, subscriber, 0,
      0, 0);
  table->Add(
      "unsubscribe", -1,
      [](CommandContext& ctx) { UnsubscribeGeneric(ctx, false); }, subscriber,
      0, 0, 0);
  table->Add(
      "punsubscribe", -1,
      [](CommandContext& ctx) { UnsubscribeGeneric(ctx, true); }, subscriber, 0,
      0, 0);
  table->Add("publish", 3, Publish, {"pubsub", "loading", "stale", "fast"}, 0,
             0, 0);
}

}  // namespace trackdb::resp
