#include "service/grpc/cluster_router.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "cluster/key_slot.h"
#include "google/rpc/status.pb.h"
#include "service/replication/resp_client.h"

namespace trackdb::service {
namespace {

constexpr char kForwardHeader[] = "trackdb-forward";
constexpr char kForwardedHeader[] = "trackdb-forwarded";

absl::string_view Header(const grpc::ServerContextBase& context,
                         const char* name) {
  auto it = context.client_metadata().find(name);
  if (it == context.client_metadata().end()) return "";
  return absl::string_view(it->second.data(), it->second.size());
}

// INFO server's grpc_port, from its text.
std::optional<int> GrpcPortOf(absl::string_view info) {
  for (absl::string_view line : absl::StrSplit(info, "\r\n")) {
    if (!absl::ConsumePrefix(&line, "grpc_port:")) continue;
    int port = 0;
    if (absl::SimpleAtoi(line, &port) && port > 0) return port;
  }
  return std::nullopt;
}

}  // namespace

ClusterRouter::ClusterRouter(const v1::ReplicationConfig& peer_credentials)
    : user_(peer_credentials.primary_user()),
      password_(peer_credentials.primary_password()) {}

absl::StatusOr<std::string> ClusterRouter::GrpcAddress(const std::string& host,
                                                       int port) {
  const std::string resp = absl::StrCat(host, ":", port);
  {
    absl::MutexLock lock(&mu_);
    auto it = grpc_addresses_.find(resp);
    if (it != grpc_addresses_.end()) return it->second;
  }
  const absl::Duration timeout = absl::Seconds(2);
  auto client = replication::RespClient::Connect(host, port, timeout);
  if (!client.ok()) return client.status();
  if (!password_.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!user_.empty()) auth.push_back(user_);
    auth.push_back(password_);
    auto r = client->Call(auth, timeout);
    if (!r.ok()) return r.status();
  }
  auto info = client->Call({"INFO", "server"}, timeout);
  if (!info.ok()) return info.status();
  const std::optional<int> grpc_port = GrpcPortOf(info->text);
  if (!grpc_port) {
    return absl::UnavailableError(
        absl::StrCat("node ", resp, " reports no grpc_port in INFO server"));
  }
  const std::string address = absl::StrCat(host, ":", *grpc_port);
  absl::MutexLock lock(&mu_);
  grpc_addresses_[resp] = address;
  return address;
}

absl::StatusOr<std::optional<ClusterRouter::Owner>> ClusterRouter::Route(
    absl::string_view collection, bool write) {
  const cluster::ClusterState* state = state_.load();
  if (state == nullptr) return std::nullopt;
  const std::shared_ptr<const cluster::ClusterView> view = state->view();
  const absl::string_view keys[] = {collection};
  const cluster::Route route = cluster::RouteKeys(*view, keys, write);
  switch (route.kind) {
    case cluster::Route::Kind::kServe:
      return std::nullopt;
    case cluster::Route::Kind::kMoved:
      break;
    default:
      return absl::UnavailableError(cluster::RouteError(route));
  }
  const size_t colon = route.address.rfind(':');
  int port = 0;
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(route.address.substr(colon + 1), &port)) {
    return absl::InternalError("malformed node address " + route.address);
  }
  absl::StatusOr<std::string> address =
      GrpcAddress(route.address.substr(0, colon), port);
  if (!address.ok()) return address.status();
  return Owner{*address, route.slot};
}

bool ClusterRouter::HeldOff(absl::string_view collection) const {
  const cluster::ClusterState* state = state_.load();
  return state != nullptr && state->WritesHeldOff(cluster::KeySlot(collection));
}

absl::Mutex* ClusterRouter::WriteGate() const {
  const cluster::ClusterState* state = state_.load();
  return state == nullptr ? nullptr : &state->migration_gate();
}

bool ClusterRouter::Migrating(absl::string_view collection) const {
  const cluster::ClusterState* state = state_.load();
  if (state == nullptr) return false;
  const cluster::ClusterState::Migration m = state->migration();
  return m.state == "start" && m.Covers(cluster::KeySlot(collection));
}

