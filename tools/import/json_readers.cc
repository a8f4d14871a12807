#include "tools/import/json_readers.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tools/import/json_input.h"

namespace trackdb::import {
namespace {

using rapidjson::Value;

// A number, or a string holding one (protobuf's JSON allows both).
bool AsDouble(const Value& v, double* out) {
  if (v.IsNumber()) {
    *out = v.GetDouble();
    return true;
  }
  if (!v.IsString()) return false;
  absl::string_view t = absl::StripAsciiWhitespace(JsonString(v));
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && ptr == t.data() + t.size() && !t.empty();
}

absl::Status Bad(absl::string_view field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, " ", why));
}

absl::Status ReadTime(const Value& v, absl::string_view field,
                      const TimeOptions& time, int64_t* out) {
  std::string text;
  if (v.IsBool() || !JsonAsText(v, &text)) {
    return Bad(field, absl::StrCat("must be a number or a string, not ",
                                   JsonTypeName(v)));
  }
  auto t = ParseTimestampMs(text, time);
  if (!t.ok()) return Bad(field, t.status().message());
  *out = *t;
  return absl::OkStatus();
}

absl::Status ReadOptional(const Value& v, absl::string_view field,
                          std::optional<double>* out) {
  if (v.IsNull()) return absl::OkStatus();
  double d;
  if (!AsDouble(v, &d)) {
    return Bad(field, absl::StrCat("must be a number, not ", JsonTypeName(v)));
  }
  *out = d;
  return absl::OkStatus();
}

absl::Status ReadAttributes(const Value& v, absl::string_view field,
                            model::TrackPoint* p) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsObject()) {
    return Bad(field, absl::StrCat("must be an object, not ", JsonTypeName(v)));
  }
  for (const auto& member : v.GetObject()) {
    if (member.value.IsNull()) continue;
    const absl::string_view key = JsonString(member.name);
    std::string text;
    if (!JsonAsText(member.value, &text)) {
      return Bad(
          absl::StrCat(field, ".", key),
          absl::StrCat("must be a string, not ", JsonTypeName(member.value)));
    }
    // A repeated name: the last wins, as for any JSON member.
    auto same = std::find_if(p->attributes.begin(), p->attributes.end(),
                             [key](const auto& a) { return a.first == key; });
    if (same != p->attributes.end()) {
      same->second = std::move(text);
    } else {
      p->attributes.emplace_back(std::string(key), std::move(text));
    }
  }
  return absl::OkStatus();
}

void ResetPoint(model::TrackPoint* p) { *p = model::TrackPoint(); }

// The optional fields shared by an NDJSON object and GeoJSON properties.
// Returns whether `key` is one of them.
bool ReadOptionalField(absl::string_view key, const Value& v,
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

// Which of an NDJSON object's required fields it has.
struct RequiredFields {
  bool entity = false, time = false, lat = false, lon = false;
};

// Reads one member of an NDJSON object into `p`; `ms` is `time` in
// milliseconds, for loc_time_ms.
absl::Status ReadNdjsonMember(absl::string_view key, const Value& v,
                              const TimeOptions& time, const TimeOptions& ms,
                              model::TrackPoint* p, RequiredFields* seen) {
  if (key == "entity_id" || key == "entityId") {
    if (v.IsBool() || !JsonAsText(v, &p->entity)) {
      return Bad(key, absl::StrCat("must be a string, not ", JsonTypeName(v)));
    }
    seen->entity = true;
    return absl::OkStatus();
  }
  if (key == "loc_time_ms" || key == "locTimeMs") {
    seen->time = true;
    return ReadTime(v, key, ms, &p->loc_time_ms);
  }
  if (key == "time") {
    seen->time = true;
    return ReadTime(v, key, time, &p->loc_time_ms);
  }
  if (key == "latitude" || key == "longitude") {
    double d;
    if (!AsDouble(v, &d)) {
      return Bad(key, absl::StrCat("must be a number, not ", JsonTypeName(v)));
    }
    (key == "latitude" ? p->lat : p->lon) = d;
    (key == "latitude" ? seen->lat : seen->lon) = true;
    return absl::OkStatus();
  }
  absl::Status s;
  if (!ReadOptionalField(key, v, p, &s)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown field '", key,
        "' (known: entity_id, loc_time_ms, time, latitude, longitude, "
        "speed_kmh, direction, height_m, accuracy_m, attributes)"));
  }
  return s;
}

