#include "service/replication/replica_link.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "service/replication/resp_client.h"
#include "storage/format/keys.h"
#include "storage/replication/replication.h"

namespace trackdb::replication {
namespace {

constexpr absl::Duration kConnectTimeout = absl::Seconds(2);
constexpr absl::Duration kRetryEvery = absl::Seconds(1);
// How long a pull waits on the primary for a write; its reply comes within
// this, so a replica that answers nothing for longer is lost.
constexpr int kPullWaitMs = 200;
constexpr absl::Duration kCallTimeout = absl::Seconds(30);
// A pull's answer comes within its wait: a primary silent for longer than
// this is lost (stopped, or cut off), and the link reconnects.
constexpr absl::Duration kPullTimeout = absl::Seconds(5);
constexpr size_t kPieceBytes = 4 << 20;

int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }

// The status that asks Follow for a full sync.
absl::Status NeedsFullSync(absl::string_view why) {
  return absl::AbortedError(why);
}

absl::Status ReplyError(const RespValue& reply, absl::string_view what) {
  if (reply.is_error()) {
    if (absl::StartsWith(reply.text, kFullSyncError)) {
      return NeedsFullSync(reply.text);
    }
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": the primary answered -", reply.text));
  }
  return absl::DataLossError(absl::StrCat(what, ": unexpected reply"));
}

// REPL.PULL's flat array of (sequence, count, batch).
absl::StatusOr<std::vector<storage::ShippedBatch>> ParseBatches(
    const RespValue& reply) {
  if (reply.kind != RespValue::Kind::kArray || reply.elements.size() % 3 != 0) {
    return ReplyError(reply, "REPL.PULL");
  }
  std::vector<storage::ShippedBatch> out;
  for (size_t i = 0; i < reply.elements.size(); i += 3) {
    const RespValue& seq = reply.elements[i];
    const RespValue& count = reply.elements[i + 1];
    const RespValue& data = reply.elements[i + 2];
    if (seq.kind != RespValue::Kind::kInteger ||
        count.kind != RespValue::Kind::kInteger ||
        data.kind != RespValue::Kind::kBulk || seq.integer <= 0 ||
        count.integer < 0) {
      return absl::DataLossError("REPL.PULL: malformed batch");
    }
    out.push_back({static_cast<uint64_t>(seq.integer),
                   static_cast<uint64_t>(count.integer), data.text});
  }
  return out;
}

// REPL.SNAPSHOT NEXT's flat array of (column family, key, value).
absl::StatusOr<std::vector<storage::SnapshotRecord>> ParseRecords(
    RespValue& reply) {
  if (reply.kind != RespValue::Kind::kArray || reply.elements.size() % 3 != 0) {
    return ReplyError(reply, "REPL.SNAPSHOT NEXT");
  }
  std::vector<storage::SnapshotRecord> out;
  for (size_t i = 0; i < reply.elements.size(); i += 3) {
    const RespValue& cf = reply.elements[i];
    if (cf.kind != RespValue::Kind::kInteger || cf.integer < 0 ||
        cf.integer >= static_cast<int64_t>(storage::kColumnFamilyCount)) {
      return absl::DataLossError("REPL.SNAPSHOT NEXT: malformed record");
    }
    out.push_back({static_cast<storage::ColumnFamily>(cf.integer),
                   std::move(reply.elements[i + 1].text),
                   std::move(reply.elements[i + 2].text)});
  }
  return out;
}

}  // namespace

ReplicaLink::ReplicaLink(storage::TrackStore* store, LinkOptions options)
    : store_(store), options_(std::move(options)) {
  thread_ = std::thread([this] { Run(); });
}

ReplicaLink::~ReplicaLink() {
  {
    absl::MutexLock lock(&mu_);
    stopping_.store(true);
    wake_.SignalAll();
  }
  applies_.Close();
  thread_.join();
}

LinkStatus ReplicaLink::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

void ReplicaLink::Update(const std::function<void(LinkStatus*)>& change) {
  absl::MutexLock lock(&mu_);
  change(&status_);
}

void ReplicaLink::Run() {
  while (!stopping()) {
    const absl::Status s = Follow();
    if (stopping()) break;
    std::fprintf(stderr, "trackd: replication from %s:%d: %s; retrying\n",
                 options_.host.c_str(), options_.port,
                 std::string(s.message()).c_str());
    Update([&](LinkStatus* st) {
      st->up = false;
      st->sync_in_progress = false;
      st->last_error = std::string(s.message());
    });
    absl::MutexLock lock(&mu_);
    wake_.WaitWithTimeout(&mu_, kRetryEvery);
  }
}

