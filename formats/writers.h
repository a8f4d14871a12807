#ifndef TRACKDB_FORMATS_WRITERS_H_
#define TRACKDB_FORMATS_WRITERS_H_

// Each format's writer (formats/track_writer.h says what each writes).

#include <memory>
#include <ostream>

#include "formats/track_writer.h"

namespace trackdb::formats {

std::unique_ptr<TrackWriter> NewGeoJsonWriter(std::ostream* out);
std::unique_ptr<TrackWriter> NewGpxWriter(std::ostream* out);
std::unique_ptr<TrackWriter> NewCsvWriter(std::ostream* out);

}  // namespace trackdb::formats

#endif  // TRACKDB_FORMATS_WRITERS_H_
