#ifndef TRACKDB_TOOLS_IMPORT_JSON_READERS_H_
#define TRACKDB_TOOLS_IMPORT_JSON_READERS_H_

// The JSON inputs of trackdb_import.
//
// NDJSON: one object per line with the fields of trackdb.v1.Point, by their
// proto names or the lowerCamelCase JSON names protobuf prints:
//   {"entity_id": "car7", "loc_time_ms": 1763700000000, "latitude": 39.9,
//    "longitude": 116.4, "speed_kmh": 42, "direction": 90, "height_m": 50,
//    "accuracy_m": 5, "attributes": {"driver": "ann"}}
// loc_time_ms is Unix ms as a number or a string (protobuf's int64 JSON);
// instead of it, "time" takes any timestamp (timestamp.h). A number where
// a string is expected (entity_id, attribute values) is taken as its text
// (integers exactly as written, other numbers in their shortest form: 1.50
// is "1.5"); null is the same as absent. Unknown fields are bad rows, so a
// misspelt field never silently drops data.
//
// GeoJSON: a FeatureCollection of Point features, read one feature at a
// time. coordinates are [longitude, latitude] or [longitude, latitude,
// height_m]. The entity is the property named by --id_property, or else
// the first of properties.entity_id, properties.id and the feature's "id";
// the time is the property --time_property, or else the first of
// properties.loc_time_ms (Unix ms), properties.time and
// properties.timestamp. speed_kmh, direction, height_m, accuracy_m and
// attributes are read from properties as in NDJSON; other properties are
// ignored. A bad feature is a bad row; broken JSON ends the input.
//
// JSON is parsed by rapidjson (Debian's rapidjson-dev, header-only;
// json_input.h holds the glue), trackdb's one JSON library. It was chosen
// over simdjson because it also writes JSON, which trackdb needs for
// geofence event messages and GeoJSON export, and one library for both is
// one set of rules for numbers, escapes and errors; simdjson 3.0 only
// parses. Its DOM keeps members in order with repeated names, which "last
// one wins" needs, and it parses from a stream, so a FeatureCollection
// never has to fit in memory. Its import rates are in bench/README.md
// ("Bulk import").

#include <memory>
#include <string>

#include "tools/import/input_source.h"
#include "tools/import/point_reader.h"
#include "tools/import/timestamp.h"

namespace trackdb::import {

struct GeoJsonOptions {
  std::string id_property;    // "" = the defaults above
  std::string time_property;  // "" = the defaults above
};

std::unique_ptr<PointReader> NewNdjsonReader(InputSource* in, TimeOptions time);
std::unique_ptr<PointReader> NewGeoJsonReader(InputSource* in, TimeOptions time,
                                              GeoJsonOptions options);

}  // namespace trackdb::import

#endif  // TRACKDB_TOOLS_IMPORT_JSON_READERS_H_
