// trackd: the trackdb server. Loads the textproto config, opens the store,
// logs the effective options, and runs until SIGTERM or SIGINT, then closes
// the store cleanly and exits 0.
//
// Front doors: gRPC (service/grpc/grpc_server.h) and the Redis protocol
// (service/resp/server/resp_server.h), over one store.

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "conf/config.h"
#include "conf/security_config.h"
#include "google/protobuf/text_format.h"
#include "service/auth/users.h"
#include "service/events/fence_webhook.h"
#include "service/grpc/grpc_server.h"
#include "service/jobs/collection_expirer.h"
#include "service/jobs/history_folder.h"
#include "service/jobs/memory_return.h"
#include "service/jobs/retention_trimmer.h"
#include "service/metrics/metrics_http.h"
#include "service/metrics/trackd_metrics.h"
#include "service/replication/replica_registry.h"
#include "service/replication/sync_acks.h"
#include "service/resp/server/resp_server.h"
#include "service/web/map_site.h"
#include "service/web/web_server.h"
#include "storage/engine/options.h"
#include "storage/replication/replication.h"
#include "storage/track_store.h"

ABSL_FLAG(std::string, config, "conf/trackdb.textproto",
          "Path of the textproto config (trackdb.v1.TrackdbConfig).");
ABSL_FLAG(std::string, data_dir, "", "Overrides the config's data_dir.");
ABSL_FLAG(std::optional<int>, grpc_port, std::nullopt,
          "Overrides server.grpc_port.");
ABSL_FLAG(std::optional<int>, resp_port, std::nullopt,
          "Overrides server.resp_port.");
ABSL_FLAG(std::optional<int>, metrics_port, std::nullopt,
          "Overrides server.metrics_port (0: no metrics port).");
ABSL_FLAG(std::optional<int>, http_port, std::nullopt,
          "Overrides server.http_port (the map page; 0: none).");
ABSL_FLAG(std::optional<bool>, cluster_enabled, std::nullopt,
          "Overrides server.cluster_enabled (Redis Cluster protocol).");
// For tests that need folds within seconds (the crash test): how often the
// history folder runs, and the raw fixes that make an entity due.
ABSL_FLAG(int64_t, history_fold_interval_ms, 60000,
          "Testing: how often raw fixes are folded into chunks.");
ABSL_FLAG(int64_t, history_fold_min_fixes, 256,
          "Testing: raw fixes that make an entity due for folding.");

