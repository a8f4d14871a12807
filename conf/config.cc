#include "conf/config.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "conf/security_config.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "model/limits.h"

namespace trackdb::conf {
namespace {

// The field whose value starts before `column` on `line` of `text`: the last
// "name:" there. Protobuf's value errors ("Expected integer") omit it.
std::string FieldBefore(absl::string_view text, int line, int column) {
  for (int i = 0; i < line; ++i) {
    const size_t nl = text.find('\n');
    if (nl == absl::string_view::npos) return "";
    text.remove_prefix(nl + 1);
  }
  absl::string_view head = text.substr(0, column);
  const size_t colon = head.rfind(':');
  if (colon == absl::string_view::npos) return "";
  size_t end = colon;
  while (end > 0 && head[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 &&
         (std::isalnum(static_cast<unsigned char>(head[begin - 1])) ||
          head[begin - 1] == '_')) {
    --begin;
  }
  return std::string(head.substr(begin, end - begin));
}

class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  FirstErrorCollector(absl::string_view source, absl::string_view text)
      : source_(source), text_(text) {}

  void AddError(int line, int column, const std::string& message) override {
    if (!error_.empty()) return;
    // Protobuf counts lines and columns from 0.
    error_ =
        absl::StrCat(source_, ":", line + 1, ":", column + 1, ": ", message);
    const std::string field = FieldBefore(text_, line, column);
    if (!field.empty() && message.find(field) == std::string::npos) {
      absl::StrAppend(&error_, " (field \"", field, "\")");
    }
  }
  const std::string& error() const { return error_; }

 private:
  std::string source_;
  absl::string_view text_;
  std::string error_;
};

absl::Status Invalid(absl::string_view field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", why));
}

// A port of trackd's own HTTP servers (metrics, the map page) and the
// address it listens on.
absl::Status ValidateHttpPort(absl::string_view port_field, uint32_t port,
                              absl::string_view address_field,
                              const std::string& address) {
  if (port > 65535) {
    return Invalid(port_field,
                   absl::StrCat("must be 0..65535 (0: none), got ", port));
  }
  in_addr parsed;
  if (!address.empty() && address != "localhost" &&
      inet_pton(AF_INET, address.c_str(), &parsed) != 1) {
    return Invalid(address_field,
                   absl::StrCat("\"", address,
                                "\" is not an IPv4 address or \"localhost\""));
  }
  return absl::OkStatus();
}

absl::Status ValidateMetricsPort(const v1::ServerConfig& server) {
  if (absl::Status s = ValidateHttpPort(
          "server.metrics_port", server.metrics_port(),
          "server.metrics_bind_address", server.metrics_bind_address());
      !s.ok()) {
    return s;
  }
  const std::string& tiles = server.http_tile_url();
  if (!tiles.empty() &&
      (!absl::StrContains(tiles, "{z}") || !absl::StrContains(tiles, "{x}") ||
       !absl::StrContains(tiles, "{y}"))) {
    return Invalid(
        "server.http_tile_url",
        absl::StrCat("must hold {z}, {x} and {y}, got \"", tiles, "\""));
  }
  return ValidateHttpPort("server.http_port", server.http_port(),
                          "server.http_bind_address",
                          server.http_bind_address());
}

// Below a second a client that is busy for a moment (a pause, a full CPU)
// would lose its connection for not answering a PING at once.
absl::Status ValidateGrpcKeepalive(const v1::ServerConfig& server) {
  // gRPC takes them as int.
  constexpr uint32_t kMax = std::numeric_limits<int>::max();
  if (server.grpc_keepalive_time_ms() < 1000 ||
      server.grpc_keepalive_time_ms() > kMax) {
    return Invalid("server.grpc_keepalive_time_ms",
                   "must be at least 1000 and at most 2147483647");
  }
  if (server.grpc_keepalive_timeout_ms() < 1000 ||
      server.grpc_keepalive_timeout_ms() > kMax) {
    return Invalid("server.grpc_keepalive_timeout_ms",
                   "must be at least 1000 and at most 2147483647");
  }
  return absl::OkStatus();
}

absl::Status ValidateServer(const v1::ServerConfig& server) {
  if (server.grpc_port() > 65535) {
    return Invalid("server.grpc_port",
                   absl::StrCat("must be 0..65535, got ", server.grpc_port()));
  }
  if (server.resp_max_bulk_len() == 0) {
    return Invalid("server.resp_max_bulk_len", "must be at least 1");
  }
  if (server.resp_port() > 65535) {
    return Invalid("server.resp_port",
                   absl::StrCat("must be 0..65535, got ", server.resp_port()));
  }
  if (server.grpc_max_concurrent_streams() < 1) {
    return Invalid("server.grpc_max_concurrent_streams", "must be at least 1");
  }
  // The server's own pollers need threads too: below this no call runs.
  if (server.grpc_max_threads() < 4) {
    return Invalid("server.grpc_max_threads", "must be at least 4");
  }
  if (server.grpc_max_metadata_bytes() < 1024) {
    return Invalid("server.grpc_max_metadata_bytes", "must be at least 1024");
  }
  if (server.grpc_max_message_bytes() < 1024) {
    return Invalid("server.grpc_max_message_bytes", "must be at least 1024");
  }
  const std::string& debug = server.enable_debug_command();
  if (debug != "no" && debug != "yes" && debug != "local") {
    return Invalid("server.enable_debug_command",
                   absl::StrCat("must be \"no\", \"yes\" or \"local\", got \"",
                                debug, "\""));
  }
  return ValidateGrpcKeepalive(server);
}

absl::Status ValidateReplication(const v1::ReplicationConfig& r) {
  if (!r.replicaof().empty() && !ParseReplicaOf(r.replicaof()).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("replication.replicaof: \"", r.replicaof(),
                     "\" is not \"host port\" with a port in 1..65535"));
  }
  if (r.sync_replicas() > 0 && r.sync_timeout_ms() == 0) {
    return absl::InvalidArgumentError(
        "replication.sync_timeout_ms: must be positive with sync_replicas");
  }
  return absl::OkStatus();
}

absl::Status ValidateLimits(const v1::LimitsConfig& l) {
  if (l.max_batch_points() < 1) {
    return Invalid("limits.max_batch_points", "must be at least 1");
  }
  if (!(l.max_radius_m() > 0)) {
    return Invalid("limits.max_radius_m", "must be a positive number");
  }
  if (l.max_polygon_vertices() < 3) {
    return Invalid("limits.max_polygon_vertices", "must be at least 3");
  }
  if (l.max_future_ms() < 0) {
    return Invalid("limits.max_future_ms", "must not be negative");
  }
  return absl::OkStatus();
}

// Each storage knob on its own: known enum values, sizes and counts.
absl::Status ValidateStorageKnobs(const v1::StorageConfig& s) {
  if (!v1::Durability_IsValid(s.durability())) {
    return Invalid("storage.durability", "has an unknown value");
  }
  if (!v1::Compression_IsValid(s.compression())) {
    return Invalid("storage.compression", "has an unknown value");
  }
  if (s.write_buffer_size_mb() == 0) {
    return Invalid("storage.write_buffer_size_mb", "must be at least 1");
  }
  if (s.write_buffer_size_mb() > (64 << 10)) {
    return Invalid("storage.write_buffer_size_mb",
                   absl::StrCat("must be at most 65536 (64 GiB), got ",
                                s.write_buffer_size_mb()));
  }
  if (s.max_write_buffer_number() < 1) {
    return Invalid("storage.max_write_buffer_number", "must be at least 1");
  }
  if (s.max_background_jobs() < 1) {
    return Invalid("storage.max_background_jobs", "must be at least 1");
  }
  if (s.level0_file_num_compaction_trigger() < 1) {
    return Invalid("storage.level0_file_num_compaction_trigger",
                   "must be at least 1");
  }
  return absl::OkStatus();
}

// The L0 triggers in order: compaction starts before writes slow down, and
// they slow down before they stop.
absl::Status ValidateL0Triggers(const v1::StorageConfig& s) {
  if (s.level0_slowdown_writes_trigger() <
      s.level0_file_num_compaction_trigger()) {
    return Invalid(
        "storage.level0_slowdown_writes_trigger",
        absl::StrCat(
            "(", s.level0_slowdown_writes_trigger(),
            ") must be >= storage.level0_file_num_compaction_trigger (",
            s.level0_file_num_compaction_trigger(), ")"));
  }
  if (s.level0_stop_writes_trigger() < s.level0_slowdown_writes_trigger()) {
    return Invalid(
        "storage.level0_stop_writes_trigger",
        absl::StrCat("(", s.level0_stop_writes_trigger(),
                     ") must be >= storage.level0_slowdown_writes_trigger (",
                     s.level0_slowdown_writes_trigger(), ")"));
  }
  return absl::OkStatus();
}

absl::Status ValidateMemory(const v1::StorageConfig& s) {
  if (s.memory_budget_mb() < kMinMemoryBudgetMb) {
    return Invalid("storage.memory_budget_mb",
                   absl::StrCat("must be at least ", kMinMemoryBudgetMb,
                                " MiB, got ", s.memory_budget_mb()));
  }
  if (s.db_write_buffer_size_mb() != 0 &&
      s.db_write_buffer_size_mb() < s.write_buffer_size_mb()) {
    // Seed 000's trap: a total memtable budget below one memtable flushes
    // tiny files all the time and throttles every write.
    return Invalid(
        "storage.db_write_buffer_size_mb",
        absl::StrCat("(", s.db_write_buffer_size_mb(),
                     " MiB) is smaller than one memtable, "
                     "storage.write_buffer_size_mb (",
                     s.write_buffer_size_mb(),
                     " MiB): every memtable would flush before it fills"));
  }
  return absl::OkStatus();
}

// The metrics port and the map page: off unless asked for, on loopback.
void SetHttpDefaults(v1::ServerConfig* server) {
  if (!server->has_metrics_port()) server->set_metrics_port(0);
  if (server->metrics_bind_address().empty()) {
    server->set_metrics_bind_address("127.0.0.1");
  }
  if (!server->has_http_port()) server->set_http_port(0);
  if (server->http_bind_address().empty()) {
    server->set_http_bind_address("127.0.0.1");
  }
  if (server->http_leaflet_dir().empty()) {
    server->set_http_leaflet_dir("/usr/share/javascript/leaflet");
  }
}

// Client limits of both doors.
void SetClientLimitDefaults(v1::ServerConfig* server) {
  if (!server->has_resp_idle_timeout_s()) server->set_resp_idle_timeout_s(0);
  if (!server->has_resp_max_output_bytes()) {
    server->set_resp_max_output_bytes(0);
  }
  if (!server->has_grpc_max_concurrent_streams()) {
    server->set_grpc_max_concurrent_streams(100);
  }
  if (!server->has_grpc_max_threads()) server->set_grpc_max_threads(256);
  if (!server->has_grpc_max_metadata_bytes()) {
    server->set_grpc_max_metadata_bytes(16 * 1024);
  }
  if (!server->has_grpc_max_message_bytes()) {
    server->set_grpc_max_message_bytes(64 << 20);  // a full batch of points
  }
  if (!server->has_grpc_keepalive_time_ms()) {
    server->set_grpc_keepalive_time_ms(60 * 1000);
  }
  if (!server->has_grpc_keepalive_timeout_ms()) {
    server->set_grpc_keepalive_timeout_ms(20 * 1000);
  }
}

}  // namespace

