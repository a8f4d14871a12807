// RESP commands run as a connection runs them (service/resp/server/resp_server.cc
// Serve): the input is one read from a client, parsed by RequestParser;
// each command goes through Dispatch, and a pipelined run that a command
// serves as a group (GEOADD) through DispatchGroup, against a scratch
// TrackStore that starts empty every few hundred inputs. Each input is a
// new connection of an unauthenticated client to a server without a
// password, as trackd starts by default.
//
// Checked: nothing crashes, and every call is answered by exactly one
// well-formed reply (a missing, doubled or broken reply would
// desynchronise the client's later replies).
//
// Not the event loop, sockets or worker hand-off: those only move the
// same calls between threads, and the TSan tests cover them. Not a
// blocking command's wait either (the server's list waiters are stopped,
// so BLPOP and its kind answer at once when there is nothing to pop).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "conf/config.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/resp_reply_check.h"
#include "fuzz/scratch_store.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/protocol/reply.h"
#include "service/resp/protocol/request_parser.h"

namespace trackdb::fuzz {
namespace {

using resp::ClientState;
using resp::CommandSpec;
using resp::RequestParser;
using resp::ServerState;

// Bounds one input's work, as a read of 16 KiB would.
constexpr int kMaxCommands = 64;

v1::TrackdbConfig FuzzConfig() {
  v1::TrackdbConfig config;
  // proto-max-bulk-len at 1 MiB instead of 512: SETRANGE and APPEND may grow
  // a value to it, and an input that allocates 512 MiB only measures the
  // allocator (and trips libFuzzer's malloc limit).
  config.mutable_server()->set_resp_max_bulk_len(1 << 20);
  return conf::WithDefaults(config);
}

void CheckReplies(absl::string_view out, size_t calls,
                  const std::vector<std::string>& first) {
  std::string why;
  const int n = CountReplies(out, &why);
  FUZZ_CHECK(n >= 0) << "'" << first[0] << "' wrote a malformed reply: " << why;
  FUZZ_CHECK(static_cast<size_t>(n) == calls)
      << "'" << first[0] << "' and " << calls - 1 << " grouped calls wrote "
      << n << " replies";
}

class Connection {
 public:
  Connection(ServerState& state, absl::string_view wire) : state_(state) {
    client_.id = state.NextClientId();
    parser_.Feed(wire);
    const resp::LiveSettings settings = state.settings();
    limits_.max_bulk_len = settings.proto_max_bulk_len;
    limits_.max_multibulk_len =
        state.config().server().resp_max_multibulk_len();
  }
  ~Connection() { state_.RemoveClient(client_.id); }

  void Serve() {
    for (int i = 0; i < kMaxCommands && !client_.close_after_reply; ++i) {
      limits_.authenticated =
          client_.authenticated || !state_.users().auth_required();
      std::vector<std::string> argv;
      if (!Next(&argv)) return;
      // A replica's link connects to the address it is given: no network
      // here (replication_test.py runs it between real processes).
      if (IsCommand(argv, "replicaof") || IsCommand(argv, "slaveof")) continue;
      // A migrating slot's raw keys from a trusted peer: fuzzed ones could
      // plant keys no command writes (the decoder itself is checked by
      // storage's replication_test).
      if (IsCommand(argv, "repl.import")) continue;
      const CommandSpec* group = state_.commands().GroupStartedBy(argv);
      std::string out;
      resp::Reply reply(&out, client_.protocol);
      if (group != nullptr && limits_.authenticated) {
        std::vector<std::vector<std::string>> calls = Gather(*group, argv);
        resp::DispatchGroup(*group, state_, client_, calls, reply);
        CheckReplies(out, calls.size(), argv);
      } else {
        const size_t before = Subscriptions(argv);
        resp::Dispatch(state_, client_, argv, reply);
        // The connection would wait for replicas: none follow here, so
        // WAIT answers at once, as at its timeout.
        if (client_.pending_wait) {
          reply.Integer(
              state_.role().replicas().Acked(client_.pending_wait->sequence));
          client_.pending_wait.reset();
        }
        CheckReplies(out, RepliesExpected(argv, out, before), argv);
      }
      state_.PublishClient(client_);
    }
  }

 private:
  static bool IsCommand(const std::vector<std::string>& argv,
                        absl::string_view name) {
    return absl::EqualsIgnoreCase(argv[0], name);
  }

  // The channels (for UNSUBSCRIBE) or patterns (PUNSUBSCRIBE) the client
  // has before the call.
  size_t Subscriptions(const std::vector<std::string>& argv) const {
    const bool pattern = IsCommand(argv, "punsubscribe");
    if (!pattern && !IsCommand(argv, "unsubscribe")) return 0;
    return state_.pubsub().SubscriptionsOf(client_.id, pattern).size();
  }

  // One reply per call, except Redis's subscribe family, which answers
  // each channel (UNSUBSCRIBE without one: each it had, or one null).
  static size_t RepliesExpected(const std::vector<std::string>& argv,
                                absl::string_view out, size_t before) {
    if (out.empty() || out[0] == '-') return 1;
    if (IsCommand(argv, "subscribe") || IsCommand(argv, "psubscribe")) {
      return argv.size() - 1;
    }
    if (IsCommand(argv, "unsubscribe") || IsCommand(argv, "punsubscribe")) {
      return argv.size() > 1 ? argv.size() - 1 : std::max<size_t>(before, 1);
    }
    return 1;
  }

  // The next command, the one Gather read ahead first; false at the end
  // of the input or on a protocol error (which ends the connection).
  bool Next(std::vector<std::string>* argv) {
    if (!held_.empty()) {
      argv->swap(held_);
      held_.clear();
      return true;
    }
    std::string error;
    return parser_.Next(limits_, argv, &error) ==
           RequestParser::Result::kCommand;
  }

  // `first` and the commands after it that join its group, as
  // resp_server.cc's ServeGroup gathers them.
  std::vector<std::vector<std::string>> Gather(const CommandSpec& spec,
                                               std::vector<std::string> first) {
    std::vector<std::vector<std::string>> calls;
    calls.push_back(std::move(first));
    std::vector<std::string> next;
    std::string error;
    while (calls.size() < kMaxCommands &&
           parser_.Next(limits_, &next, &error) ==
               RequestParser::Result::kCommand) {
      if (!spec.joins(calls.front(), next)) {
        held_ = std::move(next);
        break;
      }
      calls.push_back(std::move(next));
    }
    return calls;
  }

  ServerState& state_;
  ClientState client_;
  RequestParser parser_;
  resp::ParserLimits limits_;
  std::vector<std::string> held_;
};

}  // namespace
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trackdb::fuzz;
  static ScratchStore* store = new ScratchStore(/*inputs_per_store=*/500);
  static std::unique_ptr<trackdb::replication::NodeRole> role;
  static std::unique_ptr<ServerState> state;
  bool fresh = false;
  trackdb::storage::TrackStore* s = store->Next(&fresh);
  if (fresh) {
    state.reset();  // it points into the store just replaced
    role = std::make_unique<trackdb::replication::NodeRole>(
        s, FuzzConfig().replication());
    state = std::make_unique<ServerState>(s, FuzzConfig(), role.get());
    // A blocking list command with nothing to pop answers at once, as at
    // its timeout, instead of waiting (for ever, with timeout 0) for a push
    // no other connection will make.
    state->pop_waiters().Stop();
    role->replicas().Stop();
  }
  Connection connection(
      *state, absl::string_view(reinterpret_cast<const char*>(data), size));
  connection.Serve();
  return 0;
}
