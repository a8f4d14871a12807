// CONFIG GET, CONFIG SET and CONFIG RESETSTAT: the settings a client may
// read (a few of Redis's, with trackdb's values) and the ones it may change
// live (requirepass, maxclients, proto-max-bulk-len, timeout,
// slowlog-log-slower-than, slowlog-max-len, the encoding limits that
// OBJECT ENCODING and the encoding-shaped replies follow, the busy-script
// threshold, and the list settings Redis's clients set).
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "conf/security_config.h"
#include "model/glob.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/reply_errors.h"
#include "types/codec/object_encoding.h"
#include "types/codec/redis_number.h"

namespace trackdb::resp {
namespace {

struct ConfigParam {
  const char* name;
  std::function<std::string(const ServerState&)> get;
  // Why `value` cannot be set, in Redis's words ("" if it can); null:
  // immutable.
  std::function<std::string(const ServerState&, const std::string& value)>
      check;
  std::function<void(ServerState&, const std::string& value)> set;
};

// Redis's checks of an integer config: the number, then its range.
std::string CheckInt(const std::string& v, int64_t min, int64_t max) {
  int64_t n = 0;
  if (!types::ParseInt64(v, &n))
    return "argument couldn't be parsed into an integer";
  if (n < min || n > max) {
    return absl::StrCat("argument must be between ", min, " and ", max,
                        " inclusive");
  }
  return "";
}

// The same for a memory config ("64mb").
std::string CheckMemory(const std::string& v, int64_t min) {
  std::optional<int64_t> n;
  if (!types::ParseRedisMemory(v, &n)) return "argument must be a memory value";
  if (!n.has_value() || *n < min) {
    return absl::StrCat("argument must be between ", min, " and ",
                        std::numeric_limits<int64_t>::max(), " inclusive");
  }
  return "";
}

// Protected mode holds after start too: clearing the password of a server
// listening beyond loopback without users would open it to the network.
std::string CheckRequirepass(const ServerState& s, const std::string& v) {
  const v1::ServerConfig& server = s.config().server();
  if (!v.empty() || server.protected_mode() == "no" || s.users().has_users()) {
    return "";
  }
  for (const std::string& address :
       {server.resp_bind_address(), server.grpc_bind_address()}) {
    if (!conf::IsLoopbackAddress(address)) {
      return absl::StrCat(
          "protected mode: trackd listens on ", address,
          ", not a loopback address, and an empty requirepass would leave it "
          "without authentication (server.protected_mode: \"no\" allows "
          "it)");
    }
  }
  return "";
}

constexpr int64_t kMinProtoMaxBulkLen = 1024 * 1024;
constexpr int64_t kMaxMaxclients = 4294967295;  // Redis's unsigned int
constexpr int64_t kMaxTimeout = 2147483647;     // Redis's int

// The settings CONFIG SET changes live.
std::vector<ConfigParam> LiveParams() {
  return {
      {"requirepass",
       [](const ServerState& s) { return s.users().requirepass(); },
       CheckRequirepass,
       [](ServerState& s, const std::string& v) {
         s.users().set_requirepass(v);
       }},
      {"maxclients",
       [](const ServerState& s) {
         return absl::StrCat(s.settings().maxclients);
       },
       [](const ServerState&, const std::string& v) {
         return CheckInt(v, 1, kMaxMaxclients);
       },
       [](ServerState& s, const std::string& v) {
         int64_t n = 0;
         types::ParseInt64(v, &n);
         s.UpdateSettings([&](LiveSettings* l) { l->maxclients = n; });
       }},
      {"proto-max-bulk-len",
       [](const ServerState& s) {
         return absl::StrCat(s.settings().proto_max_bulk_len);
       },
       [](const ServerState&, const std::string& v) {
         return CheckMemory(v, kMinProtoMaxBulkLen);
       },
       [](ServerState& s, const std::string& v) {
         std::optional<int64_t> n;
         types::ParseRedisMemory(v, &n);
         s.UpdateSettings(
             [&](LiveSettings* l) { l->proto_max_bulk_len = n.value(); });
       }},
      {"timeout",
       [](const ServerState& s) {
         return absl::StrCat(s.settings().timeout_s);
       },
       [](const ServerState&, const std::string& v) {
         return CheckInt(v, 0, kMaxTimeout);
       },
       [](ServerState& s, const std::string& v) {
         int64_t n = 0;
         types::ParseInt64(v, &n);
         s.UpdateSettings([&](LiveSettings* l) { l->timeout_s = n; });
       }},
  };
}

// The slow log's (slow_log.h), live too.
std::vector<ConfigParam> SlowlogParams() {
  return {
      {"slowlog-max-len",
       [](const ServerState& s) {
         return absl::StrCat(s.slow_log().max_len());
       },
       [](const ServerState&, const std::string& v) {
         return CheckInt(v, 0, std::numeric_limits<int64_t>::max());
       },
       [](ServerState& s, const std::string& v) {
         int64_t n = 0;
         types::ParseInt64(v, &n);
         s.slow_log().set_max_len(n);
       }},
      {"slowlog-log-slower-than",
       [](const ServerState& s) {
         return absl::StrCat(s.slow_log().slower_than_us());
       },
       [](const ServerState&, const std::string& v) {
         return CheckInt(v, -1, std::numeric_limits<int64_t>::max());
       },
       [](ServerState& s, const std::string& v) {
         int64_t n = 0;
         types::ParseInt64(v, &n);
         s.slow_log().set_slower_than_us(n);
       }},
  };
}

// One of the encoding limits (object_encoding.h), under its Redis 7.0
// name and its old ziplist name; 0..LLONG_MAX as Redis's size_t configs.
std::vector<ConfigParam> EncodingLimitParam(
    const char* name, const char* alias,
    std::atomic<uint64_t> types::EncodingLimits::*limit) {
  ConfigParam p{name,
                [limit](const ServerState&) {
                  return absl::StrCat((types::Limits().*limit).load());
                },
                [](const ServerState&, const std::string& v) {
                  return CheckInt(v, 0, std::numeric_limits<int64_t>::max());
                },
                [limit](ServerState&, const std::string& v) {
                  int64_t n = 0;
                  types::ParseInt64(v, &n);
                  (types::Limits().*limit).store(static_cast<uint64_t>(n));
                }};
  ConfigParam q = p;
  q.name = alias;
  return {p, q};
}

// An integer Redis keeps that changes nothing trackdb answers (lists are
// always quicklists in 7.0), accepted, checked and shown as Redis does.
ConfigParam KeptInt(const char* name, int64_t initial, int64_t min, int64_t max,
                    std::shared_ptr<std::atomic<int64_t>> value) {
  value->store(initial);
  return {name,
          [value](const ServerState&) { return absl::StrCat(value->load()); },
          [min, max](const ServerState&, const std::string& v) {
            return CheckInt(v, min, max);
          },
          [value](ServerState&, const std::string& v) {
            int64_t n = 0;
            types::ParseInt64(v, &n);
            value->store(n);
          }};
}

// Redis's "save": pairs of seconds (>= 1) and changes (>= 0), shown as
// Redis rebuilds them; "" for none. trackdb keeps every acknowledged write
// in its log whatever it says, and takes snapshots (backups) when BGSAVE
// asks: the setting is kept and shown, not acted on.
std::optional<std::string> NormalizedSave(const std::string& v) {
  if (v.empty()) return std::string();
  std::vector<absl::string_view> words =
      absl::StrSplit(v, ' ', absl::SkipEmpty());
  if (words.empty() || words.size() % 2 != 0) return std::nullopt;
  std::vector<std::string> out;
  for (size_t i = 0; i < words.size(); ++i) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(words[i], &n) || n < (i % 2 == 0 ? 1 : 0)) {
      return std::nullopt;
    }
    out.push_back(absl::StrCat(n));
  }
  return absl::StrJoin(out, " ");
}

