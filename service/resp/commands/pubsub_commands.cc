// Redis pub/sub commands over the server's PubSub (pubsub.h), with Redis's
// replies: one "subscribe" (or "unsubscribe", ...) frame per channel, each
// with the client's count of subscriptions after it. Besides what clients
// PUBLISH, trackd publishes every fence event on channel "fence:<fence
// name>" (fence_publisher.h): `PSUBSCRIBE fence:*` follows them all.
// PUBSUB answers who listens; sharded pub/sub (SSUBSCRIBE, SPUBLISH) is not
// served, so PUBSUB SHARDCHANNELS and SHARDNUMSUB find no subscriber.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/pubsub.h"
#include "service/resp/dispatch/reply_errors.h"

namespace trackdb::resp {
namespace {

void Confirm(CommandContext& ctx, const std::string& kind,
             const std::string* channel, int count) {
  ctx.client.subscriptions = count;
  ctx.client.pattern_subscriptions =
      ctx.server.pubsub().PatternCountOf(ctx.client.id);
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

// PUBSUB CHANNELS [pattern] and SHARDCHANNELS [pattern]. Shard channels
// (SSUBSCRIBE) are not served, so there are none to list or count.
void PubsubChannels(CommandContext& ctx, bool shard) {
  if (ctx.argv.size() > 3) return ReplySubcommandSyntaxError(ctx);
  std::vector<std::string> channels;
  if (!shard) {
    channels = ctx.server.pubsub().Channels(
        ctx.argv.size() == 3 ? std::optional<absl::string_view>(ctx.argv[2])
                             : std::nullopt);
  }
  ctx.reply.Array(channels.size());
  for (const std::string& channel : channels) ctx.reply.Bulk(channel);
}

// PUBSUB NUMSUB [channel ...] and SHARDNUMSUB: each channel and its number
// of subscribers (pattern subscriptions not counted), in the order asked.
void PubsubNumsub(CommandContext& ctx, bool shard) {
  ctx.reply.Array(2 * (ctx.argv.size() - 2));
  for (size_t i = 2; i < ctx.argv.size(); ++i) {
    ctx.reply.Bulk(ctx.argv[i]);
    ctx.reply.Integer(shard ? 0 : ctx.server.pubsub().Subscribers(ctx.argv[i]));
  }
}

void PubsubHelp(CommandContext& ctx) {
  const char* lines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> "
      "(default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, "
      "excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a "
      "<pattern> (default: '*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level "
      "channel(s)",
      "HELP",
      "    Prints this help."};
  ctx.reply.StatusLines(lines);
}

CommandSpec PubsubCommand() {
  CommandSpec pubsub = CommandWithSubcommands("pubsub");
  auto sub = [&](const char* name, int arity, CommandHandler handler) {
    AddSubcommand(pubsub, {name, arity, {"pubsub", "loading", "stale"}},
                  std::move(handler));
  };
  sub("channels", -2, [](CommandContext& ctx) { PubsubChannels(ctx, false); });
  sub("shardchannels", -2,
      [](CommandContext& ctx) { PubsubChannels(ctx, true); });
  sub("numsub", -2, [](CommandContext& ctx) { PubsubNumsub(ctx, false); });
  sub("shardnumsub", -2, [](CommandContext& ctx) { PubsubNumsub(ctx, true); });
  sub("numpat", 2, [](CommandContext& ctx) {
    ctx.reply.Integer(ctx.server.pubsub().Patterns());
  });
  AddSubcommand(pubsub, {"help", 2, {"loading", "stale"}}, PubsubHelp);
  return pubsub;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(pubsub, table) {
  table->Add(PubsubCommand());
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