absl::Status CheckRequiredFields(const RequiredFields& seen) {
  if (!seen.entity) return absl::InvalidArgumentError("missing entity_id");
  if (!seen.time) {
    return absl::InvalidArgumentError("missing loc_time_ms (or time)");
  }
  if (!seen.lat || !seen.lon) {
    return absl::InvalidArgumentError("missing latitude or longitude");
  }
  return absl::OkStatus();
}

absl::Status PointFromNdjson(const Value& obj, const TimeOptions& time,
                             model::TrackPoint* p) {
  if (!obj.IsObject()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a JSON object, got ", JsonTypeName(obj)));
  }
  ResetPoint(p);
  TimeOptions ms = time;
  ms.unit = TimeUnit::kMilliseconds;
  RequiredFields seen;
  for (const auto& member : obj.GetObject()) {
    absl::Status s = ReadNdjsonMember(JsonString(member.name), member.value,
                                      time, ms, p, &seen);
    if (!s.ok()) return s;
  }
  if (absl::Status s = CheckRequiredFields(seen); !s.ok()) return s;
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
      size_t end = 0;
      absl::Status s = doc_.ParsePrefix(line, &end);
      if (s.ok() && line.find_first_not_of(" \t\r\n", end) != line.npos) {
        s = absl::InvalidArgumentError(
            "text after the JSON object (one object per line)");
      }
      if (s.ok()) s = PointFromNdjson(doc_.value(), time_, point);
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
  JsonDocument doc_;
  absl::string_view row_;  // the last row, valid until the next read
};

// A feature's Point geometry: [longitude, latitude] or [longitude,
// latitude, height].
absl::Status ReadGeometry(const Value& feature, model::TrackPoint* p) {
  const Value* geometry = JsonFind(feature, "geometry");
  const Value* type = geometry ? JsonFind(*geometry, "type") : nullptr;
  if (type == nullptr || !type->IsString() || JsonString(*type) != "Point") {
    return absl::InvalidArgumentError("geometry is not a Point");
  }
  const Value* coords = JsonFind(*geometry, "coordinates");
  if (coords == nullptr || !coords->IsArray() || coords->Size() < 2 ||
      coords->Size() > 3 ||
      !std::all_of(coords->Begin(), coords->End(),
                   [](const Value& v) { return v.IsNumber(); })) {
    return absl::InvalidArgumentError(
        "geometry.coordinates must be [longitude, latitude] or "
        "[longitude, latitude, height]");
  }
  p->lon = (*coords)[0].GetDouble();
  p->lat = (*coords)[1].GetDouble();
  if (coords->Size() == 3) p->height_m = (*coords)[2].GetDouble();
  return absl::OkStatus();
}

// A property or member of a feature, and its name for messages.
struct Field {
  const Value* value = nullptr;
  std::string name;
};

// The first of `names` that `props` has, as "properties.<name>".
Field FindProperty(const Value& props,
                   std::initializer_list<absl::string_view> names) {
  for (absl::string_view name : names) {
    if (const Value* v = JsonFind(props, name)) {
      return {v, absl::StrCat("properties.", name)};
    }
  }
  return {};
}

class GeoJsonReader : public PointReader {
 public:
  GeoJsonReader(InputSource* in, TimeOptions time, GeoJsonOptions options)
      : in_(in), time_(time), options_(std::move(options)) {}