namespace trackdb {
namespace {

void Log(const std::string& line) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::fprintf(stderr, "%s trackd: %s\n", stamp, line.c_str());
}

int Fail(const absl::Status& status) {
  Log(absl::StrCat("error: ", status.message()));
  return 1;
}

// Where each door listens and how clients log in; never a password.
void LogDoors(const v1::ServerConfig& server, int grpc_port,
              const resp::RespServer& resp_server) {
  Log(
      absl::StrCat("serving gRPC (trackdb.v1.TrackService, FenceService, "
                   "AdminService, health, reflection) on ",
                   server.grpc_bind_address(), ":", grpc_port,
                   server.grpc_tls() ? " over TLS" : ""));
  if (!server.resp_tls_only()) {
    Log(absl::StrCat("serving the Redis protocol on ",
                     server.resp_bind_address(), ":", resp_server.port()));
  }
  if (server.has_resp_tls_port()) {
    Log(absl::StrCat("serving the Redis protocol over TLS on ",
                     server.resp_bind_address(), ":", resp_server.tls_port()));
  }
  Log(absl::StrCat("authentication: ", server.users_size(), " users, ",
                   server.requirepass().empty() ? "no" : "a",
                   " requirepass (user \"default\")"));
}

void LogWebhooks(const v1::ServerConfig& server) {
  for (const v1::FenceWebhook& hook : server.fence_webhooks()) {
    Log(absl::StrCat("webhook ", hook.name(), ": events of ", hook.collection(),
                     " to ", hook.url()));
  }
}

// The effective config, on one line; passwords never reach the log.
void LogConfig(const v1::TrackdbConfig& config) {
  std::string effective;
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.PrintToString(conf::RedactSecrets(config), &effective);
  Log(absl::StrCat("config ", absl::GetFlag(FLAGS_config), ": ", effective));
}

// The config file with its defaults and the command line's overrides,
// validated.
absl::StatusOr<v1::TrackdbConfig> LoadConfig() {
  auto loaded = conf::LoadConfigFile(absl::GetFlag(FLAGS_config));
  if (!loaded.ok()) return loaded.status();
  v1::TrackdbConfig config = conf::WithDefaults(*loaded);
  if (!absl::GetFlag(FLAGS_data_dir).empty()) {
    config.set_data_dir(absl::GetFlag(FLAGS_data_dir));
  }
  if (auto port = absl::GetFlag(FLAGS_grpc_port)) {
    config.mutable_server()->set_grpc_port(*port);
  }
  if (auto port = absl::GetFlag(FLAGS_resp_port)) {
    config.mutable_server()->set_resp_port(*port);
  }
  if (auto port = absl::GetFlag(FLAGS_http_port)) {
    config.mutable_server()->set_http_port(*port);
  }
  if (auto port = absl::GetFlag(FLAGS_metrics_port)) {
    config.mutable_server()->set_metrics_port(*port);
  }
  if (auto enabled = absl::GetFlag(FLAGS_cluster_enabled)) {
    config.mutable_server()->set_cluster_enabled(*enabled);
  }
  if (absl::Status s = conf::ValidateConfig(config); !s.ok()) return s;
  return config;
}

// The store, in replica mode from the start when this node follows a
// primary: nothing may write before its link syncs it. In cluster mode the
// topology decides (the RESP door, once it opened cluster_nodes.conf), so
// no write is taken until then. A primary drops what it kept from
// following one.
absl::StatusOr<std::unique_ptr<storage::TrackStore>> OpenStore(
    const v1::TrackdbConfig& config) {
  auto store = storage::TrackStore::Open(config.data_dir(), config.storage());
  if (!store.ok()) return store.status();
  const bool follows = !config.replication().replicaof().empty() ||
                       config.server().cluster_enabled();
  if (absl::Status s = storage::SetReplica(**store, follows); !s.ok()) {
    return s;
  }
  Log(absl::StrCat("opened RocksDB in ", config.data_dir(),
                   "; effective options (all of them: ", config.data_dir(),
                   "/OPTIONS-*):"));
  std::fprintf(stderr, "%s",
               storage::DescribeOptions((*store)->options()).c_str());
  return store;
}

storage::FoldOptions FoldOptions() {
  storage::FoldOptions options;
  options.min_fixes = static_cast<size_t>(
      std::max<int64_t>(1, absl::GetFlag(FLAGS_history_fold_min_fixes)));
  return options;
}

// The background jobs over the store, stopped (destroyed) before it closes.
struct StoreJobs {
  explicit StoreJobs(storage::TrackStore* store)
      // The fence event logs' retention (storage.fence_log_max_*) and the
      // collections' expiring latest points (TrackService.SetRetention).
      : retention_trimmer(store, absl::Minutes(1)),
        // History from a key a fix into chunks (storage/history_chunker.h).
        history_folder(
            store,
            absl::Milliseconds(absl::GetFlag(FLAGS_history_fold_interval_ms)),
            FoldOptions()),
        // GEO keys past their expiry (storage/collections/collection_expiry.h).
        collection_expirer(store, absl::Milliseconds(200)) {}

