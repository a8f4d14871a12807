#include "tools/import/json_readers.h"

#include <algorithm>
#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tools/import/json.h"

namespace trackdb::import {
namespace {

using Type = JsonValue::Type;

// A JSON value where a string is wanted: strings as they are, numbers and
// booleans as their text. False for null, arrays and objects.
bool AsText(const JsonValue& v, std::string* out) {
  switch (v.type) {
    case Type::kString:
    case Type::kNumber:
      *out = v.text;
      return true;
    case Type::kBool:
      *out = v.boolean ? "true" : "false";
      return true;
    default:
      return false;
  }
}

// A number, or a string holding one (protobuf's JSON allows both).
bool AsDouble(const JsonValue& v, double* out) {
  if (v.type == Type::kNumber) {
    *out = v.number;
    return true;
  }
  if (v.type != Type::kString) return false;
  absl::string_view t = absl::StripAsciiWhitespace(v.text);
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && ptr == t.data() + t.size() && !t.empty();
}

absl::Status Bad(absl::string_view field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", why));
}

absl::Status ReadTime(const JsonValue& v, absl::string_view field,
                      const TimeOptions& time, int64_t* out) {
  std::string text;
  if (!AsText(v, &text) || v.type == Type::kBool) {
    return Bad(field, absl::StrCat("must be a number or a string, not ",
                                   JsonTypeName(v.type)));
  }
  auto t = ParseTimestampMs(text, time);
  if (!t.ok()) return Bad(field, t.status().message());
  *out = *t;
  return absl::OkStatus();
}

absl::Status ReadOptional(const JsonValue& v, absl::string_view field,
                          std::optional<double>* out) {
  if (v.type == Type::kNull) return absl::OkStatus();
  double d;
  if (!AsDouble(v, &d)) {
    return Bad(field,
               absl::StrCat("must be a number, not ", JsonTypeName(v.type)));
  }
  *out = d;
  return absl::OkStatus();
}

absl::Status ReadAttributes(const JsonValue& v, absl::string_view field,
                            model::TrackPoint* p) {
  if (v.type == Type::kNull) return absl::OkStatus();
  if (v.type != Type::kObject) {
    return Bad(field,
               absl::StrCat("must be an object, not ", JsonTypeName(v.type)));
  }
  for (const auto& [key, value] : v.members) {
    if (value.type == Type::kNull) continue;
    std::string text;
    if (!AsText(value, &text)) {
      return Bad(
          absl::StrCat(field, ".", key),
          absl::StrCat("must be a string, not ", JsonTypeName(value.type)));
    }
    // A repeated name: the last wins, as for any JSON member.
    auto same =
        std::find_if(p->attributes.begin(), p->attributes.end(),
                     [&key = key](const auto& a) { return a.first == key; });
    if (same != p->attributes.end()) {
      same->second = std::move(text);
    } else {
      p->attributes.emplace_back(key, std::move(text));
    }
  }
  return absl::OkStatus();
}

void ResetPoint(model::TrackPoint* p) { *p = model::TrackPoint(); }

// The optional fields shared by an NDJSON object and GeoJSON properties.
// Returns whether `key` is one of them.
bool ReadOptionalField(absl::string_view key, const JsonValue& v,
                       model::TrackPoint* p, absl::Status* status) {
  if (key == "speed_kmh" || key == "speedKmh") {
    *status = ReadOptional(v, key, &p->speed_kmh);
  } else if (key == "direction") {
    *status = ReadOptional(v, key, &p->direction_deg);
  } else if (key == "height_m" || key == "heightM") {
    *status = ReadOptional(v, key, &p->height_m);
  } else if (key == "accuracy_m" || key == "accuracyM") {
    *status = ReadOptional(v, key, &p->accuracy_m);
  } else if (key == "attributes") {
    *status = ReadAttributes(v, key, p);
  } else {
    return false;
  }
  return true;
}

absl::Status PointFromNdjson(const JsonValue& obj, const TimeOptions& time,
                             model::TrackPoint* p) {
  if (obj.type != Type::kObject) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a JSON object, got ", JsonTypeName(obj.type)));
  }
  ResetPoint(p);
  TimeOptions ms = time;
  ms.unit = TimeUnit::kMilliseconds;
  bool has_entity = false, has_time = false, has_lat = false, has_lon = false;
  for (const auto& [key, v] : obj.members) {
    absl::Status s;
    if (key == "entity_id" || key == "entityId") {
      if (!AsText(v, &p->entity) || v.type == Type::kBool) {
        return Bad(
            key, absl::StrCat("must be a string, not ", JsonTypeName(v.type)));
      }
      has_entity = true;
    } else if (key == "loc_time_ms" || key == "locTimeMs") {
      s = ReadTime(v, key, ms, &p->loc_time_ms);
      has_time = true;
    } else if (key == "time") {
      s = ReadTime(v, key, time, &p->loc_time_ms);
      has_time = true;
    } else if (key == "latitude" || key == "longitude") {
      double d;
      if (!AsDouble(v, &d)) {
        return Bad(
            key, absl::StrCat("must be a number, not ", JsonTypeName(v.type)));
      }
      (key == "latitude" ? p->lat : p->lon) = d;
      (key == "latitude" ? has_lat : has_lon) = true;
    } else if (!ReadOptionalField(key, v, p, &s)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown field '", key,
          "' (known: entity_id, loc_time_ms, time, latitude, longitude, "
          "speed_kmh, direction, height_m, accuracy_m, attributes)"));
    }
    if (!s.ok()) return s;
  }
  if (!has_entity) return absl::InvalidArgumentError("missing entity_id");
  if (!has_time) {
    return absl::InvalidArgumentError("missing loc_time_ms (or time)");
  }
  if (!has_lat || !has_lon) {
    return absl::InvalidArgumentError("missing latitude or longitude");
  }
  std::sort(p->attributes.begin(), p->attributes.end());
  return absl::OkStatus();
}

