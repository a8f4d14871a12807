#ifndef TRACKDB_STORAGE_HISTORY_CHUNKER_H_
#define TRACKDB_STORAGE_HISTORY_CHUNKER_H_

// HistoryChunker: moves fixes from their own keys in `points` (where every
// write puts them: one key a fix keeps a write as cheap as it can be) into
// chunks in `chunks` (storage/format/chunk_codec.h: a few bytes a fix), an
// entity at a time, in one batch each (storage/history_chunker.cc), so a
// crash leaves each fix in one place or the other, never neither.
//
// The entity's chunks never overlap in time: a raw fix inside a chunk's
// span is merged into that chunk (it replaces the chunk's fix of the same
// time: it was written later); raw fixes between chunks become new chunks,
// joined to the chunk before them while it has room. Holding the entity's
// stripe and its collection's lock shared, as a points write does, no
// write to the entity runs beside a fold.
//
// TrackStore owns one (TrackStore::chunker()).

#include <cstddef>
#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/engine/collection_lock_table.h"
#include "storage/engine/entity_locks.h"

namespace trackdb::storage {

struct Engine;

struct FoldOptions {
  // An entity with fewer raw fixes than this waits (so a chunk is not
  // rewritten for every few fixes), unless its newest raw fix is older
  // than now - idle_ms and it has idle_min_fixes at least: a fix or two
  // in a chunk save nothing against their raw keys, and folding each of a
  // million such entities (one point each, with old times) costs a batch
  // apiece, about a core for a while after every start.
  size_t min_fixes = 256;
  int64_t idle_ms = 10 * 60 * 1000;
  size_t idle_min_fixes = 8;
  // The most fixes in one chunk: a read of one fix decodes its chunk, so
  // bigger chunks cost GetPositionAt time for fewer bytes
  // (bench/history_read_bench, a 1 Hz fleet: p50 18.8 us and 1.69 bytes a
  // fix at 1024, 9.8 us and 1.80 at 256; 5.9 us from raw keys).
  size_t chunk_fixes = 256;
  // The most raw fixes one batch moves (an entity with more, such as one
  // of a data dir written before chunks, takes several batches).
  size_t batch_fixes = 65536;
  // Asked between entities: a pass stops early once it says true.
  std::function<bool()> cancelled;
};

struct FoldCounts {
  uint64_t entities = 0;  // entities folded
  uint64_t fixes = 0;     // raw fixes moved into chunks
  uint64_t chunks = 0;    // chunks written (new or rewritten)
};

class HistoryChunker {
 public:
  HistoryChunker(Engine* engine, CollectionLockTable* collection_locks,
                 EntityLocks* entity_locks)
      : engine_(engine),
        collection_locks_(collection_locks),
        entity_locks_(entity_locks) {}

  // Folds every raw fix of the entity, whatever its count.
  absl::StatusOr<FoldCounts> FoldEntity(absl::string_view collection,
                                        absl::string_view entity,
                                        const FoldOptions& options);
  // One pass over every collection's raw fixes: folds each entity that
  // `options` says is due at `now_ms`. Safe beside writers.
  absl::StatusOr<FoldCounts> FoldAll(const FoldOptions& options,
                                     int64_t now_ms);
  // Folds every raw fix of `collection` (after an import).
  absl::StatusOr<FoldCounts> FoldCollection(absl::string_view collection,
                                            const FoldOptions& options);

 private:
  // FoldAll over the points keys in [begin, end) (end empty: no bound).
  absl::StatusOr<FoldCounts> FoldRange(const std::string& begin,
                                       const std::string& end,
                                       const FoldOptions& options,
                                       int64_t now_ms);
  absl::StatusOr<FoldCounts> FoldBatch(absl::string_view collection,
                                       absl::string_view entity,
                                       const FoldOptions& options, bool* more);

  Engine* const engine_;
  CollectionLockTable* const collection_locks_;
  EntityLocks* const entity_locks_;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_HISTORY_CHUNKER_H_