  service::RetentionTrimmer retention_trimmer;
  service::HistoryFolder history_folder;
  service::CollectionExpirer collection_expirer;
};

// The metrics port, open before the store is (so /readyz tells "starting"
// from "down"); null when server.metrics_port is 0.
absl::StatusOr<std::unique_ptr<metrics::MetricsHttpServer>> StartMetrics(
    const v1::ServerConfig& server, metrics::TrackdEndpoints* endpoints) {
  if (server.metrics_port() == 0) return nullptr;
  auto http = metrics::MetricsHttpServer::Start(
      server.metrics_bind_address(), static_cast<int>(server.metrics_port()),
      [endpoints](absl::string_view path) { return endpoints->Handle(path); });
  if (!http.ok()) return http.status();
  Log(absl::StrCat("serving metrics (/metrics, /healthz, /readyz) on ",
                   server.metrics_bind_address(), ":", (*http)->port()));
  return http;
}

// The map page (service/web/map_site.h) and its server; null when
// server.http_port is 0. Stopped before the store closes.
struct MapPage {
  std::unique_ptr<web::MapSite> site;
  std::unique_ptr<web::WebServer> server;
};
absl::StatusOr<std::unique_ptr<MapPage>> StartMapPage(
    const v1::ServerConfig& server, storage::TrackStore* store,
    const auth::UserTable* users) {
  if (server.http_port() == 0) return nullptr;
  auto page = std::make_unique<MapPage>();
  page->site = std::make_unique<web::MapSite>(
      store, users, server.http_leaflet_dir(), server.http_tile_url(),
      server.http_bind_address());
  web::MapSite* site = page->site.get();
  auto http = web::WebServer::Start(
      server.http_bind_address(), static_cast<int>(server.http_port()),
      [site](const http::HttpRequest& r) { return site->Handle(r); });
  if (!http.ok()) return http.status();
  page->server = *std::move(http);
  Log(absl::StrCat("serving the map page on http://",
                   server.http_bind_address(), ":", page->server->port(), "/"));
  return page;
}

// What the metrics port reads once both doors serve.
metrics::TrackdSources MetricsSources(storage::TrackStore* store,
                                      const service::GrpcServer& grpc,
                                      const resp::RespServer& resp,
                                      const service::FenceWebhooks* webhooks,
                                      const replication::SyncAcks& sync_acks,
                                      service::BackupJob* backups) {
  metrics::TrackdSources sources;
  sources.store = store;
  sources.resp = &resp.call_metrics();
  sources.grpc = &grpc.call_metrics();
  sources.webhooks = webhooks;
  sources.replicas = &sync_acks.replicas();
  sources.role = &resp.role();
  sources.backups = backups;
  sources.resp_clients = [&resp] { return resp.connected_clients(); };
  return sources;
}

// Says "ready" and waits for SIGTERM, SIGINT or SHUTDOWN, which stops the
// process as SIGTERM does: the signal it raises wakes the wait.
void ReadyUntilStop(const sigset_t& stop_signals, resp::RespServer& resp) {
  static std::atomic<bool> shutdown_command{false};
  resp.OnShutdownCommand([] {
    shutdown_command = true;
    kill(getpid(), SIGTERM);
  });
  Log("ready");
  int sig = 0;
  sigwait(&stop_signals, &sig);
  Log(absl::StrCat("received ",
                   shutdown_command ? "SHUTDOWN"
                   : sig == SIGTERM ? "SIGTERM"
                                    : "SIGINT",
                   ", draining in-flight calls"));
}

// Blocks SIGTERM and SIGINT before any thread starts, so that RocksDB's
// background threads inherit the mask and sigwait() receives them.
sigset_t BlockStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  return stop_signals;
}

