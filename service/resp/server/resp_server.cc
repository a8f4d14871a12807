#include "service/resp/server/resp_server.h"

#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#define ASIO_STANDALONE
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "asio.hpp"
#include "conf/config.h"
#include "model/clock.h"
#include "service/resp/commands/blocking_pop.h"
#include "service/resp/commands/typed_command.h"
#include "service/resp/dispatch/command.h"
#include "service/resp/dispatch/option_words.h"
#include "service/resp/protocol/read_buffer.h"
#include "service/resp/protocol/request_parser.h"
#include "service/resp/protocol/tls_context.h"
#include "service/resp/server/fence_publisher.h"
#include "service/resp/server/key_lanes.h"

namespace trackdb::resp {
namespace {

using asio::ip::tcp;

// As Redis's adjustOpenFilesLimit: room for maxclients connections plus
// RocksDB's files, up to the hard limit.
void RaiseOpenFileLimit(int64_t maxclients) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = static_cast<rlim_t>(maxclients) + 1024;
  if (limit.rlim_cur >= wanted) return;
  limit.rlim_cur = std::min<rlim_t>(wanted, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
}

std::string Endpoint(const tcp::endpoint& e) {
  return absl::StrCat(e.address().to_string(), ":", e.port());
}

}  // namespace

class Connection;

class RespServer::Impl {
 public:
  Impl(const v1::TrackdbConfig& config, storage::TrackStore* store,
       std::shared_ptr<auth::UserTable> users,
       const service::FenceWebhooks* webhooks,
       std::shared_ptr<replication::SyncAcks> sync_acks,
       std::shared_ptr<service::BackupJob> backups)
      : config_(config),
        role_(sync_acks != nullptr ? std::make_unique<replication::NodeRole>(
                                         store, std::move(sync_acks))
                                   : std::make_unique<replication::NodeRole>(
                                         store, config.replication())),
        state_(store, config, role_.get(), std::move(users), webhooks,
               std::move(backups)) {
    const int loops = std::max<int>(1, config_.server().resp_threads());
    for (int i = 0; i < loops; ++i) {
      // One thread per loop: Asio's scheduler skips the hand-offs between
      // threads (a futex wake per handler) that a shared loop pays.
      loops_.push_back(std::make_unique<asio::io_context>(1));
      guards_.push_back(asio::make_work_guard(*loops_.back()));
    }
    workers_ = std::make_unique<asio::thread_pool>(
        std::max<int>(1, config_.server().resp_worker_threads()));
    acceptor_ = std::make_unique<tcp::acceptor>(*loops_[0]);
  }

  absl::Status Listen() {
    asio::error_code ec;
    const v1::ServerConfig& server = config_.server();
    address_ = asio::ip::make_address(server.resp_bind_address(), ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("server.resp_bind_address '", server.resp_bind_address(),
                       "': ", ec.message()));
    }
    if (!server.resp_tls_only()) {
      acceptor_ = std::make_unique<tcp::acceptor>(*loops_[0]);
      absl::Status s = Bind(*acceptor_, server.resp_port());
      if (!s.ok()) return s;
      state_.port = acceptor_->local_endpoint().port();
    }
    if (server.cluster_enabled()) {
      if (config_.data_dir().empty()) {
        return absl::InvalidArgumentError(
            "server.cluster_enabled: data_dir must be set (it keeps "
            "cluster_nodes.conf)");
      }
      auto cluster = cluster::ClusterState::Open(
          absl::StrCat(config_.data_dir(), "/cluster_nodes.conf"),
          server.resp_bind_address(), state_.port);
      if (!cluster.ok()) return cluster.status();
      state_.set_cluster(*std::move(cluster));
      if (absl::Status s = FollowTopology(state_); !s.ok()) return s;
    }
    if (server.has_resp_tls_port()) {
      auto tls = NewServerTlsContext(server);
      if (!tls.ok()) return tls.status();
      tls_ = *std::move(tls);
      tls_acceptor_ = std::make_unique<tcp::acceptor>(*loops_[0]);
      absl::Status s = Bind(*tls_acceptor_, server.resp_tls_port());
      if (!s.ok()) return s;
      tls_port_ = tls_acceptor_->local_endpoint().port();
    }
    if (absl::Status s = FollowConfiguredPrimary(); !s.ok()) return s;
    RaiseOpenFileLimit(state_.settings().maxclients);
    fence_publisher_ =
        std::make_unique<FencePublisher>(&state_.store(), &state_.pubsub());
    if (acceptor_) Accept(acceptor_.get(), nullptr);
    if (tls_acceptor_) Accept(tls_acceptor_.get(), tls_.get());
    for (auto& loop : loops_) {
      threads_.emplace_back([&loop] { loop->run(); });
    }
    return absl::OkStatus();
  }