ConfigParam SaveParam() {
  auto kept = std::make_shared<absl::Mutex>();
  auto value = std::make_shared<std::string>();
  return {"save",
          [kept, value](const ServerState&) {
            absl::MutexLock l(kept.get());
            return *value;
          },
          [](const ServerState&, const std::string& v) {
            return NormalizedSave(v) ? "" : "Invalid save parameters";
          },
          [kept, value](ServerState&, const std::string& v) {
            absl::MutexLock l(kept.get());
            *value = *NormalizedSave(v);
          }};
}

// The encoding limits and the settings Redis's clients and test suites set.
std::vector<ConfigParam> EncodingParams() {
  using L = types::EncodingLimits;
  std::vector<ConfigParam> out;
  for (auto part :
       {EncodingLimitParam("hash-max-listpack-entries",
                           "hash-max-ziplist-entries",
                           &L::hash_max_listpack_entries),
        EncodingLimitParam("hash-max-listpack-value", "hash-max-ziplist-value",
                           &L::hash_max_listpack_value),
        EncodingLimitParam("zset-max-listpack-entries",
                           "zset-max-ziplist-entries",
                           &L::zset_max_listpack_entries),
        EncodingLimitParam("zset-max-listpack-value", "zset-max-ziplist-value",
                           &L::zset_max_listpack_value)}) {
    out.insert(out.end(), part.begin(), part.end());
  }
  out.push_back({"set-max-intset-entries",
                 [](const ServerState&) {
                   return absl::StrCat(types::SetMaxIntsetEntries());
                 },
                 [](const ServerState&, const std::string& v) {
                   return CheckInt(v, 0, std::numeric_limits<int64_t>::max());
                 },
                 [](ServerState&, const std::string& v) {
                   int64_t n = 0;
                   types::ParseInt64(v, &n);
                   types::Limits().set_max_intset_entries.store(n);
                 }});
  out.push_back({"hll-sparse-max-bytes",
                 [](const ServerState&) {
                   return absl::StrCat(
                       types::Limits().hll_sparse_max_bytes.load());
                 },
                 [](const ServerState&, const std::string& v) {
                   return CheckMemory(v, 0);
                 },
                 [](ServerState&, const std::string& v) {
                   std::optional<int64_t> n;
                   types::ParseRedisMemory(v, &n);
                   types::Limits().hll_sparse_max_bytes.store(n.value_or(0));
                 }});
  constexpr int64_t kIntMin = std::numeric_limits<int>::min();
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();
  auto list_size = std::make_shared<std::atomic<int64_t>>();
  for (const char* name : {"list-max-listpack-size", "list-max-ziplist-size"}) {
    out.push_back(KeptInt(name, -2, kIntMin, kIntMax, list_size));
  }
  out.push_back(SaveParam());
  out.push_back(KeptInt("list-compress-depth", 0, 0, kIntMax,
                        std::make_shared<std::atomic<int64_t>>()));
  // How long a script runs before other clients are answered BUSY.
  for (const char* name : {"busy-reply-threshold", "lua-time-limit"}) {
    out.push_back({name,
                   [](const ServerState& s) {
                     return absl::StrCat(s.scripts().busy_threshold_ms.load());
                   },
                   [](const ServerState&, const std::string& v) {
                     return CheckInt(v, 0, kLongMax);
                   },
                   [](ServerState& s, const std::string& v) {
                     int64_t n = 0;
                     types::ParseInt64(v, &n);
                     s.scripts().busy_threshold_ms.store(n);
                   }});
  }
  return out;
}

