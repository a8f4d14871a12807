// trackdb_doctor: names a store's problems in words with the numbers behind
// them (storage/stats/doctor.h): small flushes, L0 slowdowns and stops,
// compaction falling behind, memory above the budget, bulk-load mode left
// on, memtable knobs that contradict each other.
//
// With a running trackd (the default): asks its AdminService, which samples
// for --sample_seconds so that rates are current.
//   bazel run //tools:trackdb_doctor -- --target=127.0.0.1:50051
// With no server: opens the data dir read-only (LSM shape and the options
// it was last opened with; no flush or stall history).
//   bazel run //tools:trackdb_doctor -- --data_dir=/var/lib/trackdb
//
// Exit status: 0 no problems, 1 a problem or warning found, 2 could not ask.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "conf/config.h"
#include "grpcpp/grpcpp.h"
#include "service/grpc/client_channel.h"
#include "storage/stats/info_section.h"
#include "storage/stats/store_stats.h"
#include "storage/stats/doctor.h"
#include "trackdb/v1/admin_service.grpc.pb.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "trackd's gRPC address");
ABSL_FLAG(std::string, data_dir, "",
          "Diagnose this data dir read-only instead of asking a server.");
ABSL_FLAG(std::string, config, "",
          "With --data_dir: the trackd config (for the memory budget); "
          "default: trackdb's defaults.");
ABSL_FLAG(double, sample_seconds, 2,
          "How long the server samples for the rates it quotes.");
ABSL_FLAG(bool, stats, false, "Also print the statistics (INFO format).");

namespace trackdb {
namespace {

int Report(const std::string& text, bool problems) {
  std::fputs(text.c_str(), stdout);
  return problems ? 1 : 0;
}

int FromServer() {
  auto channel = service::NewClientChannel(absl::GetFlag(FLAGS_target),
                                           service::ClientSecurityFromFlags());
  if (!channel.ok()) {
    std::fprintf(stderr, "trackdb_doctor: %s\n",
                 std::string(channel.status().message()).c_str());
    return 2;
  }
  auto stub = v1::AdminService::NewStub(*channel);
  const double sample = absl::GetFlag(FLAGS_sample_seconds);
  grpc::ClientContext context;
  context.set_deadline(
      std::chrono::system_clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>((sample + 30) * 1000)));
  v1::DiagnoseRequest request;
  request.set_sample_seconds(sample);
  v1::DiagnoseResponse response;
  grpc::Status s = stub->Diagnose(&context, request, &response);
  if (!s.ok()) {
    std::fprintf(stderr,
                 "trackdb_doctor: cannot ask trackd at %s: %s\n"
                 "(no server running? use --data_dir to read a data dir)\n",
                 absl::GetFlag(FLAGS_target).c_str(),
                 s.error_message().c_str());
    return 2;
  }
  if (absl::GetFlag(FLAGS_stats)) {
    grpc::ClientContext stats_context;
    v1::GetStatsResponse stats;
    if (stub->GetStats(&stats_context, v1::GetStatsRequest(), &stats).ok()) {
      std::fputs(stats.info_text().c_str(), stdout);
    }
  }
  bool problems = false;
  for (const v1::Finding& f : response.findings()) {
    problems |= f.severity() != v1::Finding::SEVERITY_INFO;
  }
  return Report(response.text(), problems);
}

int FromDataDir() {
  v1::StorageConfig storage;
  if (!absl::GetFlag(FLAGS_config).empty()) {
    auto config = conf::LoadConfigFile(absl::GetFlag(FLAGS_config));
    if (!config.ok()) {
      std::fprintf(stderr, "trackdb_doctor: %s\n",
                   std::string(config.status().message()).c_str());
      return 2;
    }
    storage = config->storage();
  }
  auto read =
      storage::ReadStoreStatsReadOnly(absl::GetFlag(FLAGS_data_dir), storage);
  if (!read.ok()) {
    std::fprintf(stderr, "trackdb_doctor: %s\n",
                 std::string(read.status().message()).c_str());
    return 2;
  }
  if (absl::GetFlag(FLAGS_stats)) {
    std::fputs(storage::FormatInfoSection(read->stats).c_str(), stdout);
  }
  const auto findings = storage::Diagnose(read->stats, read->options);
  bool problems = false;
  for (const auto& f : findings)
    problems |= f.severity > storage::Finding::kInfo;
  return Report(storage::FormatFindings(findings), problems);
}

}  // namespace
}  // namespace trackdb

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    if (chdir(ws) != 0) return 2;  // relative paths as the user typed them
  }
  return absl::GetFlag(FLAGS_data_dir).empty() ? trackdb::FromServer()
                                               : trackdb::FromDataDir();
}
