#ifndef TRACKDB_STORAGE_FORMAT_KEYS_H_
#define TRACKDB_STORAGE_FORMAT_KEYS_H_

// Key encodings of every column family. All integers are big-endian so that
// byte order is numeric order.
//
// Every key begins with its collection (a fleet, a Redis GEO key, a Tile38
// key), length-prefixed so that no collection's keys are a prefix of
// another's:
//
//   CollectionPrefix(c) = varint32(len(c)) c
//
//   points  CollectionPrefix | varint32(len(entity)) entity | time
//           -> EncodePointValue (storage/format/point_codec.h)
//           time = uint64(loc_time_ms) XOR 2^63, so negative times sort first.
//           An entity's history is one contiguous, time-ordered range.
//           CollectionPrefix | 0xff 0xff | bucket | cell | entity -> ""
//           the history's space-time index (storage/points/history_cells.h):
//           bucket = uint64(loc_time_ms floor-divided by the bucket
//           length) XOR 2^63, cell = a coarse S2 cell id. 0xff 0xff
//           cannot begin an entity's keys (it would be a varint32 length
//           of at least 2^14 bytes, over kMaxEntityIdBytes), so these
//           keys sort after every entity's history, and a collection's
//           ranges (DeleteCollection, CopyCollection) take them along.
//   chunks  CollectionPrefix | varint32(len(entity)) entity | time
//           -> EncodeChunk (storage/format/chunk_codec.h): a run of the
//           entity's fixes, keyed by the time of its last one (so the key
//           is a points key's shape: PointKey and PointKeyTime serve both).
//           The history is `points` and `chunks` together: a fix is in
//           one or the other, or in both with the points one written
//           later (it wins). One entity's chunks never overlap in time, so
//           a seek to a time finds the one chunk that may hold it
//           (storage/history_cursor.h; storage/history_fold.cc makes them).
//   latest  CollectionPrefix | entity
//           -> EncodePointValue of the entity's point with the greatest time.
//           Region queries walk the latest index
//           (storage/points/latest_index.h), which is derived from this CF, so
//           no spatial key is stored.
//   kv      name -> EncodeStringValue (storage/format/kv_codec.h)
//           The Redis key path's strings, with their expiry. `name` is the
//           key as the front door names it (types/keyspace.h maps a
//           Redis database and key to it; the same name is the collection
//           of a GEO key).
//   fences  CollectionPrefix | 'd' | fence name -> trackdb.v1.Fence bytes
//           CollectionPrefix | 'e' | uint64 offset -> EncodeFenceEvent
//           CollectionPrefix | 'k' -> uint64 big-endian: the first offset
//           retention kept (FenceStore::TrimLogs), so that an emptied log does
//           not reuse offsets after a restart
//           CollectionPrefix | 'c' | consumer -> uint64 big-endian: the
//           next offset a named consumer (a webhook) will deliver
//           CollectionPrefix | 's' | varint32(len(entity)) entity | fence name
//           -> EncodeFenceState (storage/fence_codec.h), only where the
//           state is not Resting (fence/detector.h).
//           A collection's fences, its event log in offset order and each
//           entity's fence states are each one contiguous range.
//   types   Redis hashes, sets, sorted sets and lists: one meta key per
//           name (CollectionPrefix(name)) and its members under a version;
//           storage/format/typed_codec.h has the layout.
//   default holds trackdb's metadata:
//           kSchemaVersionKey -> kSchemaVersion
//           RegistryKey(collection) -> int64 little-endian entity count,
//           maintained by Merge (storage/format/counter_merge.h) in the same
//           batch as the write that adds or removes an entity.
//           RetentionKey(collection) -> EncodeRetentionPolicy
//           (storage/points/retention.h), only for a collection that has one.
//           CollectionExpiryKey(collection) -> int64 big-endian Unix ms
//           when the GEO key expires (storage/collections/collection_expiry.h).
//           kTypedVersionFloorKey -> uint64 big-endian: typed values'
//           versions below it may have been used (TrackStore's
//           NextTypedVersion starts above it after a restart).
//
// Scale-out: because every key starts with its collection, a collection is a
// contiguous key range in each CF and can be owned by one shard, as a Redis
// Cluster hash slot owns a key (hash slots computed over collection names,
// honouring {hash tags}). Nothing here assumes one node holds everything.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace trackdb::storage {

