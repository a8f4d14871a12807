#include "service/resp/dispatch/command_keys.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cluster/key_slot.h"
#include "service/resp/dispatch/option_words.h"

namespace trackdb::resp {
namespace {

// argv[count_at] keys from argv[count_at + 1] on; false if argv[count_at]
// is not a count of keys that are there.
bool AddCountedKeys(const std::vector<std::string>& argv, size_t count_at,
                    std::vector<absl::string_view>* keys) {
  int64_t count = 0;
  if (count_at >= argv.size() || !absl::SimpleAtoi(argv[count_at], &count) ||
      count <= 0 || static_cast<uint64_t>(count) > argv.size() - count_at - 1) {
    return false;
  }
  for (size_t i = count_at + 1; i <= count_at + count; ++i) {
    keys->push_back(argv[i]);
  }
  return true;
}

// Where the count of keys sits in the commands whose keys follow a count;
// 0 for the others.
size_t KeyCountPosition(const std::string& name) {
  static const auto* const kAt = new absl::flat_hash_map<std::string, size_t>{
      {"zunion", 1},      {"zinter", 1},      {"zdiff", 1},
      {"zintercard", 1},  {"sintercard", 1},  {"lmpop", 1},
      {"zmpop", 1},       {"zunionstore", 2}, {"zinterstore", 2},
      {"zdiffstore", 2},  {"blmpop", 2},      {"bzmpop", 2},
      {"eval", 2},        {"evalsha", 2},     {"eval_ro", 2},
      {"evalsha_ro", 2},
  };
  auto it = kAt->find(name);
  return it == kAt->end() ? 0 : it->second;
}

// Redis's sortGetKeys: the last STORE's key; LIMIT's, GET's and BY's
// arguments are stepped over.
void AddSortStoreKey(const std::vector<std::string>& argv,
                     std::vector<absl::string_view>* keys) {
  std::optional<absl::string_view> store;
  for (size_t i = 2; i < argv.size(); ++i) {
    if (EqualsIgnoreCase(argv[i], "limit")) {
      i += 2;
    } else if (EqualsIgnoreCase(argv[i], "get") ||
               EqualsIgnoreCase(argv[i], "by")) {
      ++i;
    } else if (EqualsIgnoreCase(argv[i], "store") && i + 1 < argv.size()) {
      store = argv[i + 1];
    }
  }
  if (store) keys->push_back(*store);
}

// Redis's migrateGetKeys, for an empty key argument: the keys after KEYS
// (AUTH's and AUTH2's arguments stepped over).
void SetMigrateKeys(const std::vector<std::string>& argv,
                    std::vector<absl::string_view>* keys) {
  keys->clear();
  for (size_t i = 6; i < argv.size(); ++i) {
    if (EqualsIgnoreCase(argv[i], "auth")) {
      ++i;
    } else if (EqualsIgnoreCase(argv[i], "auth2")) {
      i += 2;
    } else if (EqualsIgnoreCase(argv[i], "keys")) {
      keys->assign(argv.begin() + i + 1, argv.end());
      break;
    }
  }
}

// GEORADIUS's source is argv[1] (first_key); STORE and STOREDIST name
// another.
void AddGeoRadiusStoreKeys(const std::vector<std::string>& argv,
                           std::vector<absl::string_view>* keys) {
  for (size_t i = 2; i + 1 < argv.size(); ++i) {
    if (EqualsIgnoreCase(argv[i], "store") ||
        EqualsIgnoreCase(argv[i], "storedist")) {
      keys->push_back(argv[++i]);
    }
  }
}

bool AddMovableKeys(const std::string& name,
                    const std::vector<std::string>& argv,
                    std::vector<absl::string_view>* keys) {
  const size_t count_at = KeyCountPosition(name);
  if (count_at != 0) return AddCountedKeys(argv, count_at, keys);
  if (name == "sort") AddSortStoreKey(argv, keys);
  if (name == "migrate" && argv.size() > 3 && argv[3].empty()) {
    SetMigrateKeys(argv, keys);
  }
  if (name == "georadius" || name == "georadiusbymember") {
    AddGeoRadiusStoreKeys(argv, keys);
  }
  return true;
}

// The refusal of a call or transaction with `keys`, writing or not.
std::string RefusalOfKeys(const cluster::ClusterState& cluster,
                          absl::Span<const absl::string_view> keys,
                          bool write) {
  if (keys.empty()) return "";
  const cluster::Route route = cluster::RouteKeys(*cluster.view(), keys, write);
  if (route.kind == cluster::Route::Kind::kServe) {
    // The last catch-up of a migration of the key's slot: the client retries
    // (redis-py and go-redis do on TRYAGAIN) and finds the slot moved.
    // Dispatch checks again holding the migration's gate.
    if (write && cluster.WritesHeldOff(cluster::KeySlot(keys[0]))) {
      return std::string(kTryAgain);
    }
    return "";
  }
  return absl::StrCat("-", cluster::RouteError(route));
}

}  // namespace

std::string ClusterRefusal(const cluster::ClusterState& cluster,
                           const CommandSpec& spec,
                           const std::vector<std::string>& argv) {
  const std::optional<std::vector<absl::string_view>> keys =
      CommandKeys(spec, argv);
  if (!keys) return "";
  return RefusalOfKeys(cluster, *keys, AccessOf(spec) == auth::Access::kWrite);
}

std::string TransactionClusterRefusal(
    const cluster::ClusterState& cluster, const CommandTable& commands,
    const std::vector<std::vector<std::string>>& queued) {
  std::vector<absl::string_view> keys;
  bool write = false;
  for (const std::vector<std::string>& argv : queued) {
    const CommandSpec* spec = commands.Find(argv[0]);
    if (spec != nullptr) spec = ResolveSubcommand(*spec, argv);
    if (spec == nullptr) continue;
    const std::optional<std::vector<absl::string_view>> call_keys =
        CommandKeys(*spec, argv);
    if (!call_keys) continue;
    keys.insert(keys.end(), call_keys->begin(), call_keys->end());
    write = write || AccessOf(*spec) == auth::Access::kWrite;
  }
  return RefusalOfKeys(cluster, keys, write);
}

std::optional<std::vector<absl::string_view>> CommandKeys(
    const CommandSpec& spec, const std::vector<std::string>& argv) {
  std::vector<absl::string_view> keys;
  const int argc = static_cast<int>(argv.size());
  if (spec.first_key > 0 && spec.key_step > 0) {
    const int last = spec.last_key < 0 ? argc + spec.last_key : spec.last_key;
    for (int i = spec.first_key; i <= last && i < argc; i += spec.key_step) {
      keys.push_back(argv[i]);
    }
  }
  if (HasFlag(spec, "movablekeys") && !AddMovableKeys(spec.name, argv, &keys)) {
    return std::nullopt;
  }
  return keys;
}

}  // namespace trackdb::resp
