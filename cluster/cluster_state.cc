#include "cluster/cluster_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace trackdb::cluster {
namespace {

constexpr char kInvalidVersion[] = "Invalid cluster version";

// Whether a node at host:port is this one, listening on my_host:my_port
// (a wildcard bind matches any host).
bool IsMe(const Node& node, const std::string& my_host, int my_port) {
  if (node.port != my_port) return false;
  return my_host.empty() || my_host == "0.0.0.0" || my_host == "::" ||
         node.host == my_host;
}

void FindMyself(ClusterView* view) {
  view->myself = view->topology ? view->topology->Find(view->my_id) : -1;
}

absl::Status WriteFileSynced(const std::string& path,
                             const std::string& content) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("open ", tmp, ": errno ", errno));
  }
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return absl::InternalError(
          absl::StrCat("write ", tmp, ": errno ", errno));
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || std::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("save ", path, ": errno ", errno));
  }
  // The rename is durable once the directory is synced.
  const size_t slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : path.substr(0, slash);
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir_fd < 0 || ::fsync(dir_fd) != 0) {
    if (dir_fd >= 0) ::close(dir_fd);
    return absl::InternalError(absl::StrCat("sync ", dir, ": errno ", errno));
  }
  ::close(dir_fd);
  return absl::OkStatus();
}

}  // namespace

Route RouteKeys(const ClusterView& view,
                absl::Span<const absl::string_view> keys, bool write) {
  Route route;
  if (keys.empty()) return route;
  // As Redis's getNodeByQuery: an unserved first slot is CLUSTERDOWN before
  // any other key is looked at.
  route.slot = KeySlot(keys[0]);
  const int owner = view.topology ? view.topology->Owner(route.slot) : -1;
  if (owner < 0) {
    route.kind = Route::Kind::kDown;
    return route;
  }
  for (absl::string_view key : keys.subspan(1)) {
    if (KeySlot(key) != route.slot) {
      route.kind = Route::Kind::kCrossSlot;
      return route;
    }
  }
  if (owner == view.myself) return route;
  if (!write && view.myself >= 0) {
    const Node& me = view.topology->nodes()[view.myself];
    if (!me.master && me.master_id == view.topology->nodes()[owner].id) {
      return route;  // a replica serves its master's slots' reads
    }
  }
  const Node& n = view.topology->nodes()[owner];
  route.kind = Route::Kind::kMoved;
  route.address = absl::StrCat(n.host, ":", n.port);
  return route;
}

std::string RouteError(const Route& route) {
  switch (route.kind) {
    case Route::Kind::kMoved:
      return absl::StrCat("MOVED ", route.slot, " ", route.address);
    case Route::Kind::kCrossSlot:
      return "CROSSSLOT Keys in request don't hash to the same slot";
    case Route::Kind::kDown:
      return "CLUSTERDOWN Hash slot not served";
    case Route::Kind::kServe:
      break;
  }
  return "";
}

absl::StatusOr<std::unique_ptr<ClusterState>> ClusterState::Open(
    std::string path, std::string my_host, int my_port) {
  std::unique_ptr<ClusterState> state(
      new ClusterState(std::move(path), std::move(my_host), my_port));
  if (absl::Status s = state->Load(); !s.ok()) return s;
  return state;
}

ClusterState::Migration ClusterState::migration() const {
  absl::MutexLock lock(&mu_);
  return migration_;
}

bool ClusterState::WritesHeldOff(int slot) const {
  absl::MutexLock lock(&mu_);
  return migration_.blocks_writes && migration_.Covers(slot);
}

void ClusterState::SetMigration(Migration migration) {
  absl::MutexLock lock(&mu_);
  migration_ = std::move(migration);
}

std::shared_ptr<const ClusterView> ClusterState::view() const {
  absl::MutexLock lock(&mu_);
  return view_;
}

// The file: "version <n>", "id <id>" and one "node <line>" per node.
absl::Status ClusterState::Load() {
  ClusterView view;
  std::ifstream in(path_);
  std::string line, nodes;
  while (in && std::getline(in, line)) {
    absl::string_view rest = line;
    if (absl::ConsumePrefix(&rest, "version ")) {
      if (!absl::SimpleAtoi(rest, &view.version)) {
        return absl::DataLossError(absl::StrCat(path_, ": bad version"));
      }
    } else if (absl::ConsumePrefix(&rest, "id ")) {
      view.my_id = std::string(rest);
    } else if (absl::ConsumePrefix(&rest, "node ")) {
      absl::StrAppend(&nodes, rest, "\n");
    }
  }
  if (!nodes.empty()) {
    absl::StatusOr<Topology> topology = Topology::Parse(nodes);
    if (!topology.ok()) {
      return absl::DataLossError(
          absl::StrCat(path_, ": ", topology.status().message()));
    }
    view.topology = *std::move(topology);
  }
  FindMyself(&view);
  Publish(std::move(view));
  return absl::OkStatus();
}

absl::Status ClusterState::Save(const ClusterView& view) const {
  std::string content =
      absl::StrCat("version ", view.version, "\n", "id ", view.my_id, "\n");
  if (view.topology) {
    for (absl::string_view line :
         absl::StrSplit(view.topology->ToText(), '\n', absl::SkipEmpty())) {
      absl::StrAppend(&content, "node ", line, "\n");
    }
  }
  return WriteFileSynced(path_, content);
}

void ClusterState::Publish(ClusterView view) {
  absl::MutexLock lock(&mu_);
  view_ = std::make_shared<const ClusterView>(std::move(view));
}

absl::Status ClusterState::SetNodeId(absl::string_view id) {
  if (id.size() != kNodeIdLength) {
    return absl::InvalidArgumentError("Invalid cluster node id");
  }
  absl::MutexLock change(&change_mu_);
  ClusterView view = *this->view();
  view.my_id = std::string(id);
  FindMyself(&view);
  if (absl::Status s = Save(view); !s.ok()) return s;
  Publish(std::move(view));
  return absl::OkStatus();
}

absl::Status ClusterState::SetNodes(absl::string_view text, int64_t version,
                                    bool force) {
  if (version < 0) return absl::InvalidArgumentError(kInvalidVersion);
  absl::MutexLock change(&change_mu_);
  ClusterView view = *this->view();
  if (!force && view.version > version) {
    return absl::InvalidArgumentError(kInvalidVersion);
  }
  if (!force && view.version == version) return absl::OkStatus();
  absl::StatusOr<Topology> topology = Topology::Parse(text);
  if (!topology.ok()) return topology.status();
  view.version = version;
  view.topology = *std::move(topology);
  if (view.my_id.empty() || force) {
    for (const Node& n : view.topology->nodes()) {
      if (IsMe(n, my_host_, my_port_)) {
        view.my_id = n.id;
        break;
      }
    }
  }
  FindMyself(&view);
  if (absl::Status s = Save(view); !s.ok()) return s;
  Publish(std::move(view));
  return absl::OkStatus();
}

}  // namespace trackdb::cluster