// The column families, by what they hold (TrackStore::handle addresses them
// by this, never by position).
// New ones go last: replication names a column family by its position.
enum class ColumnFamily {
  kDefault,
  kPoints,
  kLatest,
  kKv,
  kFences,
  kTypes,
  kChunks
};
inline constexpr uint64_t kColumnFamilyCount = 7;
// The column families every point writes: points, latest.
inline constexpr uint64_t kPointColumnFamilies = 2;

inline constexpr char kPointsCf[] = "points";
inline constexpr char kLatestCf[] = "latest";
inline constexpr char kKvCf[] = "kv";
inline constexpr char kFencesCf[] = "fences";
inline constexpr char kTypesCf[] = "types";
inline constexpr char kChunksCf[] = "chunks";
inline constexpr char kSchemaVersionKey[] = "trackdb.schema_version";
inline constexpr char kTypedVersionFloorKey[] = "trackdb.typed_version_floor";
inline constexpr char kSchemaVersion[] = "5";
// Version 4 had no chunks: its histories are all in `points`, which is
// still a valid history (folding moves them into chunks as it goes).
inline constexpr char kSchemaVersionWithoutChunks[] = "4";
// Versions 1 to 3 had no history cells; Open() builds them from `points`.
inline constexpr char kSchemaVersionWithoutHistoryCells[] = "3";
// Version 1 had no collection registry; Open() builds it and upgrades.
inline constexpr char kSchemaVersionWithoutRegistry[] = "1";
// Versions 1 and 2 kept a copy of every latest point under its S2 cell in
// this column family; Open() drops it (the latest index replaced it).
inline constexpr char kSchemaVersionWithGeo[] = "2";
inline constexpr char kRetiredGeoCf[] = "geo";

std::string CollectionPrefix(absl::string_view collection);

// points
std::string PointKey(absl::string_view collection, absl::string_view entity,
                     int64_t loc_time_ms);
// The prefix shared by every points key of one entity.
std::string EntityPointsPrefix(absl::string_view collection,
                               absl::string_view entity);
// Appends the 8 bytes a points key ends with: EntityPointsPrefix then
// AppendKeyTime is PointKey.
void AppendKeyTime(std::string* key, int64_t loc_time_ms);
// The loc_time of a points key, which must start with `entity_prefix`.
int64_t PointKeyTime(absl::string_view key);
// `entity_prefix` (an EntityPointsPrefix) then AppendKeyTime(loc_time_ms):
// the key of one fix in `points`, of the chunk ending then in `chunks`.
std::string EntityTimeKey(absl::string_view entity_prefix, int64_t loc_time_ms);
// Whether `key` is a fix's or a chunk's key of the entity whose prefix is
// `entity_prefix` (a longer entity id sharing the prefix is not).
bool IsEntityTimeKey(absl::string_view key, absl::string_view entity_prefix);
// The history's space-time index, in `points` after the histories.
inline constexpr char kHistoryCellsTag[] = "\xff\xff";
// CollectionPrefix(collection) followed by kHistoryCellsTag.
std::string HistoryCellsPrefix(absl::string_view collection);
// HistoryCellsPrefix, then the bucket and cell (before the entity): the
// start of one bucket's cells from `cell` on.
std::string HistoryCellSeekKey(absl::string_view collection, int64_t bucket,
                               uint64_t cell);
std::string HistoryCellKey(absl::string_view collection, int64_t bucket,
                           uint64_t cell, absl::string_view entity);
