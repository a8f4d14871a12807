#ifndef TRACKDB_SERVICE_GRPC_CLUSTER_ROUTER_H_
#define TRACKDB_SERVICE_GRPC_CLUSTER_ROUTER_H_

// gRPC in cluster mode (server.cluster_enabled): a call on a collection is
// served by the node whose slot holds it. A collection is its Redis key in
// database 0, so its slot is CLUSTER KEYSLOT's and the owner is the one
// the RESP door's topology names (cluster/cluster_state.h), its replica
// for reads as on RESP. A unary call that reaches another node is
// forwarded to the owner, carrying the caller's credentials and deadline,
// and answered with what the owner answers (its acknowledgement included).
// A client that sends `trackdb-forward: no`, a call already forwarded once
// (no loops while topologies disagree), and streams (StreamPoints, Watch),
// which are not forwarded, get FAILED_PRECONDITION naming the owner's gRPC
// address in the message and in a google.rpc.ErrorInfo.
//
// A peer's gRPC address is the peer's own word: its RESP address from the
// topology, asked INFO server's grpc_port once (with the credentials
// replication uses towards peers) and cached.

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "cluster/cluster_state.h"
#include "grpcpp/grpcpp.h"
#include "trackdb/v1/admin_service.pb.h"
#include "trackdb/v1/config.pb.h"

namespace trackdb::service {

class ClusterRouter {
 public:
  explicit ClusterRouter(const v1::ReplicationConfig& peer_credentials);

  // The RESP door's cluster state, once it is open (null: not a cluster).
  void Attach(const cluster::ClusterState* state) { state_.store(state); }
  bool enabled() const { return state_.load() != nullptr; }

  struct Owner {
    std::string grpc_address;  // host:port
    int slot = 0;
  };
  // Who serves `collection` (nullopt: this node); UNAVAILABLE with Redis's
  // CLUSTERDOWN words when no node serves its slot.
  absl::StatusOr<std::optional<Owner>> Route(absl::string_view collection,
                                             bool write);
  // A migration of the collection's slot holds its writes off (TRYAGAIN);
  // check it holding WriteGate() shared (null: not a cluster), as the RESP
  // door does (cluster/cluster_state.h).
  bool HeldOff(absl::string_view collection) const;
  absl::Mutex* WriteGate() const;
  // A migration of the collection's slot is under way (streams, which are
  // not held at the gate, are refused meanwhile).
  bool Migrating(absl::string_view collection) const;
  // One channel per address, kept.
  std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address);
  // The topology, each node's gRPC address asked as Route asks it.
  v1::Topology Topology();

 private:
  absl::StatusOr<std::string> GrpcAddress(const std::string& host, int port);

  const std::string user_, password_;
  std::atomic<const cluster::ClusterState*> state_{nullptr};
  absl::Mutex mu_;
  std::map<std::string, std::string> grpc_addresses_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_
      ABSL_GUARDED_BY(mu_);
};

// Whether the call may be forwarded: the client did not say
// `trackdb-forward: no` and no node forwarded it already.
bool MayForward(const grpc::ServerContextBase& context);
// What a forwarded call carries: the caller's authorization and deadline,
// and the mark that it was forwarded.
void PrepareForward(const grpc::ServerContextBase& from,
                    grpc::ClientContext* to);
// FAILED_PRECONDITION for a call on `collection` that `owner` serves.
grpc::Status WrongShard(const ClusterRouter::Owner& owner,
                        absl::string_view collection);
// The collection a request names: its `collection` field, or that of a
// message field (PutFenceRequest's fence); empty if none.
std::string CollectionOf(const google::protobuf::Message& request);

}  // namespace trackdb::service

#endif  // TRACKDB_SERVICE_GRPC_CLUSTER_ROUTER_H_