  // replication.replicaof: this node starts as that primary's replica.
  absl::Status FollowConfiguredPrimary() {
    const v1::ReplicationConfig& r = config_.replication();
    if (r.replicaof().empty()) return absl::OkStatus();
    if (config_.server().cluster_enabled()) {
      return absl::InvalidArgumentError(
          "replication.replicaof: not allowed in cluster mode (the "
          "topology says who replicates whom)");
    }
    absl::StatusOr<conf::HostPort> primary =
        conf::ParseReplicaOf(r.replicaof());
    if (!primary.ok()) return primary.status();
    replication::LinkOptions options;
    options.host = primary->host;
    options.port = primary->port;
    options.user = r.primary_user();
    options.password = r.primary_password();
    options.listening_port = state_.port;
    return state_.role().ReplicaOf(options);
  }

  void Shutdown();
  int port() const { return state_.port; }
  int tls_port() const { return tls_port_; }
  const cluster::ClusterState* cluster() { return state_.cluster(); }
  ServerState& state() { return state_; }
  asio::thread_pool& workers() { return *workers_; }
  KeyLanes& lanes() { return lanes_; }
  void Forget(Connection* c) {
    absl::MutexLock l(&mu_);
    connections_.erase(c);
  }

 private:
  // Listens on the bind address's `port` (0: a free one).
  absl::Status Bind(tcp::acceptor& acceptor, uint32_t port) {
    const tcp::endpoint endpoint(address_, static_cast<uint16_t>(port));
    asio::error_code ec;
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return absl::UnavailableError(absl::StrCat("cannot listen for RESP on ",
                                                 Endpoint(endpoint), ": ",
                                                 ec.message()));
    }
    return absl::OkStatus();
  }
  // Accepts connections on `acceptor`, over TLS when `tls` is not null.
  void Accept(tcp::acceptor* acceptor, asio::ssl::context* tls);

  // Declared before the loops so that connections still in their queues
  // when they are destroyed can unregister themselves.
  const v1::TrackdbConfig config_;
  // This node's replicas, link and migration (the state's role), which
  // outlives the state.
  std::unique_ptr<replication::NodeRole> role_;
  ServerState state_;
  absl::Mutex mu_;
  std::map<Connection*, std::weak_ptr<Connection>> connections_
      ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::unique_ptr<asio::io_context>> loops_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>>
      guards_;
  size_t next_loop_ = 0;  // only the acceptor's loop (loops_[0]) uses it
  std::unique_ptr<asio::thread_pool> workers_;
  KeyLanes lanes_{[this](absl::Span<const PendingGroup> groups) {
    DispatchGroups(state_, groups);
  }};
  asio::ip::address address_;
  std::unique_ptr<tcp::acceptor> acceptor_;  // null: resp_tls_only
  std::unique_ptr<asio::ssl::context> tls_;
  std::unique_ptr<tcp::acceptor> tls_acceptor_;  // null: no resp_tls_port
  int tls_port_ = 0;
  std::vector<std::thread> threads_;
  std::unique_ptr<FencePublisher> fence_publisher_;  // once listening
};