  absl::StatusOr<Result> Next(model::TrackPoint* point, BadRow* bad) override {
    if (absl::Status s = Advance(); !s.ok()) return Located(s);
    if (state_ == State::kDone) return Result::kEnd;
    // In the features array, at a feature.
    SkipJsonWhitespace(in_);
    row_line_ = in_->next_byte_line();
    if (absl::Status s = feature_.ParseNext(in_); !s.ok()) return Located(s);
    first_feature_ = false;
    ++index_;
    absl::Status s = PointFromFeature(feature_.value(), point);
    if (s.ok()) return Result::kPoint;
    bad->line = row_line_;
    bad->reason = absl::StrCat("features[", index_ - 1, "]: ", s.message());
    bad->text = row_text();
    return Result::kBadRow;
  }

  int64_t row_line() const override { return row_line_; }
  std::string row_text() const override {
    return JsonToString(feature_.value()).substr(0, kMaxRejectTextBytes);
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
      absl::Status s;
      switch (state_) {
        case State::kStart:
          s = OpenCollection();
          break;
        case State::kMembers:
          s = NextMember();
          break;
        case State::kFeatures:
          if (ConsumeJson(in_, ']')) {
            state_ = State::kMembers;
            break;
          }
          if (!first_feature_ && !ConsumeJson(in_, ',')) {
            return JsonExpected(in_, "',' or ']' in the features array");
          }
          return absl::OkStatus();  // at a feature
        case State::kDone:
          return absl::OkStatus();
      }
      if (!s.ok()) return s;
    }
  }

  // The FeatureCollection's '{', then its members, or its end at once if
  // it has none.
  absl::Status OpenCollection() {
    SkipJsonWhitespace(in_);
    if (in_->Peek() < 0 && in_->status().ok()) {
      return absl::InvalidArgumentError(
          "line 1: empty, expected a GeoJSON FeatureCollection");
    }
    if (!ConsumeJson(in_, '{')) {
      return JsonExpected(in_, "a GeoJSON FeatureCollection object");
    }
    state_ = State::kMembers;
    if (ConsumeJson(in_, '}')) return Finish();
    first_member_ = true;
    return absl::OkStatus();
  }

  // The FeatureCollection's next member, or its end.
  absl::Status NextMember() {
    if (!first_member_ && !ConsumeJson(in_, ',')) {
      if (ConsumeJson(in_, '}')) return Finish();
      return JsonExpected(in_, "',' or '}'");
    }
    first_member_ = false;
    return ReadMember();
  }

  // A member of the FeatureCollection: the start of "features", or any
  // other member, read whole ("type" must say FeatureCollection).
  absl::Status ReadMember() {
    SkipJsonWhitespace(in_);
    if (in_->Peek() != '"') return JsonExpected(in_, "a member name in quotes");
    if (absl::Status s = member_.ParseNext(in_); !s.ok()) return s;
    const std::string key(JsonString(member_.value()));
    if (!ConsumeJson(in_, ':')) return JsonExpected(in_, "':'");
    if (key == "features") {
      if (!ConsumeJson(in_, '[')) {
        return JsonExpected(in_, "'[' starting the features array");
      }
      has_features_ = true;
      first_feature_ = true;
      state_ = State::kFeatures;
      return absl::OkStatus();
    }
    if (absl::Status s = member_.ParseNext(in_); !s.ok()) return s;
    const Value& value = member_.value();
    if (key == "type" &&
        !(value.IsString() && JsonString(value) == "FeatureCollection")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "line ", in_->next_byte_line(), ": type is ", JsonToString(value),
          "; expected \"FeatureCollection\""));
    }
    return absl::OkStatus();
  }

  absl::Status Finish() {
    SkipJsonWhitespace(in_);
    if (in_->Peek() >= 0) {
      return JsonExpected(in_, "the end after the FeatureCollection");
    }
    if (!in_->status().ok()) return in_->status();
    if (!has_features_) {
      return absl::InvalidArgumentError(
          "the FeatureCollection has no \"features\" array");
    }
    state_ = State::kDone;
    return absl::OkStatus();
  }

  absl::Status PointFromFeature(const Value& f, model::TrackPoint* p) {
    if (!f.IsObject()) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected a Feature object, got ", JsonTypeName(f)));
    }
    if (const Value* type = JsonFind(f, "type");
        type != nullptr &&
        !(type->IsString() && JsonString(*type) == "Feature")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "type is ", JsonToString(*type), ", expected \"Feature\""));
    }
    ResetPoint(p);
    if (absl::Status s = ReadGeometry(f, p); !s.ok()) return s;

    static const Value kNoProperties(rapidjson::kObjectType);
    const Value* props = JsonFind(f, "properties");
    if (props == nullptr || props->IsNull()) props = &kNoProperties;
    if (!props->IsObject()) {
      return absl::InvalidArgumentError("properties must be an object");
    }
    if (absl::Status s = ReadEntity(f, *props, p); !s.ok()) return s;
    if (absl::Status s = ReadFeatureTime(*props, p); !s.ok()) return s;
    for (const auto& member : props->GetObject()) {
      absl::Status s;
      if (ReadOptionalField(JsonString(member.name), member.value, p, &s) &&
          !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("properties.", s.message()));
      }
    }
    std::sort(p->attributes.begin(), p->attributes.end());
    return absl::OkStatus();
  }

  // The entity: --id_property, or else the first of properties.entity_id,
  // properties.id and the feature's id.
  absl::Status ReadEntity(const Value& f, const Value& props,
                          model::TrackPoint* p) {
    Field id;
    if (!options_.id_property.empty()) {
      id = {JsonFind(props, options_.id_property),
            "properties." + options_.id_property};
    } else {
      id = FindProperty(props, {"entity_id", "id"});
      if (id.value == nullptr) id = {JsonFind(f, "id"), "id"};
    }
    if (id.value == nullptr) {
      return absl::InvalidArgumentError(
          options_.id_property.empty()
              ? "no entity: no properties.entity_id, properties.id or id"
              : absl::StrCat("missing ", id.name));
    }
    if (id.value->IsBool() || !JsonAsText(*id.value, &p->entity)) {
      return Bad(id.name, absl::StrCat("must be a string or a number, not ",
                                       JsonTypeName(*id.value)));
    }
    return absl::OkStatus();
  }

  // The time: --time_property, or else the first of properties.loc_time_ms
  // (Unix ms), properties.time and properties.timestamp.
  absl::Status ReadFeatureTime(const Value& props, model::TrackPoint* p) {
    TimeOptions ms = time_;
    ms.unit = TimeUnit::kMilliseconds;
    Field t;
    const TimeOptions* t_options = &time_;
    if (!options_.time_property.empty()) {
      t = {JsonFind(props, options_.time_property),
           "properties." + options_.time_property};
    } else if ((t = FindProperty(props, {"loc_time_ms"})).value != nullptr) {
      t_options = &ms;
    } else {
      t = FindProperty(props, {"time", "timestamp"});
    }
    if (t.value == nullptr) {
      return absl::InvalidArgumentError(
          options_.time_property.empty()
              ? "no time: no properties.loc_time_ms, properties.time or "
                "properties.timestamp"
              : absl::StrCat("missing ", t.name));
    }
    return ReadTime(*t.value, t.name, *t_options, &p->loc_time_ms);
  }

  InputSource* in_;
  TimeOptions time_;
  GeoJsonOptions options_;
  State state_ = State::kStart;
  bool first_member_ = true;
  bool first_feature_ = true;
  bool has_features_ = false;
  int64_t index_ = 0;
  int64_t row_line_ = 0;  // where the last feature started
  JsonDocument feature_;
  JsonDocument member_;  // the FeatureCollection's other members
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
