#ifndef TRACKDB_STORAGE_IMPORT_HISTORY_SINK_H_
#define TRACKDB_STORAGE_IMPORT_HISTORY_SINK_H_

// Where the import writes each entity's sorted fixes: straight into chunks
// (storage/format/chunk_codec.h) when the store holds no history of the
// entity, so that the import leaves it as the history folder would without
// writing it twice; else as raw keys, which the import's fold then merges
// with the stored ones (storage/history_chunker.h keeps I9 there).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "model/track_point.h"
#include "rocksdb/iterator.h"
#include "storage/engine/engine.h"
#include "storage/history_chunker.h"
#include "storage/import/sst_sink.h"

namespace trackdb::storage {

class HistorySink {
 public:
  // `points` and `chunks` take the records; nothing else may write the
  // collection meanwhile (the import's precondition).
  // Chunks are cut as HistoryChunker cuts a fold of `options.batch_fixes`
  // fixes at most (storage/format/chunk_codec.h ForEachChunk), so that an
  // entity imported whole is stored as a fold of it would store it.
  HistorySink(const Engine& engine, absl::string_view collection,
              SstSink* points, SstSink* chunks, const FoldOptions& options);

  // Entities in key order; `entity_part` is a points key's entity part
  // (varint32 length, the id).
  absl::Status StartEntity(absl::string_view entity_part);
  // The entity's next fix: its points key (times increasing) and value.
  absl::Status Add(absl::string_view key, absl::string_view value);
  absl::Status EndEntity();

  uint64_t chunked_entities() const { return chunked_entities_; }
  uint64_t raw_entities() const { return raw_entities_; }
  uint64_t chunks() const { return chunks_written_; }

 private:
  absl::Status FlushChunks();

  const std::string collection_prefix_;
  SstSink* const points_;
  SstSink* const chunks_;
  const size_t chunk_fixes_;
  const size_t batch_fixes_;
  // Over the collection's stored history; null when it holds none.
  std::unique_ptr<rocksdb::Iterator> stored_points_, stored_chunks_;
  std::string entity_prefix_;  // the current entity's keys' prefix
  bool chunking_ = false;      // the current entity goes into chunks
  std::vector<model::TrackPoint> pending_;  // its fixes not yet in a chunk
  uint64_t chunked_entities_ = 0, raw_entities_ = 0, chunks_written_ = 0;
};

}  // namespace trackdb::storage

#endif  // TRACKDB_STORAGE_IMPORT_HISTORY_SINK_H_
