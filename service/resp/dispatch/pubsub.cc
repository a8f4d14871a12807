#include "service/resp/dispatch/pubsub.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "model/glob.h"

namespace trackdb::resp {

std::string PushFrame(int protocol,
                      const std::vector<const std::string*>& words,
                      int64_t count) {
  const size_t n = words.size() + (count >= 0 ? 1 : 0);
  std::string out = absl::StrCat(protocol >= 3 ? ">" : "*", n, "\r\n");
  for (const std::string* w : words) {
    if (w == nullptr) {
      absl::StrAppend(&out, protocol >= 3 ? "_\r\n" : "$-1\r\n");
    } else {
      absl::StrAppend(&out, "$", w->size(), "\r\n", *w, "\r\n");
    }
  }
  if (count >= 0) absl::StrAppend(&out, ":", count, "\r\n");
  return out;
}

int PubSub::CountLocked(int64_t client) const {
  auto it = clients_.find(client);
  if (it == clients_.end()) return 0;
  return static_cast<int>(it->second.channels.size() +
                          it->second.patterns.size());
}

int PubSub::Subscribe(int64_t client, std::weak_ptr<PushTarget> target,
                      int protocol, const std::string& channel, bool pattern) {
  absl::MutexLock lock(&mu_);
  Subscriber& s = clients_[client];
  s.target = std::move(target);
  s.protocol = protocol;
  (pattern ? s.patterns : s.channels).insert(channel);
  (pattern ? patterns_[channel] : channels_[channel]).insert(client);
  return CountLocked(client);
}

int PubSub::Unsubscribe(int64_t client, const std::string& channel,
                        bool pattern) {
  absl::MutexLock lock(&mu_);
  auto it = clients_.find(client);
  if (it == clients_.end()) return 0;
  (pattern ? it->second.patterns : it->second.channels).erase(channel);
  auto& index = pattern ? patterns_ : channels_;
  auto subscribed = index.find(channel);
  if (subscribed != index.end()) {
    subscribed->second.erase(client);
    if (subscribed->second.empty()) index.erase(subscribed);
  }
  const int left = CountLocked(client);
  if (left == 0) clients_.erase(it);
  return left;
}

std::vector<std::string> PubSub::SubscriptionsOf(int64_t client,
                                                 bool pattern) const {
  absl::MutexLock lock(&mu_);
  auto it = clients_.find(client);
  if (it == clients_.end()) return {};
  const std::set<std::string>& names =
      pattern ? it->second.patterns : it->second.channels;
  return {names.begin(), names.end()};
}

int PubSub::PatternCountOf(int64_t client) const {
  absl::MutexLock lock(&mu_);
  auto it = clients_.find(client);
  return it == clients_.end() ? 0
                              : static_cast<int>(it->second.patterns.size());
}

void PubSub::RemoveClient(int64_t client) {
  std::vector<std::string> channels, patterns;
  {
    absl::MutexLock lock(&mu_);
    auto it = clients_.find(client);
    if (it == clients_.end()) return;
    channels.assign(it->second.channels.begin(), it->second.channels.end());
    patterns.assign(it->second.patterns.begin(), it->second.patterns.end());
  }
  for (const std::string& c : channels) Unsubscribe(client, c, false);
  for (const std::string& p : patterns) Unsubscribe(client, p, true);
}

bool PubSub::Empty() const {
  absl::MutexLock lock(&mu_);
  return clients_.empty();
}

std::vector<std::string> PubSub::Channels(
    std::optional<absl::string_view> pattern) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [channel, ids] : channels_) {
    if (!pattern || model::GlobMatch(*pattern, channel)) out.push_back(channel);
  }
  return out;
}

int PubSub::Subscribers(absl::string_view channel) const {
  absl::MutexLock lock(&mu_);
  auto it = channels_.find(channel);
  return it == channels_.end() ? 0 : static_cast<int>(it->second.size());
}

int PubSub::Patterns() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(patterns_.size());
}

int PubSub::Publish(absl::string_view channel, absl::string_view message) {
  const std::string name(channel), body(message);
  std::vector<std::pair<std::shared_ptr<PushTarget>, std::string>> sends;
  {
    absl::MutexLock lock(&mu_);
    auto add =
        [&](int64_t id,
            const std::string* pattern) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          auto c = clients_.find(id);
          if (c == clients_.end()) return;
          std::shared_ptr<PushTarget> target = c->second.target.lock();
          if (!target) return;  // its connection is closing
          static const std::string kMessage = "message", kPMessage = "pmessage";
          sends.emplace_back(
              std::move(target),
              pattern == nullptr
                  ? PushFrame(c->second.protocol, {&kMessage, &name, &body})
                  : PushFrame(c->second.protocol,
                              {&kPMessage, pattern, &name, &body}));
        };
    if (auto it = channels_.find(channel); it != channels_.end()) {
      for (int64_t id : it->second) add(id, nullptr);
    }
    for (const auto& [pattern, ids] : patterns_) {
      if (!model::GlobMatch(pattern, channel)) continue;
      for (int64_t id : ids) add(id, &pattern);
    }
  }
  for (auto& [target, bytes] : sends) target->Push(std::move(bytes));
  return static_cast<int>(sends.size());
}

}  // namespace trackdb::resp