int Run() {
  // Under `bazel run`, resolve relative paths against the workspace, not the
  // runfiles tree.
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    if (chdir(ws) != 0) return Fail(absl::InternalError("cannot chdir"));
  }
  absl::StatusOr<v1::TrackdbConfig> loaded = LoadConfig();
  if (!loaded.ok()) return Fail(loaded.status());
  const v1::TrackdbConfig& config = *loaded;
  for (const std::string& warning :
       storage::StorageConfigWarnings(config.storage())) {
    Log(absl::StrCat("WARNING: ", warning));
  }
  LogConfig(config);
  const sigset_t stop_signals = BlockStopSignals();

  metrics::TrackdEndpoints endpoints;
  auto metrics_http = StartMetrics(config.server(), &endpoints);
  if (!metrics_http.ok()) return Fail(metrics_http.status());
  auto store = OpenStore(config);
  if (!store.ok()) return Fail(store.status());

  // Outbound webhooks of fence events (fence_webhook.h); both doors report
  // their counters.
  auto webhooks = service::FenceWebhooks::Start(store->get(), config.server());
  if (!webhooks.ok()) return Fail(webhooks.status());
  LogWebhooks(config.server());
  // One user table for both doors: CONFIG SET requirepass holds on both.
  auto users = std::make_shared<auth::UserTable>(config.server());
  // One record of the replicas for both doors: writes on either wait for
  // them under replication.sync_replicas.
  auto sync_acks = std::make_shared<replication::SyncAcks>(
      store->get(), std::make_shared<replication::ReplicaRegistry>(),
      config.replication());
  // In cluster mode gRPC calls go where their collection's slot is served
  // (cluster_router.h), by the RESP door's topology, attached below.
  auto router = std::make_shared<service::ClusterRouter>(config.replication());
  // One backup at a time, from either door (BGSAVE, CreateBackup).
  auto backups = std::make_shared<service::BackupJob>(store->get(), config);
  auto grpc_server = service::GrpcServer::Start(
      config, store->get(), users, webhooks->get(), sync_acks, router, backups);
  if (!grpc_server.ok()) return Fail(grpc_server.status());
  // The RESP door reports the gRPC door's bound port (INFO server's
  // grpc_port), which is how a cluster node finds a peer's gRPC address.
  v1::TrackdbConfig resp_config = config;
  resp_config.mutable_server()->set_grpc_port((*grpc_server)->port());
  auto resp_server = resp::RespServer::Start(
      resp_config, store->get(), users, webhooks->get(), sync_acks, backups);
  if (!resp_server.ok()) return Fail(resp_server.status());
  router->Attach((*resp_server)->cluster());
  LogDoors(config.server(), (*grpc_server)->port(), **resp_server);
  // Freed memory back to the OS after bursts (memory_return.h). Below the
  // 20 MiB a burst may leave behind (RELIABILITY.md): a burst of 20 to 32
  // MiB was never trimmed at 32.
  service::MemoryReturner memory_returner(absl::Seconds(10), 16 << 20);
  auto jobs = std::make_unique<StoreJobs>(store->get());
  auto map_page = StartMapPage(config.server(), store->get(), users.get());
  if (!map_page.ok()) return Fail(map_page.status());
  endpoints.Attach(MetricsSources(store->get(), **grpc_server, **resp_server,
                                  webhooks->get(), *sync_acks, backups.get()));
  ReadyUntilStop(stop_signals, **resp_server);
  endpoints.Detach();
  map_page->reset();
  (*resp_server)->Shutdown();
  (*grpc_server)->Shutdown(absl::Seconds(10));
  // They use the store: stopped before it closes.
  backups->WaitForBackground();
  webhooks->reset();
  jobs.reset();
  Log("gRPC and RESP stopped, closing the store");
  if (absl::Status s = (*store)->Close(); !s.ok()) return Fail(s);
  Log("closed cleanly");
  return 0;
}

}  // namespace
}  // namespace trackdb

int main(int argc, char** argv) {
  // Debian builds Abseil without NDEBUG, which leaves absl::Mutex's deadlock
  // detector on: every Lock() then updates a global lock graph under one
  // spin lock. gRPC locks absl::Mutexes on every call, so on a busy server
  // that global lock serialises all threads. Invariants are still checked by
  // the tests and the ASan build, which keep the detector on.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // glibc gives threads their own malloc arenas (up to 8 per core); memory
  // freed by the block cache and memtables then stays stranded across many
  // arenas, and the soak (bench/README.md) saw RSS settle ~20% above
  // storage.memory_budget_mb. Two arenas, before any thread starts.
  mallopt(M_ARENA_MAX, 2);
  absl::ParseCommandLine(argc, argv);
  return trackdb::Run();
}