class Connection : public std::enable_shared_from_this<Connection>,
                   public PushTarget,
                   public ConnectionControl {
 public:
  // Over TLS when `tls` is not null.
  Connection(tcp::socket socket, RespServer::Impl* server,
             asio::ssl::context* tls)
      : socket_(std::move(socket)), server_(server) {
    if (tls != nullptr) tls_.emplace(socket_, *tls);
  }

  void Start() {
    ServerState& state = server_->state();
    client_.id = state.NextClientId();
    asio::error_code ec;
    client_.addr = Endpoint(socket_.remote_endpoint(ec));
    client_.laddr = Endpoint(socket_.local_endpoint(ec));
    client_.created_ms = client_.last_command_ms = NowMs();
    client_.push = shared_from_this();
    client_.control = shared_from_this();
    socket_.set_option(tcp::no_delay(true), ec);
    state.PublishClient(client_);
    idle_timeout_s_ = state.settings().timeout_s;
    Handshake([this] { WaitForInput(); });
  }

  // Replies with `error` and closes: too many clients.
  void Refuse(const std::string& error) {
    out_ = absl::StrCat("-ERR ", error, "\r\n");
    Handshake([this] {
      auto self = shared_from_this();
      AsyncWrite([self](asio::error_code, size_t) { self->Close(); });
    });
  }

  tcp::socket::executor_type executor() { return socket_.get_executor(); }

  // Pub/sub messages, from any thread: sent from the loop, at once while
  // the connection waits for a request, else after its replies.
  void Push(std::string bytes) override {
    auto self = shared_from_this();
    asio::post(executor(), [self, bytes = std::move(bytes)] {
      self->pushed_ += bytes;
      // Redis's pubsub output limit: a subscriber that does not read.
      if (self->pushed_.size() > kMaxPushedBytes) return self->Close();
      if (self->idle_) self->WritePushes();
    });
  }

  void Kill() override {
    killed_.store(true);
    auto self = shared_from_this();
    asio::post(executor(), [self] { self->Close(); });
  }

  void Unblock(bool error) override {
    auto self = shared_from_this();
    asio::post(executor(), [self, error] { self->EndWaitEarly(error); });
  }

  void Close() {
    // Gone from CLIENT LIST and CLIENT KILL at once, not when the last
    // handler holding the connection ends.
    server_->state().RemoveClient(client_.id);
    asio::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }

  ~Connection() {
    server_->state().RemoveClient(client_.id);
    server_->Forget(this);
  }

 private:
  // Runs `then` on a connection that speaks plain RESP, or once its TLS
  // handshake succeeded; a failed handshake (a plaintext client, a missing
  // or untrusted client certificate) closes the connection.
  template <typename Then>
  void Handshake(Then then) {
    if (!tls_) return then();
    auto self = shared_from_this();
    tls_->async_handshake(asio::ssl::stream_base::server,
                          [self, then](asio::error_code ec) {
                            if (ec) return self->Close();
                            then();
                          });
  }

  template <typename Handler>
  void AsyncReadSome(Handler handler) {
    asio::mutable_buffer into(read_.data(), read_.size());
    if (tls_) return tls_->async_read_some(into, handler);
    socket_.async_read_some(into, handler);
  }

  // Writes all of out_.
  template <typename Handler>
  void AsyncWrite(Handler handler) {
    if (tls_) return asio::async_write(*tls_, asio::buffer(out_), handler);
    asio::async_write(socket_, asio::buffer(out_), handler);
  }

  // Waits for the next request: reads it into read_, which grows to hold
  // what the connection sends at once (read_buffer.h). Reading
  // (not waiting for readability, then reading) lets Asio keep the socket's
  // epoll registration as it is between requests.
  void WaitForInput() {
    ArmIdleTimer();
    auto self = shared_from_this();
    idle_ = true;
    WritePushes();
    AsyncReadSome([self](asio::error_code ec, size_t n) {
      self->idle_ = false;
      // A command in progress is not idleness (Redis does the same).
      if (self->idle_timer_) self->idle_timer_->cancel();
      if (ec) return self->Close();  // end of stream included
      self->parser_.Feed(absl::string_view(self->read_.data(), n));
      const bool full = n == self->read_.size();
      self->read_.Took(n);
      if (full && !self->ReadRest()) return;
      self->Serve();
    });
  }

  // Redis's timeout: a connection that sends nothing for timeout seconds
  // is closed. The timer exists only while a timeout is set.
  void ArmIdleTimer() {
    // As in Redis, a subscriber waiting for messages is not idle.
    if (idle_timeout_s_ <= 0 || client_.subscriptions > 0) {
      if (idle_timer_) idle_timer_->cancel();
      return;
    }
    if (!idle_timer_) {
      idle_timer_ = std::make_unique<asio::steady_timer>(executor());
    }
    idle_timer_->expires_after(std::chrono::seconds(idle_timeout_s_));
    std::weak_ptr<Connection> weak = shared_from_this();
    idle_timer_->async_wait([weak](asio::error_code ec) {
      if (ec) return;  // cancelled: input came, or the connection went
      if (auto self = weak.lock()) self->Close();
    });
  }

  // After read_ came back full: reads what else is waiting, up to one
  // thread-local buffer. False if the connection closed.
  bool ReadRest() {
    // A TLS stream reads asynchronously only: its records do not split at
    // socket reads. The next AsyncReadSome gets what OpenSSL still holds.
    if (tls_) return true;
    thread_local std::vector<char> buffer(64 * 1024);
    asio::error_code ec;
    const size_t n = socket_.read_some(asio::buffer(buffer), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      return true;
    }
    if (ec) {
      Close();
      return false;
    }
    parser_.Feed(absl::string_view(buffer.data(), n));
    return true;
  }

  void Serve() {
    if (killed_.load()) return Close();  // after a command it was running
    ServerState& state = server_->state();
    const LiveSettings settings = state.settings();
    const bool auth_configured = state.users().auth_required();
    ParserLimits limits;
    limits.max_bulk_len = settings.proto_max_bulk_len;
    limits.max_multibulk_len = state.config().server().resp_max_multibulk_len();
    Reply reply(&out_, client_.protocol);
    std::vector<std::string> argv;
    std::string error;
    bool ran = false;
    idle_timeout_s_ = settings.timeout_s;
    while (!client_.close_after_reply) {
      if (OverOutputLimit(settings)) return Close();
      // Replies to a pipeline go out in pieces: the rest of it is served
      // once this much has been sent, so a client that pipelines many
      // large replies holds about one piece in trackd, not all of them.
      if (out_.size() >= kReplyPieceBytes) {
        resume_after_flush_ = true;
        break;
      }
      limits.authenticated = client_.authenticated || !auth_configured;
      const RequestParser::Result r = NextCommand(limits, &argv, &error);
      if (r == RequestParser::Result::kNeedMore) break;
      if (r == RequestParser::Result::kError) {
        reply.Error(error);
        client_.close_after_reply = true;
        break;
      }
      client_.last_command_ms = NowMs();
      ran = true;
      if (!RunCommand(state, limits, argv, reply)) return;
    }
    EndServing(state, settings, ran);
  }

  // Runs the command `argv` Serve parsed, replying into `reply`. False when
  // the connection went on elsewhere (a worker, a group that stopped, a
  // WAIT, a blocking call): Serve must stop.
  bool RunCommand(ServerState& state, const ParserLimits& limits,
                  std::vector<std::string>& argv, Reply& reply) {
    // Inside MULTI a call is only queued (on the loop); EXEC runs the
    // queue on a worker.
    if (state.commands().RunsOnWorker(argv) &&
        (!client_.multi || EqualsIgnoreCase(argv[0], "exec"))) {
      RunOnWorker(std::move(argv));
      return false;
    }
    const CommandSpec* group =
        client_.multi ? nullptr : state.commands().GroupStartedBy(argv);
    if (group != nullptr && limits.authenticated && MayRun(client_, *group)) {
      return ServeGroup(*group, std::move(argv), limits, reply);
    }
    Dispatch(state, client_, argv, reply);
    reply.set_protocol(client_.protocol);  // HELLO may have changed it
    if (client_.pending_wait) {
      AwaitWait();
      return false;
    }
    if (client_.blocked) {
      AwaitPush(std::move(argv));
      return false;
    }
    return true;
  }

  // After Serve's loop: publishes the client if it `ran` a command, then
  // waits for acks of its last write or sends its replies.
  void EndServing(ServerState& state, const LiveSettings& settings, bool ran) {
    if (OverOutputLimit(settings)) return Close();
    if (ran) state.PublishClient(client_);
    if (client_.last_write_seq > acked_ && state.role().sync_acks().enabled()) {
      return AwaitAcks(client_.last_write_seq);
    }
    FlushReplies();
  }

  void FlushReplies() {
    out_ += pushed_;  // messages that came while serving, after the replies
    pushed_.clear();
    Flush();
  }

  // WAIT that has to wait: the connection serves nothing else meanwhile
  // (its replies stay in order) and holds no thread; the reply, how many
  // replicas have the client's last write, goes out when enough do or at
  // the timeout, and the rest of the pipeline is served after it.
  void AwaitWait() {
    const ClientState::PendingWait wait = *client_.pending_wait;
    client_.pending_wait.reset();
    replication::ReplicaRegistry& replicas = server_->state().role().replicas();
    auto self = shared_from_this();
    auto settled = std::make_shared<std::atomic<bool>>(false);
    auto answer = [self, settled, wait] {
      if (settled->exchange(true)) return;
      asio::post(self->executor(), [self, wait] {
        if (self->ack_timer_) self->ack_timer_->cancel();
        Reply reply(&self->out_, self->client_.protocol);
        reply.Integer(
            self->server_->state().role().replicas().Acked(wait.sequence));
        self->Serve();
      });
    };
    const uint64_t waiter =
        replicas.OnAcked(wait.replicas, wait.sequence, answer);
    if (waiter == 0 || wait.timeout_ms == 0) return;
    ack_timer_ = std::make_unique<asio::steady_timer>(
        executor(), std::chrono::milliseconds(wait.timeout_ms));
    ack_timer_->async_wait([self, waiter, answer](asio::error_code ec) {
      if (ec) return;
      if (self->server_->state().role().replicas().Cancel(waiter)) answer();
    });
  }

  // Synchronous acknowledgement (service/replication/sync_acks.h): the
  // replies of writes go out once enough replicas have applied them;
  // meanwhile the connection has no operation pending, as on a worker.
  // Past the timeout the connection closes with them unsent: the client
  // must not take an unreplicated write for an acknowledged one.
  void AwaitAcks(uint64_t sequence) {
    const replication::SyncAcks& acks = server_->state().role().sync_acks();
    auto self = shared_from_this();
    auto settled = std::make_shared<std::atomic<bool>>(false);
    auto settle = [self, settled, sequence](bool acked) {
      if (settled->exchange(true)) return;
      asio::post(self->executor(), [self, acked, sequence] {
        if (self->ack_timer_) self->ack_timer_->cancel();
        if (!acked) return self->Close();
        self->acked_ = sequence;
        self->FlushReplies();
      });
    };
    const uint64_t waiter = acks.replicas().OnAcked(acks.needed(), sequence,
                                                    [settle] { settle(true); });
    if (waiter == 0) return;
    ack_timer_ = std::make_unique<asio::steady_timer>(
        executor(), std::chrono::milliseconds(acks.timeout_ms()));
    ack_timer_->async_wait([self, waiter, settle](asio::error_code ec) {
      if (ec) return;
      if (self->server_->state().role().replicas().Cancel(waiter))
        settle(false);
    });
  }

  // While the connection waits for a request: sends the messages pushed,
  // one write at a time (Flush waits for it).
  void WritePushes() {
    if (push_writing_ || pushed_.empty()) return;
    push_writing_ = true;
    push_out_.swap(pushed_);
    pushed_.clear();
    auto self = shared_from_this();
    auto done = [self](asio::error_code ec, size_t) {
      self->push_writing_ = false;
      self->push_out_.clear();
      if (ec) return self->Close();
      if (self->flush_after_push_) {
        self->flush_after_push_ = false;
        return self->Flush();
      }
      if (self->idle_) self->WritePushes();
    };
    if (tls_) return asio::async_write(*tls_, asio::buffer(push_out_), done);
    asio::async_write(socket_, asio::buffer(push_out_), done);
  }

  static constexpr size_t kReplyPieceBytes = 1 << 20;
  // Redis's default hard limit for pub/sub clients.
  static constexpr size_t kMaxPushedBytes = 32 << 20;

  // Redis's client-output-buffer-limit (one hard limit): replies not yet
  // sent past it close the connection, as Redis closes such a client.
  bool OverOutputLimit(const LiveSettings& settings) const {
    return settings.max_output_bytes > 0 &&
           out_.size() > static_cast<size_t>(settings.max_output_bytes);
  }

  // After a flush: the rest of a pipeline cut into pieces, or the next
  // request. Posted, so that the loop's other connections are served
  // between pieces and the stack does not grow with the pipeline.
  void AfterFlush() {
    if (client_.close_after_reply) return Close();
    if (!resume_after_flush_) return WaitForInput();
    resume_after_flush_ = false;
    auto self = shared_from_this();
    asio::post(executor(), [self] { self->Serve(); });
  }

  // The next request: the one parsed ahead by ServeGroup, if any, else the
  // parser's next.
  RequestParser::Result NextCommand(const ParserLimits& limits,
                                    std::vector<std::string>* argv,
                                    std::string* error) {
    if (!held_) return parser_.Next(limits, argv, error);
    const RequestParser::Result r = held_->result;
    *argv = std::move(held_->argv);
    *error = std::move(held_->error);
    held_.reset();
    return r;
  }

  // Group commit of one pipeline: serves `first` and the requests already
  // buffered after it that join its group (command.h JoinsGroup) as one
  // call; the first request that does not join is held for NextCommand.
  // False when the group waits on its key's lane (ServeOnLane): the
  // connection is suspended and serves on once the group ran.
  bool ServeGroup(const CommandSpec& spec, std::vector<std::string> first,
                  const ParserLimits& limits, Reply& reply) {
    // Bounds the replies held back and the batch built: a pipeline of 1000
    // one-member GEOADDs is one RocksDB write of ~100 KB.
    constexpr size_t kMaxGroup = 1000;
    group_.clear();
    group_.push_back(std::move(first));
    while (group_.size() < kMaxGroup) {
      Parsed next;
      next.result = parser_.Next(limits, &next.argv, &next.error);
      if (next.result == RequestParser::Result::kNeedMore) break;
      if (next.result == RequestParser::Result::kCommand &&
          spec.joins(group_.front(), next.argv)) {
        group_.push_back(std::move(next.argv));
        continue;
      }
      held_ = std::move(next);
      break;
    }
    std::optional<std::string> name =
        ExclusiveNameOfRun(server_->state(), client_, spec, group_);
    if (!name) {
      DispatchGroup(spec, server_->state(), client_, group_, reply);
      return true;
    }
    return ServeOnLane(spec, *name, reply);
  }

  // Serves group_, a run that writes one key, in its turn on the key's
  // lane (key_lanes.h): now if the lane is free (true), else once the
  // lane's holder hands it on (false; this connection is suspended, as on
  // a worker, and the loop the lane is handed to serves the group and
  // resumes it here).
  bool ServeOnLane(const CommandSpec& spec, const std::string& name,
                   Reply& reply) {
    KeyLanes& lanes = server_->lanes();
    const size_t lane = KeyLanes::LaneOf(absl::HashOf(name));
    auto self = shared_from_this();
    KeyLanes::Task task;
    task.post = [self](std::function<void()> f) {
      asio::post(self->executor(), std::move(f));
    };
    task.run = [self, &spec] {
      Reply reply(&self->out_, self->client_.protocol);
      DispatchGroup(spec, self->server_->state(), self->client_, self->group_,
                    reply);
      asio::post(self->executor(), [self] { self->Serve(); });
    };
    // Served with the groups queued beside it (DispatchGroups); lane_reply_
    // lives as long as the connection, which the lambdas keep.
    lane_reply_.emplace(&out_, client_.protocol);
    task.group = PendingGroup{&spec, &client_, group_, &*lane_reply_};
    task.resume = [self] {
      asio::post(self->executor(), [self] { self->Serve(); });
    };
    if (!lanes.EnterOrQueue(lane, task)) return false;
    DispatchGroup(spec, server_->state(), client_, group_, reply);
    lanes.Leave(lane);
    return true;
  }

  // Runs `argv` on the worker pool, then goes on serving on this loop, or
  // waits for a push if it was a blocking pop that found nothing.
  // Meanwhile the connection has no operation pending, so nothing else
  // touches its state (a Shutdown only closes the socket).
  void RunOnWorker(std::vector<std::string> argv) {
    auto self = shared_from_this();
    asio::post(server_->workers(), [self, argv = std::move(argv)]() mutable {
      ServerState& state = self->server_->state();
      Reply reply(&self->out_, self->client_.protocol);
      Dispatch(state, self->client_, argv, reply);
      self->client_.woken.reset();         // a retry refused before it ran
      state.PublishClient(self->client_);  // CLIENT LIST sees its command
      asio::post(self->executor(), [self, argv = std::move(argv)]() mutable {
        if (self->client_.blocked) return self->AwaitPush(std::move(argv));
        self->Serve();
      });
    });
  }

  // What a blocking pop's wake-up, timer and hang-up watch share: whether
  // one of them ended the wait, whether the wake-up was left with
  // PopWaiters, whether the watch is on.
  struct PopWait {
    std::atomic<bool> settled{false};
    bool registered = false;
    bool watching = false;
  };
  enum class Input { kStillThere, kUnread, kGone };

  // A blocking pop that found nothing (blocking_pop.h): the replies before
  // it go out, then the connection waits, holding no thread, for a push on
  // its keys, its deadline or the recheck, and runs `argv` again.
  void AwaitPush(std::vector<std::string> argv) {
    server_->state().PublishClient(client_);  // CLIENT LIST: flags=b
    blocked_argv_ = std::move(argv);
    // (A pub/sub write in flight: the replies go after the pop's.)
    if (out_.empty() || push_writing_) return WaitForPush();
    auto self = shared_from_this();
    AsyncWrite([self](asio::error_code ec, size_t) {
      self->ClearOut();
      if (ec) {
        self->client_.blocked.reset();
        return self->Close();
      }
      self->WaitForPush();
    });
  }

  void WaitForPush() {
    const BlockedPop& blocked = *client_.blocked;
    auto wait = std::make_shared<PopWait>();
    pop_wait_ = wait;
    auto self = shared_from_this();
    auto wake = [self, wait] {
      if (wait->settled.exchange(true)) return;
      asio::post(self->executor(), [self] { self->Woken(); });
    };
    wait->registered = server_->state().pop_waiters().OnPush(
        *blocked.ticket, blocked.seen, wake);
    if (!wait->registered) return wake();
    if (!pop_timer_)
      pop_timer_ = std::make_unique<asio::steady_timer>(executor());
    const absl::Duration left = std::clamp(blocked.deadline - absl::Now(),
                                           absl::ZeroDuration(), kRecheck);
    pop_timer_->expires_after(absl::ToChronoNanoseconds(left));
    pop_timer_->async_wait([wake](asio::error_code ec) {
      if (!ec) wake();
    });
    WatchForHangUp(wait);
  }

  // While a pop waits: the client hanging up ends the wait and the
  // connection; bytes it sends are kept for after the pop. Not while a
  // pub/sub write is in flight: ending the watch cancels the socket's
  // operations.
  void WatchForHangUp(std::shared_ptr<PopWait> wait) {
    if (push_writing_) return;
    wait->watching = true;
    auto self = shared_from_this();
    socket_.async_wait(
        tcp::socket::wait_read, [self, wait](asio::error_code ec) {
          wait->watching = false;
          if (wait->settled.load()) return;  // woken: the watch was ended
          const Input input = ec ? Input::kGone : self->TakeWaitingInput();
          if (input == Input::kStillThere) return self->WatchForHangUp(wait);
          if (input == Input::kUnread) return;
          if (wait->settled.exchange(true)) return;
          self->EndPopWait();
          self->client_.blocked.reset();
          self->Close();
        });
  }

  // What a waiting client did: kGone if it hung up, else kStillThere once
  // what it sent is in the parser, or kUnread over TLS (its records are
  // read by the TLS stream only).
  Input TakeWaitingInput() {
    char probe;
    const ssize_t peeked =
        ::recv(socket_.native_handle(), &probe, 1, MSG_PEEK | MSG_DONTWAIT);
    if (peeked == 0) return Input::kGone;
    if (peeked < 0) {
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
                 ? Input::kStillThere
                 : Input::kGone;
    }
    if (tls_) return Input::kUnread;
    return ReadRest() ? Input::kStillThere : Input::kGone;
  }

  // Ends the wait's timer, wake-up and hang-up watch.
  void EndPopWait() {
    if (pop_timer_) pop_timer_->cancel();
    if (!pop_wait_) return;
    if (pop_wait_->registered) {
      server_->state().pop_waiters().Cancel(*client_.blocked->ticket);
    }
    asio::error_code ec;
    if (pop_wait_->watching) socket_.cancel(ec);
    pop_wait_.reset();
  }

  // CLIENT UNBLOCK: a waiting pop replies as at its timeout, or Redis's
  // error, and the connection serves on. Nothing if it is not waiting (or
  // is being woken).
  void EndWaitEarly(bool error) {
    if (!pop_wait_ || pop_wait_->settled.exchange(true)) return;
    EndPopWait();
    client_.blocked.reset();
    blocked_argv_.clear();
    server_->state().PublishClient(client_);  // no longer blocked
    Reply reply(&out_, client_.protocol);
    if (error) {
      reply.Error("-UNBLOCKED client unblocked via CLIENT UNBLOCK");
    } else {
      reply.NullArray();
    }
    Serve();
  }

  // A push, the deadline or the recheck: the pop tries again, where it
  // runs (the loop, or a worker for BLMPOP and BZMPOP), unless the
  // connection was closed meanwhile (CLIENT KILL, shutdown).
  void Woken() {
    EndPopWait();
    if (!socket_.is_open()) return client_.blocked.reset();
    client_.woken = std::move(client_.blocked);
    client_.blocked.reset();
    std::vector<std::string> argv = std::move(blocked_argv_);
    ServerState& state = server_->state();
    if (state.commands().RunsOnWorker(argv)) {
      return RunOnWorker(std::move(argv));
    }
    {
      Reply reply(&out_, client_.protocol);
      Dispatch(state, client_, argv, reply);
    }
    client_.woken.reset();  // a retry refused before it ran
    if (client_.blocked) return AwaitPush(std::move(argv));
    state.PublishClient(client_);
    Serve();
  }

  // Empties out_ once sent, giving back the room of a large reply: 50 idle
  // connections that each once got 4 MiB would otherwise hold 200 MiB.
  void ClearOut() {
    constexpr size_t kKeptReplyRoom = 64 * 1024;
    if (out_.capacity() > kKeptReplyRoom) {
      std::string().swap(out_);
    } else {
      out_.clear();
    }
  }

  // Sends out_, at once when the socket takes it all (the usual case: no
  // handler to dispatch), else in the background; then serves the rest of
  // a pipeline cut into pieces, or reads on: when Serve did not stop at a
  // piece, every complete request buffered has been served, so what the
  // parser still holds is the start of one yet to arrive.
  void Flush() {
    if (push_writing_) {  // one write at a time on a socket
      flush_after_push_ = true;
      return;
    }
    size_t sent = 0;
    // A TLS stream writes asynchronously only: a record half taken by a
    // non-blocking socket cannot be taken back.
    if (!out_.empty() && !tls_) {
      asio::error_code ec;
      sent = socket_.write_some(asio::buffer(out_), ec);
      if (ec == asio::error::would_block || ec == asio::error::try_again) {
        sent = 0;
      } else if (ec) {
        return Close();
      }
    }
    if (sent == out_.size()) {
      ClearOut();
      return AfterFlush();
    }
    out_.erase(0, sent);
    auto self = shared_from_this();
    AsyncWrite([self](asio::error_code ec, size_t) {
      self->ClearOut();
      if (ec) return self->Close();
      self->AfterFlush();
    });
  }

  tcp::socket socket_;
  std::optional<asio::ssl::stream<tcp::socket&>> tls_;
  RespServer::Impl* server_;
  ClientState client_;
  RequestParser parser_;
  struct Parsed {
    RequestParser::Result result;
    std::vector<std::string> argv;
    std::string error;
  };
  std::optional<Parsed> held_;                   // parsed ahead by ServeGroup
  std::vector<std::vector<std::string>> group_;  // ServeGroup's calls
  std::string out_;
  std::optional<Reply> lane_reply_;  // into out_, for a group on a lane
  bool resume_after_flush_ = false;  // requests buffered, not yet served
  int64_t idle_timeout_s_ = 0;       // the live setting, per request batch
  std::unique_ptr<asio::steady_timer> idle_timer_;
  // Pub/sub: messages not yet sent, the ones being written while idle.
  std::string pushed_, push_out_;
  bool idle_ = false;  // a read for the next request is pending
  bool push_writing_ = false;
  bool flush_after_push_ = false;  // Flush waits for push_out_'s write
  // The last write whose replies went out acknowledged by replicas, and
  // the deadline of the wait for the next (AwaitAcks).
  uint64_t acked_ = 0;
  std::unique_ptr<asio::steady_timer> ack_timer_;
  ReadBuffer read_;
  // A blocking pop's wait (AwaitPush): the call to run again, its timer,
  // and what its wake-up, timer and hang-up watch share.
  std::vector<std::string> blocked_argv_;
  std::unique_ptr<asio::steady_timer> pop_timer_;
  std::shared_ptr<PopWait> pop_wait_;
  std::atomic<bool> killed_{false};  // CLIENT KILL: serve nothing more
};

