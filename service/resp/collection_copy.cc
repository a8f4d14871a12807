#include "service/resp/collection_copy.h"

#include <algorithm>
#include <vector>

namespace trackdb::resp {

absl::Status CopyCollection(storage::TrackStore& store, const std::string& src,
                            const std::string& dst, size_t batch_points) {
  batch_points = std::max<size_t>(batch_points, 1);
  std::vector<std::string> entities;
  absl::Status s = store.ScanLatest(src, [&](const model::TrackPoint& p) {
    entities.push_back(p.entity);
    return true;
  });
  if (!s.ok()) return s;
  std::vector<model::TrackPoint> batch;
  auto flush = [&]() -> absl::Status {
    if (batch.empty()) return absl::OkStatus();
    absl::Status written = store.AddPoints(dst, batch);
    batch.clear();
    return written;
  };
  for (const std::string& entity : entities) {
    storage::TrackQuery q;
    q.collection = src;
    q.entity = entity;
    q.limit = static_cast<int>(std::min<size_t>(batch_points, 10000));
    do {
      absl::StatusOr<storage::TrackPage> page = store.GetTrack(q);
      if (!page.ok()) return page.status();
      for (model::TrackPoint& p : page->points) {
        batch.push_back(std::move(p));
        if (batch.size() >= batch_points) {
          if (absl::Status f = flush(); !f.ok()) return f;
        }
      }
      q.page_token = page->next_page_token;
    } while (!q.page_token.empty());
  }
  return flush();
}

}  // namespace trackdb::resp
