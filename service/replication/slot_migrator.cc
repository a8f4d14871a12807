#include "service/replication/slot_migrator.h"

#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cluster/key_slot.h"
#include "service/replication/resp_client.h"
#include "storage/replication/replication.h"

namespace trackdb::replication {
namespace {

constexpr absl::Duration kCallTimeout = absl::Seconds(30);
constexpr size_t kPieceBytes = 4 << 20;
// How long the WAL is followed before writes are held off to finish, when
// writers keep the destination from catching up.
constexpr absl::Duration kMaxFollow = absl::Seconds(30);
// How long the source waits for the topology to move the slots before it
// keeps their names (the controller gave up, or another decided).
constexpr absl::Duration kMaxRelease = absl::Minutes(5);

// Calls `argv` on the destination; its error reply is a failure.
absl::Status CallDestination(RespClient& client,
                             const std::vector<std::string>& argv) {
  absl::StatusOr<RespValue> r = client.Call(argv, kCallTimeout);
  if (!r.ok()) return r.status();
  if (r->is_error()) {
    return absl::FailedPreconditionError(
        absl::StrCat(argv[0], ": the destination answered -", r->text));
  }
  return absl::OkStatus();
}

// AUTH with `destination`'s credentials, when it has a password.
absl::Status Authenticate(RespClient& client, const LinkOptions& destination) {
  if (destination.password.empty()) return absl::OkStatus();
  std::vector<std::string> auth = {"AUTH"};
  if (!destination.user.empty()) auth.push_back(destination.user);
  auth.push_back(destination.password);
  return CallDestination(client, auth);
}

}  // namespace

SlotMigrator::SlotMigrator(storage::TrackStore* store,
                           cluster::ClusterState* cluster, int first, int last,
                           LinkOptions destination)
    : store_(store),
      cluster_(cluster),
      first_(first),
      last_(last),
      destination_(std::move(destination)) {
  SetState("start", false);
  thread_ = std::thread([this] { Run(); });
}

SlotMigrator::~SlotMigrator() {
  stopping_.store(true);
  thread_.join();
}

void SlotMigrator::SetState(const char* state, bool blocks_writes) {
  cluster::ClusterState::Migration m;
  m.first = first_;
  m.last = last_;
  m.state = state;
  m.blocks_writes = blocks_writes;
  cluster_->SetMigration(m);
}

bool SlotMigrator::InSlots(absl::string_view name) const {
  const int slot = cluster::KeySlot(name);
  return slot >= first_ && slot <= last_;
}

void SlotMigrator::Run() {
  const absl::Status s = Copy();
  if (!s.ok()) {
    std::fprintf(stderr, "trackd: migrating slots %d-%d to %s:%d: %s\n", first_,
                 last_, destination_.host.c_str(), destination_.port,
                 std::string(s.message()).c_str());
    SetState("fail", false);
  } else {
    SetState("success", true);
    Release();
  }
  done_.store(true);
}

absl::Status SlotMigrator::Copy() {
  absl::StatusOr<RespClient> client = RespClient::Connect(
      destination_.host, destination_.port, absl::Seconds(2));
  if (!client.ok()) return client.status();
  client->set_cancelled([this] { return stopping_.load(); });
  if (absl::Status s = Authenticate(*client, destination_); !s.ok()) return s;
  const storage::NameFilter keep = [this](absl::string_view name) {
    return InSlots(name);
  };
  uint64_t next = 0;
  if (absl::Status s = CopySnapshot(*client, keep, &next); !s.ok()) return s;
  return FollowWal(*client, keep, next);
}

absl::Status SlotMigrator::CopySnapshot(
    RespClient& client, const std::function<bool(absl::string_view)>& keep,
    uint64_t* next) {
  auto reader = storage::SnapshotReader::Open(*store_, keep);
  if (!reader.ok()) return reader.status();
  *next = (*reader)->sequence() + 1;
  while (!stopping_.load()) {
    auto records = (*reader)->Next(kPieceBytes);
    if (!records.ok()) return records.status();
    if (records->empty()) break;
    if (absl::Status s = CallDestination(
            client, {kImportCommand, storage::EncodeRecords(*records)});
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status SlotMigrator::FollowWal(
    RespClient& client, const std::function<bool(absl::string_view)>& keep,
    uint64_t next) {
  // The WAL after the snapshot, until caught up (or for kMaxFollow); then,
  // with writes held off, up to the last write that got in.
  const absl::Time follow_until = absl::Now() + kMaxFollow;
  bool held = false;
  uint64_t last = 0;
  while (!stopping_.load()) {
    auto batches = storage::ReadUpdatesSince(*store_, next, kPieceBytes, keep);
    if (!batches.ok()) return batches.status();
    std::vector<std::string> argv = {kImportCommand};
    for (const storage::ShippedBatch& b : *batches) {
      if (b.kept > 0) argv.push_back(b.data);
      next = b.sequence + b.count;
    }
    if (argv.size() > 1) {
      if (absl::Status s = CallDestination(client, argv); !s.ok()) return s;
    }
    if (held) {
      if (next > last) return absl::OkStatus();
      continue;
    }
    if (!batches->empty() && absl::Now() < follow_until) continue;
    {
      // Every write that got in has finished once the gate is ours.
      absl::WriterMutexLock gate(&cluster_->migration_gate());
      SetState("start", true);
    }
    held = true;
    last = storage::LatestSequence(*store_);
  }
  return absl::CancelledError("stopped");
}

void SlotMigrator::Release() {
  const absl::Time until = absl::Now() + kMaxRelease;
  while (!stopping_.load() && absl::Now() < until) {
    const std::shared_ptr<const cluster::ClusterView> view = cluster_->view();
    bool mine = false;
    if (view->topology && view->myself >= 0) {
      for (int slot = first_; slot <= last_ && !mine; ++slot) {
        mine = view->topology->Owner(slot) == view->myself;
      }
    }
    if (!mine) {
      absl::StatusOr<uint64_t> deleted = storage::DeleteNamesWhere(
          *store_, [this](absl::string_view name) { return InSlots(name); });
      if (!deleted.ok()) {
        std::fprintf(stderr, "trackd: deleting migrated slots %d-%d: %s\n",
                     first_, last_,
                     std::string(deleted.status().message()).c_str());
      }
      SetState("success", false);
      return;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  SetState("success", false);
}

}  // namespace trackdb::replication