absl::StatusOr<HostPort> ParseReplicaOf(absl::string_view text) {
  std::vector<absl::string_view> parts =
      absl::StrSplit(text, ' ', absl::SkipEmpty());
  int port = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[1], &port) || port < 1 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not \"host port\""));
  }
  return HostPort{std::string(parts[0]), port};
}

v1::TrackdbConfig WithDefaults(const v1::TrackdbConfig& config) {
  v1::TrackdbConfig c = config;
  if (c.data_dir().empty()) c.set_data_dir("data");

  v1::ServerConfig* server = c.mutable_server();
  if (server->grpc_bind_address().empty()) {
    server->set_grpc_bind_address("127.0.0.1");
  }
  if (!server->has_grpc_port()) server->set_grpc_port(50051);
  if (server->resp_bind_address().empty()) {
    server->set_resp_bind_address("127.0.0.1");
  }
  if (!server->has_resp_port()) server->set_resp_port(6380);
  SetHttpDefaults(server);
  if (!server->has_resp_max_clients()) server->set_resp_max_clients(10000);
  if (!server->has_resp_max_bulk_len()) {
    server->set_resp_max_bulk_len(512ULL * 1024 * 1024);
  }
  if (!server->has_resp_max_multibulk_len()) {
    server->set_resp_max_multibulk_len(1024 * 1024);
  }
  if (server->resp_threads() == 0) {  // unset too
    server->set_resp_threads(std::max(1u, std::thread::hardware_concurrency()));
  }
  if (server->resp_worker_threads() == 0) server->set_resp_worker_threads(4);
  if (server->enable_debug_command().empty()) {
    server->set_enable_debug_command("no");
  }
  SetClientLimitDefaults(server);
  FillSecurityDefaults(server);

  *c.mutable_storage() = WithStorageDefaults(c.storage());
  if (!c.replication().has_sync_timeout_ms()) {
    c.mutable_replication()->set_sync_timeout_ms(1000);
  }
  *c.mutable_limits() = model::WithLimitDefaults(c.limits());
  return c;
}

