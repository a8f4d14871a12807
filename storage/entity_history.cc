#include "storage/entity_history.h"

#include <vector>

#include "storage/format/keys.h"
#include "storage/format/rocks_util.h"

namespace trackdb::storage {

EntityHistory::EntityHistory(absl::string_view collection,
                             absl::string_view entity)
    : begin_(EntityPointsPrefix(collection, entity)),
      end_(begin_ + std::string(9, '\xff')),
      lower_(begin_),
      upper_(end_) {}

absl::Status EntityHistory::Open(const Engine& engine) {
  rocksdb::ReadOptions read;
  read.iterate_lower_bound = &lower_;
  read.iterate_upper_bound = &upper_;
  std::vector<rocksdb::Iterator*> its;
  if (absl::Status s = FromRocks(
          engine.db->NewIterators(read, {engine.points(), engine.chunks()},
                                  &its),
          "reading history");
      !s.ok()) {
    return s;
  }
  points_.reset(its[0]);
  chunks_.reset(its[1]);
  cursor_.emplace(points_.get(), chunks_.get());
  return absl::OkStatus();
}

}  // namespace trackdb::storage