// Settings CONFIG GET reports and CONFIG SET refuses as immutable.
std::vector<ConfigParam> FixedParams() {
  return {
      {"port", [](const ServerState& s) { return absl::StrCat(s.port); },
       nullptr, nullptr},
      {"bind",
       [](const ServerState& s) {
         return s.config().server().resp_bind_address();
       },
       nullptr, nullptr},
      {"databases", [](const ServerState&) { return std::string("16"); },
       nullptr, nullptr},
      {"dir", [](const ServerState& s) { return s.config().data_dir(); },
       nullptr, nullptr},
      {"appendonly", [](const ServerState&) { return std::string("no"); },
       nullptr, nullptr},
      {"maxmemory", [](const ServerState&) { return std::string("0"); },
       nullptr, nullptr},
      {"io-threads",
       [](const ServerState& s) {
         return absl::StrCat(s.config().server().resp_threads());
       },
       nullptr, nullptr},
  };
}

const std::vector<ConfigParam>& ConfigParams() {
  static const auto* params = [] {
    auto* all = new std::vector<ConfigParam>();
    for (auto part :
         {LiveParams(), SlowlogParams(), EncodingParams(), FixedParams()}) {
      all->insert(all->end(), part.begin(), part.end());
    }
    return all;
  }();
  return *params;
}