uint64_t ServerReserveMb(uint64_t budget_mb) {
  return std::min(budget_mb / 2, std::max(kMinServerReserveMb, budget_mb / 8));
}

uint64_t RocksDbShareMb(uint64_t budget_mb) {
  return budget_mb - ServerReserveMb(budget_mb);
}

namespace {

// The memory budget and what derives from it (config.proto states the
// rules; conf/trackdb.textproto shows the values for the default budget).
void SetMemoryDefaults(v1::StorageConfig* s) {
  if (!s->has_memory_budget_mb()) s->set_memory_budget_mb(1024);
  const uint64_t rocks = RocksDbShareMb(s->memory_budget_mb());
  if (!s->has_db_write_buffer_size_mb()) {
    s->set_db_write_buffer_size_mb(rocks / 2);
  }
  if (!s->has_write_buffer_size_mb()) {
    s->set_write_buffer_size_mb(std::max<uint64_t>(
        1, std::min<uint64_t>(kMaxDerivedWriteBufferMb, rocks / 8)));
  }
  if (!s->has_block_cache_size_mb()) {
    const uint64_t memtables = s->db_write_buffer_size_mb();
    s->set_block_cache_size_mb(memtables < rocks
                                   ? rocks - memtables
                                   : std::max<uint64_t>(8, rocks / 8));
  }
}

// The caches' and logs' sizes and ages.
void SetCacheAndRetentionDefaults(v1::StorageConfig* s) {
  if (!s->has_string_cache_max_value_bytes()) {
    s->set_string_cache_max_value_bytes(16384);
  }
  if (!s->has_max_atomic_copy_mb()) {
    s->set_max_atomic_copy_mb(model::kDefaultMaxAtomicCopyMb);
  }
  if (!s->has_fence_log_max_age_s()) {
    s->set_fence_log_max_age_s(model::kDefaultFenceLogMaxAgeS);
  }
  if (!s->has_fence_log_max_events()) {
    s->set_fence_log_max_events(model::kDefaultFenceLogMaxEvents);
  }
  if (!s->has_wal_retention_s()) s->set_wal_retention_s(3600);
  if (!s->has_wal_retention_mb()) s->set_wal_retention_mb(1024);
  if (!s->has_backups_to_keep()) s->set_backups_to_keep(1);
}

// RocksDB's flush, compaction and compression knobs.
void SetRocksDbTuningDefaults(v1::StorageConfig* s) {
  if (!s->has_max_write_buffer_number()) s->set_max_write_buffer_number(4);
  if (!s->has_max_background_jobs()) s->set_max_background_jobs(4);
  if (!s->has_level0_file_num_compaction_trigger()) {
    s->set_level0_file_num_compaction_trigger(4);
  }
  if (!s->has_level0_slowdown_writes_trigger()) {
    s->set_level0_slowdown_writes_trigger(40);
  }
  if (!s->has_level0_stop_writes_trigger()) {
    s->set_level0_stop_writes_trigger(64);
  }
  if (s->compression() == v1::COMPRESSION_UNSPECIFIED) {
    s->set_compression(v1::COMPRESSION_LZ4);
  }
}

}  // namespace