void RespServer::Impl::Accept(tcp::acceptor* acceptor,
                              asio::ssl::context* tls) {
  // The acceptor, its handlers and Shutdown's close of it all run on
  // loops_[0]'s one thread. Each connection lives on one loop, chosen in
  // turn, and runs there only (a worker runs its long commands while it
  // waits).
  asio::io_context& loop = *loops_[next_loop_++ % loops_.size()];
  auto on_accept = [this, acceptor, tls](asio::error_code ec,
                                         tcp::socket socket) {
    {
      absl::MutexLock l(&mu_);
      if (stopped_) return;
    }
    if (ec) {
      if (ec == asio::error::operation_aborted) return;
      // Out of file descriptors (EMFILE) or a transient error: retrying at
      // once would spin; pending connections wait in the kernel's backlog.
      auto timer = std::make_shared<asio::steady_timer>(*loops_[0]);
      timer->expires_after(std::chrono::milliseconds(20));
      timer->async_wait([this, timer, acceptor, tls](asio::error_code) {
        Accept(acceptor, tls);
      });
      return;
    }
    socket.non_blocking(true, ec);
    auto connection =
        std::make_shared<Connection>(std::move(socket), this, tls);
    state_.connections_received.fetch_add(1);
    size_t open;
    {
      absl::MutexLock l(&mu_);
      if (stopped_) return;
      connections_[connection.get()] = connection;
      open = connections_.size();
    }
    if (static_cast<int64_t>(open) > state_.settings().maxclients) {
      state_.rejected_connections.fetch_add(1);
      asio::post(connection->executor(), [connection] {
        connection->Refuse("max number of clients reached");
      });
    } else {
      asio::post(connection->executor(), [connection] { connection->Start(); });
    }
    Accept(acceptor, tls);
  };
  acceptor->async_accept(loop, on_accept);
}