void ConfigGet(CommandContext& ctx) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ConfigParam& p : ConfigParams()) {
    for (size_t i = 2; i < ctx.argv.size(); ++i) {
      if (model::GlobMatch(ctx.argv[i], p.name, /*nocase=*/true)) {
        out.emplace_back(p.name, p.get(ctx.server));
        break;
      }
    }
  }
  ctx.reply.Map(out.size());
  for (const auto& [k, v] : out) {
    ctx.reply.Bulk(k);
    ctx.reply.Bulk(v);
  }
}

const ConfigParam* FindConfigParam(absl::string_view name) {
  for (const ConfigParam& p : ConfigParams()) {
    if (absl::EqualsIgnoreCase(p.name, name)) return &p;
  }
  return nullptr;
}

// CONFIG SET name value [name value ...]: all or nothing. Redis's order of
// verdicts: an unknown name first, then the first immutable or repeated
// name (in the words the client wrote), then the first bad value (under
// the parameter's own name).
void ConfigSet(CommandContext& ctx) {
  if ((ctx.argv.size() - 2) % 2 != 0) {
    return ReplyArityError(ctx, "config|set");
  }
  const auto failed = [&](absl::string_view name, absl::string_view why) {
    ctx.reply.Error(
        absl::StrCat("CONFIG SET failed (possibly related to argument '", name,
                     "') - ", why));
  };
  std::vector<std::pair<const ConfigParam*, std::string>> changes;
  for (size_t i = 2; i < ctx.argv.size(); i += 2) {
    if (FindConfigParam(ctx.argv[i]) == nullptr) {
      return ctx.reply.Error(absl::StrCat(
          "Unknown option or number of arguments for CONFIG SET - '",
          ctx.argv[i], "'"));
    }
  }
  for (size_t i = 2; i < ctx.argv.size(); i += 2) {
    const ConfigParam* param = FindConfigParam(ctx.argv[i]);
    if (!param->set) return failed(ctx.argv[i], "can't set immutable config");
    for (const auto& [earlier, unused] : changes) {
      if (earlier == param) return failed(ctx.argv[i], "duplicate parameter");
    }
    changes.emplace_back(param, ctx.argv[i + 1]);
  }
  for (const auto& [param, value] : changes) {
    if (std::string why = param->check(ctx.server, value); !why.empty()) {
      return failed(param->name, why);
    }
  }
  for (const auto& [param, value] : changes) param->set(ctx.server, value);
  ctx.reply.Ok();
}

CommandSpec ConfigCommand() {
  CommandSpec config = CommandWithSubcommands("config");
  const std::vector<std::string> admin = {"admin", "noscript", "loading",
                                          "stale"};
  AddSubcommand(config, {"get", -3, admin}, ConfigGet);
  AddSubcommand(config, {"set", -4, admin}, ConfigSet);
  AddSubcommand(config, {"resetstat", 2, {"admin", "noscript"}},
                [](CommandContext& ctx) {
                  ctx.server.commands_processed = 0;
                  ctx.server.connections_received = 0;
                  ctx.server.rejected_connections = 0;
                  ctx.server.error_stats().Reset();
                  ctx.server.ResetCallStats();
                  ctx.reply.Ok();
                });
  return config;
}

}  // namespace

TRACKDB_RESP_COMMAND_FAMILY(config, table) { table->Add(ConfigCommand()); }

}  // namespace trackdb::resp