v1::StorageConfig WithStorageDefaults(const v1::StorageConfig& storage) {
  v1::StorageConfig out = storage;
  if (out.durability() == v1::DURABILITY_UNSPECIFIED) {
    out.set_durability(v1::DURABILITY_WAL);
  }
  SetMemoryDefaults(&out);
  SetCacheAndRetentionDefaults(&out);
  SetRocksDbTuningDefaults(&out);
  return out;
}

absl::Status ValidateConfig(const v1::TrackdbConfig& config) {
  const v1::TrackdbConfig c = WithDefaults(config);
  absl::Status status = ValidateServer(c.server());
  if (status.ok()) status = ValidateMetricsPort(c.server());
  if (status.ok()) status = ValidateSecurity(c.server());
  if (status.ok()) status = ValidateLimits(c.limits());
  if (status.ok()) status = ValidateStorageKnobs(c.storage());
  if (status.ok() && !c.storage().bulk_load()) {
    status = ValidateL0Triggers(c.storage());
  }
  if (status.ok()) status = ValidateMemory(c.storage());
  if (status.ok()) status = ValidateReplication(c.replication());
  return status;
}

absl::StatusOr<v1::TrackdbConfig> ParseConfigText(
    absl::string_view text, absl::string_view source_name) {
  v1::TrackdbConfig config;
  FirstErrorCollector errors(source_name, text);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), &config)) {
    return absl::InvalidArgumentError(
        errors.error().empty() ? absl::StrCat(source_name, ": parse error")
                               : errors.error());
  }
  if (absl::Status s = ValidateConfig(config); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": ", s.message()));
  }
  return config;
}

absl::StatusOr<v1::TrackdbConfig> LoadConfigFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read config file ", path));
  }
  std::stringstream text;
  text << in.rdbuf();
  return ParseConfigText(text.str(), path);
}

}  // namespace trackdb::conf