void RespServer::Impl::Shutdown() {
  std::vector<std::shared_ptr<Connection>> open;
  {
    absl::MutexLock l(&mu_);
    if (stopped_) return;
    stopped_ = true;
    for (auto& [ptr, weak] : connections_) {
      if (auto c = weak.lock()) open.push_back(std::move(c));
    }
  }
  if (fence_publisher_) fence_publisher_->Stop();
  state_.role().Stop();
  asio::post(*loops_[0], [this] {
    asio::error_code ec;
    if (acceptor_) acceptor_->close(ec);
    if (tls_acceptor_) tls_acceptor_->close(ec);
  });
  for (auto& c : open) {
    asio::post(c->executor(), [c] { c->Close(); });
  }
  open.clear();
  // Long commands finish, handing their connections back to the loops; a
  // blocked BLPOP gives up waiting.
  state_.pop_waiters().Stop();
  state_.role().replicas().Stop();  // WAIT 1 0 would wait for ever
  state_.shutdown_gate().Stop();    // so would SHUTDOWN, for its replicas
  workers_->join();
  state_.backups().WaitForBackground();  // it reads the store
  // With the acceptor and every socket closed, their pending operations
  // finish (aborted) and each loop's run() returns once nothing is left.
  guards_.clear();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

RespServer::RespServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RespServer::~RespServer() { Shutdown(); }
int RespServer::port() const { return impl_->port(); }
int RespServer::tls_port() const { return impl_->tls_port(); }
const cluster::ClusterState* RespServer::cluster() const {
  return impl_->cluster();
}
const metrics::CallMetrics& RespServer::call_metrics() const {
  return impl_->state().call_metrics();
}
const replication::NodeRole& RespServer::role() const {
  return impl_->state().role();
}
int64_t RespServer::connected_clients() const {
  return impl_->state().ClientCount();
}
void RespServer::Shutdown() { impl_->Shutdown(); }
void RespServer::OnShutdownCommand(std::function<void()> stop) {
  impl_->state().shutdown_gate().set_stop(std::move(stop));
}

absl::StatusOr<std::unique_ptr<RespServer>> RespServer::Start(
    const v1::TrackdbConfig& config, storage::TrackStore* store,
    std::shared_ptr<auth::UserTable> users,
    const service::FenceWebhooks* webhooks,
    std::shared_ptr<replication::SyncAcks> sync_acks,
    std::shared_ptr<service::BackupJob> backups) {
  auto impl = std::make_unique<Impl>(config, store, std::move(users), webhooks,
                                     std::move(sync_acks), std::move(backups));
  if (absl::Status s = impl->Listen(); !s.ok()) return s;
  return std::unique_ptr<RespServer>(new RespServer(std::move(impl)));
}

}  // namespace trackdb::resp