// What follows CollectionPrefix in a HistoryCellKey (tag included).
std::string HistoryCellKeySuffix(int64_t bucket, uint64_t cell,
                                 absl::string_view entity);
struct HistoryCellKeyParts {
  int64_t bucket;
  uint64_t cell;
  absl::string_view entity;
};
// Splits what follows HistoryCellsPrefix in a key; nullopt if too short.
std::optional<HistoryCellKeyParts> ParseHistoryCellSuffix(
    absl::string_view suffix);

// latest
std::string LatestKey(absl::string_view collection, absl::string_view entity);
struct LatestKeyParts {
  absl::string_view collection;
  absl::string_view entity;
};
// Splits a latest key; nullopt if its collection prefix is malformed.
std::optional<LatestKeyParts> ParseLatestKey(absl::string_view key);

// fences
inline constexpr char kFenceTag = 'd';
inline constexpr char kFenceEventTag = 'e';
inline constexpr char kFenceLogKeptTag = 'k';
inline constexpr char kFenceCursorTag = 'c';
inline constexpr char kFenceStateTag = 's';
// Every key of `collection` in fences with `tag`.
std::string FencesPrefix(absl::string_view collection, char tag);
std::string FenceKey(absl::string_view collection, absl::string_view fence);
std::string FenceEventKey(absl::string_view collection, uint64_t offset);
// The prefix of every fence state of one entity.
std::string EntityFenceStatesPrefix(absl::string_view collection,
                                    absl::string_view entity);
std::string FenceStateKey(absl::string_view collection,
                          absl::string_view entity, absl::string_view fence);
struct FenceStateKeyParts {
  absl::string_view entity;
  absl::string_view fence;
};
// Splits a fence state key of `collection`; nullopt if malformed.
std::optional<FenceStateKeyParts> ParseFenceStateKey(
    absl::string_view collection, absl::string_view key);

// The successor of every key that starts with `prefix`: the exclusive end
// of a prefix's range. Empty when no such key exists (all 0xff).
std::string PrefixEnd(absl::string_view prefix);

// default: the collection registry.
inline constexpr char kRegistryTag = 'c';
std::string RegistryKey(absl::string_view collection);
// The collection of a registry key; nullopt if `key` is not one.
std::optional<absl::string_view> ParseRegistryKey(absl::string_view key);

// default: GEO keys' expiry (storage/collections/collection_expiry.h), int64
// big-endian Unix ms, only for a collection that has one.
inline constexpr char kCollectionExpiryTag = 'x';
std::string CollectionExpiryKey(absl::string_view collection);
std::optional<absl::string_view> ParseCollectionExpiryKey(
    absl::string_view key);

// default: each collection's history retention (storage/points/retention.h).
inline constexpr char kRetentionTag = 'r';
std::string RetentionKey(absl::string_view collection);
// The collection of a retention key; nullopt if `key` is not one.
std::optional<absl::string_view> ParseRetentionKey(absl::string_view key);

// The name (a collection, a string's or a typed value's) a key of `cf`
// belongs to; nullopt for the store's own metadata (schema version, typed
// versions' floor, replication state). What a shard hands over when it
// hands over the names of a slot.
std::optional<absl::string_view> NameOfKey(ColumnFamily cf,
                                           absl::string_view key);

// Byte helpers shared with the value codec.
void AppendVarint32(std::string* out, uint32_t v);
bool ReadVarint32(absl::string_view* in, uint32_t* v);
void AppendVarint64(std::string* out, uint64_t v);
bool ReadVarint64(absl::string_view* in, uint64_t* v);
// A varint32 length then that many bytes; false (and *in unspecified) when
// `in` is shorter.
bool ReadLengthPrefixed(absl::string_view* in, std::string* out);
void AppendBigEndian64(std::string* out, uint64_t v);
uint64_t ReadBigEndian64(absl::string_view in);  // first 8 bytes

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_FORMAT_KEYS_H_