absl::Status ReplicaLink::Follow() {
  absl::StatusOr<RespClient> client =
      RespClient::Connect(options_.host, options_.port, kConnectTimeout);
  if (!client.ok()) return client.status();
  client->set_cancelled([this] { return stopping(); });
  if (!options_.password.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!options_.user.empty()) auth.push_back(options_.user);
    auth.push_back(options_.password);
    absl::StatusOr<RespValue> r = client->Call(auth, kCallTimeout);
    if (!r.ok()) return r.status();
    if (r->is_error()) return ReplyError(*r, "AUTH");
  }
  while (!stopping()) {
    absl::StatusOr<std::optional<storage::ReplicationMark>> mark =
        storage::ReadReplicationMark(*store_);
    if (!mark.ok()) return mark.status();
    absl::Status s = *mark ? PullOnce(*client, (*mark)->replid, (*mark)->next)
                           : NeedsFullSync("no data synced yet");
    if (absl::IsAborted(s)) s = FullSync(*client);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ReplicaLink::PullOnce(RespClient& client,
                                   const std::string& replid, uint64_t next) {
  absl::StatusOr<RespValue> reply =
      client.Call({"REPL.PULL", replid, absl::StrCat(next),
                   absl::StrCat(options_.listening_port),
                   absl::StrCat(kPullWaitMs), absl::StrCat(kPieceBytes)},
                  kPullTimeout + absl::Milliseconds(kPullWaitMs));
  if (!reply.ok()) return reply.status();
  absl::StatusOr<std::vector<storage::ShippedBatch>> batches =
      ParseBatches(*reply);
  if (!batches.ok()) return batches.status();
  if (absl::Status s = applies_.Run(
          [&] { return storage::ApplyShipped(*store_, replid, *batches); });
      !s.ok()) {
    return s;
  }
  const uint64_t applied =
      batches->empty() ? next - 1
                       : batches->back().sequence + batches->back().count - 1;
  Update([&](LinkStatus* st) {
    st->up = true;
    st->last_io_ms = NowMs();
    st->applied = applied;
    st->partial_pulls += batches->empty() ? 0 : 1;
    st->last_error.clear();
  });
  return absl::OkStatus();
}

absl::Status ReplicaLink::FullSync(RespClient& client) {
  Update([](LinkStatus* st) { st->sync_in_progress = true; });
  absl::StatusOr<RespValue> begun =
      client.Call({"REPL.SNAPSHOT", "BEGIN"}, kCallTimeout);
  if (!begun.ok()) return begun.status();
  if (begun->kind != RespValue::Kind::kArray || begun->elements.size() != 2 ||
      begun->elements[1].kind != RespValue::Kind::kInteger) {
    return ReplyError(*begun, "REPL.SNAPSHOT BEGIN");
  }
  const std::string replid = begun->elements[0].text;
  const uint64_t sequence = static_cast<uint64_t>(begun->elements[1].integer);
  absl::StatusOr<std::unique_ptr<storage::FullSync>> sync =
      storage::FullSync::Begin(*store_);
  if (!sync.ok()) return sync.status();
  while (!stopping()) {
    absl::StatusOr<RespValue> piece = client.Call(
        {"REPL.SNAPSHOT", "NEXT", absl::StrCat(kPieceBytes)}, kCallTimeout);
    if (!piece.ok()) return piece.status();
    absl::StatusOr<std::vector<storage::SnapshotRecord>> records =
        ParseRecords(*piece);
    if (!records.ok()) return records.status();
    if (records->empty()) break;
    if (absl::Status s =
            applies_.Run([&] { return (*sync)->Absorb(*records); });
        !s.ok()) {
      return s;
    }
    Update([](LinkStatus* st) { st->last_io_ms = NowMs(); });
  }
  if (stopping()) return absl::CancelledError("stopped");
  if (absl::Status s =
          applies_.Run([&] { return (*sync)->Finish(replid, sequence); });
      !s.ok()) {
    return s;
  }
  std::fprintf(stderr,
               "trackd: full sync from %s:%d done at sequence %llu, %llu "
               "keys changed\n",
               options_.host.c_str(), options_.port,
               static_cast<unsigned long long>(sequence),
               static_cast<unsigned long long>((*sync)->changed()));
  Update([&](LinkStatus* st) {
    st->sync_in_progress = false;
    st->up = true;
    st->last_io_ms = NowMs();
    st->applied = sequence;
    ++st->full_syncs;
  });
  return absl::OkStatus();
}

}  // namespace trackdb::replication