class NdjsonReader : public PointReader {
 public:
  NdjsonReader(InputSource* in, TimeOptions time) : in_(in), time_(time) {}

  absl::StatusOr<Result> Next(model::TrackPoint* point, BadRow* bad) override {
    absl::string_view line;
    while (in_->ReadLine(&line)) {
      if (absl::StripAsciiWhitespace(line).empty()) continue;
      row_ = line;
      JsonParser parser(line);
      absl::Status s = parser.Parse(&value_);
      if (s.ok() && (parser.SkipWhitespace(), parser.Peek() >= 0)) {
        s = absl::InvalidArgumentError(
            "text after the JSON object (one object per line)");
      }
      if (s.ok()) s = PointFromNdjson(value_, time_, point);
      if (s.ok()) return Result::kPoint;
      bad->line = in_->line_number();
      bad->reason = std::string(s.message());
      bad->text = std::string(line.substr(0, kMaxRejectTextBytes));
      return Result::kBadRow;
    }
    if (!in_->status().ok()) return in_->status();
    return Result::kEnd;
  }

  int64_t row_line() const override { return in_->line_number(); }
  std::string row_text() const override {
    return std::string(row_.substr(0, kMaxRejectTextBytes));
  }

 private:
  InputSource* in_;
  TimeOptions time_;
  JsonValue value_;
  absl::string_view row_;  // the last row, valid until the next read
};

class GeoJsonReader : public PointReader {
 public:
  GeoJsonReader(InputSource* in, TimeOptions time, GeoJsonOptions options)
      : in_(in), parser_(in), time_(time), options_(std::move(options)) {}

  absl::StatusOr<Result> Next(model::TrackPoint* point, BadRow* bad) override {
    if (absl::Status s = Advance(); !s.ok()) return Located(s);
    if (state_ == State::kDone) return Result::kEnd;
    // In the features array, at a feature.
    parser_.SkipWhitespace();
    row_line_ = parser_.line();
    if (absl::Status s = parser_.Parse(&feature_); !s.ok()) return Located(s);
    first_feature_ = false;
    ++index_;
    absl::Status s = PointFromFeature(feature_, point);
    if (s.ok()) return Result::kPoint;
    bad->line = row_line_;
    bad->reason = absl::StrCat("features[", index_ - 1, "]: ", s.message());
    bad->text = feature_.ToString().substr(0, kMaxRejectTextBytes);
    return Result::kBadRow;
  }

