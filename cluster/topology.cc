#include "cluster/topology.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace trackdb::cluster {
namespace {

constexpr char kInvalidNodes[] = "Invalid cluster nodes info";
constexpr char kInvalidNodeId[] = "Invalid cluster node id";
constexpr char kSlotOutOfRange[] = "Slot is out of range";
constexpr char kSlotOverlapped[] = "Slot distribution is overlapped";

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

bool ParseSlot(absl::string_view text, int* slot) {
  return absl::SimpleAtoi(text, slot) && *slot >= 0 && *slot < kSlots &&
         !text.empty() && absl::ascii_isdigit(text[0]);
}

// A master's slot field, "n" or "a-b" (a < b), into [first, last].
absl::Status ParseSlotField(absl::string_view field, int* first, int* last) {
  std::vector<absl::string_view> ends = absl::StrSplit(field, '-');
  if (ends.size() == 1 && ParseSlot(ends[0], first)) {
    *last = *first;
    return absl::OkStatus();
  }
  if (ends.size() == 2 && ParseSlot(ends[0], first) &&
      ParseSlot(ends[1], last) && *first < *last) {
    return absl::OkStatus();
  }
  return Invalid(kSlotOutOfRange);
}

// One line's node and, for a master, its slot fields.
absl::Status ParseNode(absl::string_view line, Node* node,
                       std::vector<absl::string_view>* slot_fields) {
  std::vector<absl::string_view> fields =
      absl::StrSplit(line, ' ', absl::SkipEmpty());
  if (fields.size() < 5) return Invalid(kInvalidNodes);
  if (fields[0].size() != kNodeIdLength) return Invalid(kInvalidNodeId);
  node->id = std::string(fields[0]);
  node->host = std::string(fields[1]);
  uint32_t port = 0;
  if (!absl::SimpleAtoi(fields[2], &port) || port > 65535) {
    return Invalid("Invalid cluster node port");
  }
  node->port = static_cast<int>(port);
  const std::string role = absl::AsciiStrToLower(fields[3]);
  if (role == "master") {
    node->master = true;
    if (fields[4] != "-") return Invalid(kInvalidNodeId);
  } else if (role == "slave" || role == "replica") {
    node->master = false;
    if (fields[4].size() != kNodeIdLength) return Invalid(kInvalidNodeId);
    if (fields.size() != 5) return Invalid(kInvalidNodes);
    node->master_id = std::string(fields[4]);
  } else {
    return Invalid("Invalid cluster node role");
  }
  slot_fields->assign(fields.begin() + 5, fields.end());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Topology> Topology::Parse(absl::string_view text) {
  Topology topology;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    Node node;
    std::vector<absl::string_view> slot_fields;
    if (absl::Status s = ParseNode(line, &node, &slot_fields); !s.ok()) {
      return s;
    }
    if (topology.Find(node.id) >= 0) return Invalid(kInvalidNodes);
    const int index = static_cast<int>(topology.nodes_.size());
    for (absl::string_view field : slot_fields) {
      int first = 0, last = 0;
      if (absl::Status s = ParseSlotField(field, &first, &last); !s.ok()) {
        return s;
      }
      for (int slot = first; slot <= last; ++slot) {
        if (topology.slot_owner_[slot] >= 0) return Invalid(kSlotOverlapped);
        topology.slot_owner_[slot] = index;
      }
    }
    topology.nodes_.push_back(std::move(node));
  }
  if (topology.nodes_.empty()) return Invalid(kInvalidNodes);
  return topology;
}

int Topology::Find(absl::string_view id) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

std::vector<SlotRun> Topology::Runs() const {
  std::vector<SlotRun> runs;
  for (int slot = 0; slot < kSlots; ++slot) {
    const int owner = slot_owner_[slot];
    if (owner < 0) continue;
    if (!runs.empty() && runs.back().owner == owner &&
        runs.back().last == slot - 1) {
      runs.back().last = slot;
    } else {
      runs.push_back({slot, slot, owner});
    }
  }
  return runs;
}

std::vector<int> Topology::ReplicasOf(int master) const {
  std::vector<int> replicas;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i].master && nodes_[i].master_id == nodes_[master].id) {
      replicas.push_back(static_cast<int>(i));
    }
  }
  return replicas;
}

int Topology::Size() const {
  std::vector<bool> owns(nodes_.size(), false);
  for (int owner : slot_owner_) {
    if (owner >= 0) owns[owner] = true;
  }
  int size = 0;
  for (bool o : owns) size += o ? 1 : 0;
  return size;
}

int Topology::AssignedSlots() const {
  int assigned = 0;
  for (int owner : slot_owner_) assigned += owner >= 0 ? 1 : 0;
  return assigned;
}

std::string Topology::ToText() const {
  std::vector<SlotRun> runs = Runs();
  std::string text;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    absl::StrAppend(&text, n.id, " ", n.host, " ", n.port,
                    n.master ? " master -" : " slave ",
                    n.master ? "" : n.master_id);
    for (const SlotRun& run : runs) {
      if (run.owner != static_cast<int>(i)) continue;
      absl::StrAppend(&text, " ", run.first);
      if (run.last > run.first) absl::StrAppend(&text, "-", run.last);
    }
    text += "\n";
  }
  return text;
}

}  // namespace trackdb::cluster