std::shared_ptr<grpc::Channel> ClusterRouter::ChannelTo(
    const std::string& address) {
  absl::MutexLock lock(&mu_);
  std::shared_ptr<grpc::Channel>& channel = channels_[address];
  if (!channel) {
    channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  }
  return channel;
}

v1::Topology ClusterRouter::Topology() {
  v1::Topology out;
  const cluster::ClusterState* state = state_.load();
  out.set_cluster_enabled(state != nullptr);
  if (state == nullptr) return out;
  const std::shared_ptr<const cluster::ClusterView> view = state->view();
  out.set_version(view->version);
  out.set_my_id(view->my_id);
  if (!view->topology) return out;
  const cluster::Topology& topology = *view->topology;
  auto fill = [&](int index, v1::TopologyNode* node) {
    const cluster::Node& n = topology.nodes()[index];
    node->set_id(n.id);
    node->set_host(n.host);
    node->set_resp_port(n.port);
    absl::StatusOr<std::string> address = GrpcAddress(n.host, n.port);
    if (address.ok()) node->set_grpc_address(*address);
  };
  std::map<int, v1::Shard*> shards;
  for (const cluster::SlotRun& run : topology.Runs()) {
    if (run.owner < 0) continue;
    v1::Shard*& shard = shards[run.owner];
    if (shard == nullptr) {
      shard = out.add_shards();
      fill(run.owner, shard->mutable_master());
      for (int r : topology.ReplicasOf(run.owner)) {
        fill(r, shard->add_replicas());
      }
    }
    v1::SlotRange* range = shard->add_slots();
    range->set_first(run.first);
    range->set_last(run.last);
  }
  return out;
}

bool MayForward(const grpc::ServerContextBase& context) {
  return Header(context, kForwardHeader) != "no" &&
         Header(context, kForwardedHeader).empty();
}

void PrepareForward(const grpc::ServerContextBase& from,
                    grpc::ClientContext* to) {
  auto it = from.client_metadata().find("authorization");
  if (it != from.client_metadata().end()) {
    to->AddMetadata("authorization",
                    std::string(it->second.data(), it->second.size()));
  }
  to->AddMetadata(kForwardedHeader, "1");
  if (from.deadline() != std::chrono::system_clock::time_point::max()) {
    to->set_deadline(from.deadline());
  }
}

grpc::Status WrongShard(const ClusterRouter::Owner& owner,
                        absl::string_view collection) {
  const std::string message = absl::StrCat(
      "collection '", collection, "' (slot ", owner.slot, ") is served by ",
      owner.grpc_address, ": send the call there");
  google::rpc::ErrorInfo info;
  info.set_reason("WRONG_SHARD");
  info.set_domain("trackdb.io");
  (*info.mutable_metadata())["owner"] = owner.grpc_address;
  (*info.mutable_metadata())["slot"] = absl::StrCat(owner.slot);
  google::rpc::Status status;
  status.set_code(grpc::StatusCode::FAILED_PRECONDITION);
  status.set_message(message);
  status.add_details()->PackFrom(info);
  return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, message,
                      status.SerializeAsString());
}

std::string CollectionOf(const google::protobuf::Message& request) {
  const google::protobuf::Descriptor* d = request.GetDescriptor();
  const google::protobuf::Reflection* r = request.GetReflection();
  if (const auto* f = d->FindFieldByName("collection");
      f != nullptr &&
      f->type() == google::protobuf::FieldDescriptor::TYPE_STRING &&
      !f->is_repeated()) {
    return r->GetString(request, f);
  }
  for (int i = 0; i < d->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = d->field(i);
    if (f->type() != google::protobuf::FieldDescriptor::TYPE_MESSAGE ||
        f->is_repeated() || !r->HasField(request, f)) {
      continue;
    }
    const google::protobuf::Message& inner = r->GetMessage(request, f);
    const auto* c = inner.GetDescriptor()->FindFieldByName("collection");
    if (c != nullptr &&
        c->type() == google::protobuf::FieldDescriptor::TYPE_STRING &&
        !c->is_repeated()) {
      return inner.GetReflection()->GetString(inner, c);
    }
  }
  return "";
}

}  // namespace trackdb::service
