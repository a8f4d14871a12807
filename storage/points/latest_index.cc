#include "storage/points/latest_index.h"

#include <algorithm>
#include <map>

namespace trackdb::storage {

int64_t LatestIndex::EntryBytes(absl::string_view entity) {
  // The hash node (name, entry, hash slot and heap header), the name's heap
  // buffer when it outgrows the inline one, and the tree's share of a node.
  constexpr int64_t kNode = sizeof(Node) + sizeof(void*) + 16;
  constexpr int64_t kTreeEntry = sizeof(CellKey) * 3 / 2;
  const int64_t name_heap = entity.size() > 15 ? entity.size() + 17 : 0;
  return kNode + kTreeEntry + name_heap;
}

std::shared_ptr<LatestIndex::Collection> LatestIndex::Get(
    absl::string_view collection) const {
  absl::ReaderMutexLock l(&mu_);
  auto it = collections_.find(collection);
  return it == collections_.end() ? nullptr : it->second;
}

std::shared_ptr<LatestIndex::Collection> LatestIndex::GetOrCreate(
    absl::string_view collection) {
  if (auto c = Get(collection)) return c;
  absl::MutexLock l(&mu_);
  auto& slot = collections_[collection];
  if (!slot) slot = std::make_shared<Collection>();
  return slot;
}

void LatestIndex::SetLocked(Collection& c, absl::string_view entity,
                            const PointPosition& position) {
  const uint64_t cell = index::CellIdOf({position.lat, position.lon});
  auto [it, inserted] = c.entities.try_emplace(entity, Entry{position, cell});
  if (inserted) {
    bytes_.fetch_add(EntryBytes(entity), std::memory_order_relaxed);
    entities_.fetch_add(1, std::memory_order_relaxed);
  } else {
    if (it->second.cell != cell) {
      c.cells.erase(CellKey{it->second.cell, &*it});
    }
    it->second = Entry{position, cell};
  }
  c.cells.insert(CellKey{cell, &*it});
}

void LatestIndex::EraseLocked(Collection& c, absl::string_view entity) {
  auto it = c.entities.find(entity);
  if (it == c.entities.end()) return;
  c.cells.erase(CellKey{it->second.cell, &*it});
  bytes_.fetch_sub(EntryBytes(entity), std::memory_order_relaxed);
  entities_.fetch_sub(1, std::memory_order_relaxed);
  c.entities.erase(it);
}

void LatestIndex::Drop(absl::string_view collection) {
  std::shared_ptr<Collection> dropped;
  {
    absl::MutexLock l(&mu_);
    auto it = collections_.find(collection);
    if (it == collections_.end()) return;
    dropped = std::move(it->second);
    collections_.erase(it);
  }
  // Readers holding the collection finish with what it held.
  absl::MutexLock l(&dropped->mu);
  for (const Node& node : dropped->entities) {
    bytes_.fetch_sub(EntryBytes(node.first), std::memory_order_relaxed);
    entities_.fetch_sub(1, std::memory_order_relaxed);
  }
}

void LatestIndex::Copy(absl::string_view source,
                       absl::string_view destination) {
  Drop(destination);
  std::shared_ptr<Collection> from = Get(source);
  if (!from) return;
  std::shared_ptr<Collection> to = GetOrCreate(destination);
  absl::ReaderMutexLock rl(&from->mu);
  absl::MutexLock wl(&to->mu);
  for (const Node& node : from->entities) {
    SetLocked(*to, node.first, node.second.position);
  }
}

void LatestIndex::Set(absl::string_view collection, absl::string_view entity,
                      const PointPosition& position) {
  std::shared_ptr<Collection> c = GetOrCreate(collection);
  absl::MutexLock l(&c->mu);
  SetLocked(*c, entity, position);
}

void LatestIndex::Apply(absl::Span<const Change> changes) {
  size_t i = 0;
  while (i < changes.size()) {
    const Change& first = changes[i];
    if (first.kind == Change::Kind::kDropCollection ||
        first.kind == Change::Kind::kCopyCollection) {
      if (first.kind == Change::Kind::kDropCollection) {
        Drop(first.collection);
      } else {
        Copy(first.source, first.collection);
      }
      // Applied before the watchers are asked (latest_feed.h's Watch).
      if (feed_.watched()) {
        feed_.Record(LatestFeed::Update::Kind::kReset, first.collection, "",
                     {});
      }
      ++i;
      continue;
    }
    // A run of entity changes to one collection: one lock for all of them.
    std::shared_ptr<Collection> c = GetOrCreate(first.collection);
    absl::MutexLock l(&c->mu);
    for (; i < changes.size(); ++i) {
      const Change& change = changes[i];
      if (change.collection != first.collection) break;
      if (change.kind == Change::Kind::kSet) {
        SetLocked(*c, change.entity, change.position);
      } else if (change.kind == Change::Kind::kErase) {
        EraseLocked(*c, change.entity);
      } else {
        break;
      }
      if (feed_.watched()) {
        feed_.Record(change.kind == Change::Kind::kSet
                         ? LatestFeed::Update::Kind::kSet
                         : LatestFeed::Update::Kind::kErase,
                     change.collection, change.entity, change.position);
      }
    }
  }
}

std::vector<std::optional<PointPosition>> LatestIndex::Find(
    absl::string_view collection,
    absl::Span<const absl::string_view> entities) const {
  std::vector<std::optional<PointPosition>> found(entities.size());
  std::shared_ptr<Collection> c = Get(collection);
  if (!c) return found;
  absl::ReaderMutexLock l(&c->mu);
  for (size_t i = 0; i < entities.size(); ++i) {
    auto it = c->entities.find(entities[i]);
    if (it != c->entities.end()) found[i] = it->second.position;
  }
  return found;
}

uint64_t LatestIndex::Scan(
    absl::string_view collection, absl::Span<const index::CellRange> ranges,
    const std::function<bool(const PointPosition&)>& keep,
    std::vector<Hit>* out) const {
  std::shared_ptr<Collection> c = Get(collection);
  if (!c) return 0;
  // The smallest key of a cell: no entity name sorts before "".
  static const Node kFirstName{};
  uint64_t examined = 0;
  absl::ReaderMutexLock l(&c->mu);
  for (const index::CellRange& range : ranges) {
    for (auto it = c->cells.lower_bound(CellKey{range.first, &kFirstName});
         it != c->cells.end() && it->cell <= range.last; ++it) {
      ++examined;
      const Node& node = *it->node;
      if (keep(node.second.position)) {
        out->push_back(Hit{node.first, node.second.position});
      }
    }
  }
  return examined;
}

int64_t LatestIndex::Size(absl::string_view collection) const {
  std::shared_ptr<Collection> c = Get(collection);
  if (!c) return 0;
  absl::ReaderMutexLock l(&c->mu);
  return static_cast<int64_t>(c->entities.size());
}

std::vector<std::string> LatestIndex::EntitiesOlderThan(
    absl::string_view collection, int64_t cutoff_ms, size_t max) const {
  std::vector<std::string> out;
  std::shared_ptr<Collection> c = Get(collection);
  if (!c) return out;
  absl::ReaderMutexLock l(&c->mu);
  for (const auto& [entity, entry] : c->entities) {
    if (out.size() == max) break;
    if (entry.position.loc_time_ms < cutoff_ms) out.push_back(entity);
  }
  return out;
}

std::vector<std::pair<std::string, int64_t>> LatestIndex::EntityTimes(
    absl::string_view collection) const {
  std::vector<std::pair<std::string, int64_t>> out;
  std::shared_ptr<Collection> c = Get(collection);
  if (!c) return out;
  absl::ReaderMutexLock l(&c->mu);
  out.reserve(c->entities.size());
  for (const auto& [entity, entry] : c->entities) {
    out.emplace_back(entity, entry.position.loc_time_ms);
  }
  return out;
}

void LatestIndex::ForEach(
    const std::function<void(absl::string_view, absl::string_view,
                             const PointPosition&)>& visit) const {
  std::map<std::string, std::shared_ptr<Collection>> sorted;
  {
    absl::ReaderMutexLock l(&mu_);
    for (const auto& [name, c] : collections_) sorted.emplace(name, c);
  }
  for (const auto& [name, c] : sorted) {
    absl::ReaderMutexLock l(&c->mu);
    std::vector<const Node*> nodes;
    for (const Node& node : c->entities) nodes.push_back(&node);
    std::sort(nodes.begin(), nodes.end(),
              [](const Node* a, const Node* b) { return a->first < b->first; });
    for (const Node* node : nodes)
      visit(name, node->first, node->second.position);
  }
}

}  // namespace trackdb::storage
