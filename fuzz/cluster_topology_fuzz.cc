// The cluster topology parser (cluster/topology.h) on arbitrary text, as
// CLUSTERX SETNODES and a node's cluster_nodes.conf hand it over, and the
// slot of arbitrary keys (cluster/key_slot.h).
//
// Checked: nothing crashes; a refused map says why; an accepted one prints
// (ToText) and parses back to the same nodes and slot owners, its runs
// cover exactly the owned slots in order, every slot's owner is a master,
// and a slave's master id is 40 bytes; every key's slot is in range and is
// its hash tag's.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "cluster/key_slot.h"
#include "cluster/topology.h"
#include "fuzz/fuzz_check.h"

namespace trackdb::fuzz {
namespace {

void CheckAccepted(const cluster::Topology& t) {
  FUZZ_CHECK(!t.nodes().empty());
  int owned = 0;
  for (int slot = 0; slot < cluster::kSlots; ++slot) {
    const int owner = t.Owner(slot);
    if (owner < 0) continue;
    ++owned;
    FUZZ_CHECK(owner < static_cast<int>(t.nodes().size()));
    FUZZ_CHECK(t.nodes()[owner].master) << "slot " << slot << " has a slave";
  }
  FUZZ_CHECK(owned == t.AssignedSlots());
  int covered = 0, last = -1;
  for (const cluster::SlotRun& run : t.Runs()) {
    FUZZ_CHECK(run.first > last && run.first <= run.last);
    for (int slot = run.first; slot <= run.last; ++slot) {
      FUZZ_CHECK(t.Owner(slot) == run.owner);
    }
    covered += run.last - run.first + 1;
    last = run.last;
  }
  FUZZ_CHECK(covered == owned);
  for (const cluster::Node& n : t.nodes()) {
    FUZZ_CHECK(n.id.size() == cluster::kNodeIdLength);
    FUZZ_CHECK(n.master || n.master_id.size() == cluster::kNodeIdLength);
  }
  const std::string text = t.ToText();
  absl::StatusOr<cluster::Topology> again = cluster::Topology::Parse(text);
  FUZZ_CHECK(again.ok()) << "printed map refused: " << again.status() << "\n"
                         << text;
  FUZZ_CHECK(again->nodes().size() == t.nodes().size());
  for (int slot = 0; slot < cluster::kSlots; ++slot) {
    FUZZ_CHECK(again->Owner(slot) == t.Owner(slot)) << "slot " << slot;
  }
}

}  // namespace
}  // namespace trackdb::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trackdb;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  const int slot = cluster::KeySlot(input);
  FUZZ_CHECK(slot >= 0 && slot < cluster::kSlots);
  FUZZ_CHECK(slot == cluster::KeySlot(cluster::HashedPart(input)));
  absl::StatusOr<cluster::Topology> t = cluster::Topology::Parse(input);
  if (!t.ok()) {
    FUZZ_CHECK(!t.status().message().empty());
    return 0;
  }
  fuzz::CheckAccepted(*t);
  return 0;
}