  int64_t row_line() const override { return row_line_; }
  std::string row_text() const override {
    return feature_.ToString().substr(0, kMaxRejectTextBytes);
  }

 private:
  enum class State { kStart, kMembers, kFeatures, kDone };

  absl::Status Located(const absl::Status& s) {
    if (absl::IsInvalidArgument(s)) {
      return absl::InvalidArgumentError(
          absl::StrCat(in_->name(), ": ", s.message()));
    }
    return s;
  }

  // Moves to the next feature, or to the end of the document.
  absl::Status Advance() {
    while (true) {
      switch (state_) {
        case State::kStart:
          parser_.SkipWhitespace();
          if (parser_.Peek() < 0 && in_->status().ok()) {
            return absl::InvalidArgumentError(
                "line 1: empty, expected a GeoJSON FeatureCollection");
          }
          if (!parser_.Consume('{')) {
            return parser_.Expected("a GeoJSON FeatureCollection object");
          }
          state_ = State::kMembers;
          if (parser_.Consume('}')) return Finish();
          first_member_ = true;
          break;
        case State::kMembers: {
          if (!first_member_ && !parser_.Consume(',')) {
            if (parser_.Consume('}')) return Finish();
            return parser_.Expected("',' or '}'");
          }
          first_member_ = false;
          parser_.SkipWhitespace();
          std::string key;
          if (absl::Status s = parser_.ParseString(&key); !s.ok()) return s;
          if (!parser_.Consume(':')) return parser_.Expected("':'");
          if (key == "features") {
            if (!parser_.Consume('[')) {
              return parser_.Expected("'[' starting the features array");
            }
            has_features_ = true;
            first_feature_ = true;
            state_ = State::kFeatures;
            break;
          }
          JsonValue value;
          if (absl::Status s = parser_.Parse(&value); !s.ok()) return s;
          if (key == "type" && !(value.type == Type::kString &&
                                 value.text == "FeatureCollection")) {
            return absl::InvalidArgumentError(absl::StrCat(
                "line ", parser_.line(), ": type is ", value.ToString(),
                "; expected \"FeatureCollection\""));
          }
          break;
        }
        case State::kFeatures:
          if (parser_.Consume(']')) {
            state_ = State::kMembers;
            break;
          }
          if (!first_feature_ && !parser_.Consume(',')) {
            return parser_.Expected("',' or ']' in the features array");
          }
          return absl::OkStatus();  // at a feature
        case State::kDone:
          return absl::OkStatus();
      }
    }
  }

  absl::Status Finish() {
    parser_.SkipWhitespace();
    if (parser_.Peek() >= 0) {
      return parser_.Expected("the end after the FeatureCollection");
    }
    if (!in_->status().ok()) return in_->status();
    if (!has_features_) {
      return absl::InvalidArgumentError(
          "the FeatureCollection has no \"features\" array");
    }
    state_ = State::kDone;
    return absl::OkStatus();
  }

