#include "types/key_scan.h"

#include "storage/format/keys.h"
#include "types/keyspace.h"

namespace trackdb::types {

namespace {

using Part = KeyScanPosition::Part;
using KeyVisitor = std::function<bool(const std::string&, KeyType)>;

// Where a part's walk stopped, when `visit` asked it to.
struct ScanStop {
  bool stopped = false;
  KeyScanPosition resume;
};

absl::Status ScanStringKeys(storage::TrackStore& store, int db, int64_t now_ms,
                            const KeyScanPosition& from,
                            const KeyVisitor& visit, ScanStop* stop) {
  // Names sort by database: db 0's (plain, then 0xff 0x00-escaped) are
  // all below 0xff 0x01, and db n's share the prefix 0xff n.
  const std::string start =
      from.resume_name.empty() ? KeyName(db, "") : from.resume_name;
  return store.ScanStrings(
      start, now_ms, [&](absl::string_view name, const storage::StringValue&) {
        std::optional<DbKey> k = ParseKeyName(name);
        if (!k) return true;
        if (k->db != db) return false;
        if (!visit(k->key, KeyType::kString)) {
          stop->stopped = true;
          stop->resume = {Part::kStrings, std::string(name) + '\0'};
          return false;
        }
        return true;
      });
}

absl::Status ScanTypedKeys(storage::TrackStore& store, int db, int64_t now_ms,
                           const KeyScanPosition& from, const KeyVisitor& visit,
                           ScanStop* stop) {
  // Typed values, in their key order (all databases mixed: shorter names
  // first), each skipped with its members by one seek.
  std::optional<std::string> after;
  if (from.part == Part::kTyped) after = from.resume_name;
  return store.ScanTyped(
      after, now_ms,
      [&](absl::string_view name, const storage::TypedMeta& meta) {
        std::optional<DbKey> k = ParseKeyName(name);
        if (!k || k->db != db) return true;
        if (!visit(k->key, KeyTypeOf(meta.type))) {
          stop->stopped = true;
          stop->resume = {Part::kTyped, std::string(name)};
          return false;
        }
        return true;
      });
}

absl::Status ScanGeoKeys(storage::TrackStore& store, int db,
                         const KeyScanPosition& from, const KeyVisitor& visit,
                         ScanStop* stop) {
  // GEO keys: the registry is small (one entry per collection), so a resume
  // skips the entries up to and including the last one visited.
  const std::string after = from.part == Part::kGeo
                                ? storage::RegistryKey(from.resume_name)
                                : std::string();
  return store.ScanCollections([&](absl::string_view name, int64_t) {
    if (!after.empty() && storage::RegistryKey(name) <= after) return true;
    std::optional<DbKey> k = ParseKeyName(name);
    if (!k || k->db != db) return true;
    if (!visit(k->key, KeyType::kGeo)) {
      stop->stopped = true;
      stop->resume = {Part::kGeo, std::string(name)};
      return false;
    }
    return true;
  });
}

}  // namespace

absl::Status ScanKeys(
    storage::TrackStore& store, int db, int64_t now_ms,
    const KeyScanPosition& from,
    const std::function<bool(const std::string&, KeyType)>& visit,
    KeyScanPosition* next, bool* done) {
  *done = false;
  ScanStop stop;
  if (from.part == Part::kStrings) {
    absl::Status s = ScanStringKeys(store, db, now_ms, from, visit, &stop);
    if (!s.ok()) return s;
    if (stop.stopped) {
      if (next) *next = stop.resume;
      return absl::OkStatus();
    }
  }
  if (from.part != Part::kGeo) {
    absl::Status s = ScanTypedKeys(store, db, now_ms, from, visit, &stop);
    if (!s.ok()) return s;
    if (stop.stopped) {
      if (next) *next = stop.resume;
      return absl::OkStatus();
    }
  }
  absl::Status s = ScanGeoKeys(store, db, from, visit, &stop);
  if (!s.ok()) return s;
  if (stop.stopped) {
    if (next) *next = stop.resume;
  } else {
    *done = true;
  }
  return absl::OkStatus();
}

}  // namespace trackdb::types