  absl::Status PointFromFeature(const JsonValue& f, model::TrackPoint* p) {
    if (f.type != Type::kObject) {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected a Feature object, got ", JsonTypeName(f.type)));
    }
    if (const JsonValue* type = f.Find("type");
        type != nullptr && type->text != "Feature") {
      return absl::InvalidArgumentError(
          absl::StrCat("type is ", type->ToString(), ", expected \"Feature\""));
    }
    ResetPoint(p);
    const JsonValue* geometry = f.Find("geometry");
    const JsonValue* gtype = geometry ? geometry->Find("type") : nullptr;
    if (gtype == nullptr || gtype->text != "Point") {
      return absl::InvalidArgumentError("geometry is not a Point");
    }
    const JsonValue* coords = geometry->Find("coordinates");
    if (coords == nullptr || coords->type != Type::kArray ||
        coords->items.size() < 2 || coords->items.size() > 3 ||
        !std::all_of(
            coords->items.begin(), coords->items.end(),
            [](const JsonValue& v) { return v.type == Type::kNumber; })) {
      return absl::InvalidArgumentError(
          "geometry.coordinates must be [longitude, latitude] or "
          "[longitude, latitude, height]");
    }
    p->lon = coords->items[0].number;
    p->lat = coords->items[1].number;
    if (coords->items.size() == 3) p->height_m = coords->items[2].number;

    static const JsonValue kNoProperties = [] {
      JsonValue v;
      v.type = Type::kObject;
      return v;
    }();
    const JsonValue* props = f.Find("properties");
    if (props == nullptr || props->type == Type::kNull) props = &kNoProperties;
    if (props->type != Type::kObject) {
      return absl::InvalidArgumentError("properties must be an object");
    }

    // The entity.
    const JsonValue* id = nullptr;
    std::string id_field;
    if (!options_.id_property.empty()) {
      id_field = "properties." + options_.id_property;
      id = props->Find(options_.id_property);
    } else {
      for (const char* name : {"entity_id", "id"}) {
        if ((id = props->Find(name)) != nullptr) {
          id_field = absl::StrCat("properties.", name);
          break;
        }
      }
      if (id == nullptr && (id = f.Find("id")) != nullptr) id_field = "id";
    }
    if (id == nullptr) {
      return absl::InvalidArgumentError(
          options_.id_property.empty()
              ? "no entity: no properties.entity_id, properties.id or id"
              : absl::StrCat("missing ", id_field));
    }
    if (!AsText(*id, &p->entity) || id->type == Type::kBool) {
      return Bad(id_field, absl::StrCat("must be a string or a number, not ",
                                        JsonTypeName(id->type)));
    }

    // The time.
    TimeOptions ms = time_;
    ms.unit = TimeUnit::kMilliseconds;
    const JsonValue* t = nullptr;
    std::string t_field;
    const TimeOptions* t_options = &time_;
    if (!options_.time_property.empty()) {
      t_field = "properties." + options_.time_property;
      t = props->Find(options_.time_property);
    } else if ((t = props->Find("loc_time_ms")) != nullptr) {
      t_field = "properties.loc_time_ms";
      t_options = &ms;
    } else {
      for (const char* name : {"time", "timestamp"}) {
        if ((t = props->Find(name)) != nullptr) {
          t_field = absl::StrCat("properties.", name);
          break;
        }
      }
    }
    if (t == nullptr) {
      return absl::InvalidArgumentError(
          options_.time_property.empty()
              ? "no time: no properties.loc_time_ms, properties.time or "
                "properties.timestamp"
              : absl::StrCat("missing ", t_field));
    }
    if (absl::Status s = ReadTime(*t, t_field, *t_options, &p->loc_time_ms);
        !s.ok()) {
      return s;
    }

    for (const auto& [key, v] : props->members) {
      absl::Status s;
      if (ReadOptionalField(key, v, p, &s) && !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("properties.", s.message()));
      }
    }
    std::sort(p->attributes.begin(), p->attributes.end());
    return absl::OkStatus();
  }

  InputSource* in_;
  JsonParser parser_;
  TimeOptions time_;
  GeoJsonOptions options_;
  State state_ = State::kStart;
  bool first_member_ = true;
  bool first_feature_ = true;
  bool has_features_ = false;
  int64_t index_ = 0;
  int64_t row_line_ = 0;  // where the last feature started
  JsonValue feature_;
};

}  // namespace

std::unique_ptr<PointReader> NewNdjsonReader(InputSource* in,
                                             TimeOptions time) {
  return std::make_unique<NdjsonReader>(in, time);
}

std::unique_ptr<PointReader> NewGeoJsonReader(InputSource* in, TimeOptions time,
                                              GeoJsonOptions options) {
  return std::make_unique<GeoJsonReader>(in, time, std::move(options));
}

}  // namespace trackdb::import
