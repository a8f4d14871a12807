#include "tools/import/csv_reader.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace trackdb::import {
namespace {

constexpr double kMetresPerFoot = 0.3048;
constexpr double kGeoLifeUnknownAltitude = -777;

const char* RoleName(Column c) {
  switch (c) {
    case Column::kIgnore:
      return "ignored";
    case Column::kEntity:
      return "entity_id";
    case Column::kTime:
      return "time";
    case Column::kTimeMs:
      return "loc_time_ms";
    case Column::kDate:
      return "date";
    case Column::kTimeOfDay:
      return "time_of_day";
    case Column::kLat:
      return "latitude";
    case Column::kLon:
      return "longitude";
    case Column::kSpeed:
      return "speed_kmh";
    case Column::kDirection:
      return "direction";
    case Column::kHeight:
      return "height_m";
    case Column::kHeightFeet:
      return "altitude_ft";
    case Column::kAccuracy:
      return "accuracy_m";
    case Column::kAttribute:
      return "attribute";
  }
  return "?";
}

bool ParseDouble(absl::string_view text, double* out) {
  text = absl::StripAsciiWhitespace(text);
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty();
}

absl::Status ValidateLayout(const CsvLayout& layout) {
  int count[static_cast<int>(Column::kAttribute) + 1] = {};
  std::vector<absl::string_view> attributes;
  for (const CsvColumn& c : layout.columns) {
    if (c.role == Column::kAttribute) {
      if (std::find(attributes.begin(), attributes.end(), c.attribute) !=
          attributes.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("column attr.", c.attribute, " appears twice"));
      }
      attributes.push_back(c.attribute);
      continue;
    }
    if (c.role == Column::kIgnore) continue;
    if (++count[static_cast<int>(c.role)] > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("column ", RoleName(c.role), " appears twice"));
    }
  }
  auto has = [&count](Column c) { return count[static_cast<int>(c)] > 0; };
  if (!has(Column::kEntity) && layout.entity.empty()) {
    return absl::InvalidArgumentError(
        "no entity_id column (and no fixed entity: --entity)");
  }
  const int times = has(Column::kTime) + has(Column::kTimeMs) +
                    (has(Column::kDate) || has(Column::kTimeOfDay));
  if (times != 1 || has(Column::kDate) != has(Column::kTimeOfDay)) {
    return absl::InvalidArgumentError(
        "need exactly one time: a time or loc_time_ms column, or date and "
        "time_of_day columns");
  }
  if (!has(Column::kLat) || !has(Column::kLon)) {
    return absl::InvalidArgumentError("need latitude and longitude columns");
  }
  return absl::OkStatus();
}

class CsvReader : public PointReader {
 public:
  CsvReader(InputSource* in, CsvLayout layout, TimeOptions time)
      : in_(in), layout_(std::move(layout)), time_(time) {
    time_ms_ = time_;
    time_ms_.unit = TimeUnit::kMilliseconds;
  }

  absl::StatusOr<Result> Next(model::TrackPoint* point, BadRow* bad) override {
    if (!started_) {
      started_ = true;
      if (absl::Status s = Start(); !s.ok()) return s;
    }
    absl::string_view line;
    while (in_->ReadLine(&line)) {
      if (absl::StripAsciiWhitespace(line).empty()) continue;
      row_ = line;
      std::string reason;
      if (ParseRow(line, point, &reason)) return Result::kPoint;
      bad->line = in_->line_number();
      bad->reason = std::move(reason);
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
  absl::Status Start() {
    absl::string_view line;
    for (int i = 0; i < layout_.skip_lines; ++i) {
      if (!in_->ReadLine(&line)) return in_->status();
    }
    const bool from_header = layout_.columns.empty();
    if (from_header) {
      if (!in_->ReadLine(&line)) {
        if (!in_->status().ok()) return in_->status();
        return absl::InvalidArgumentError(absl::StrCat(
            in_->name(), ": empty, expected a header line (or --columns)"));
      }
      if (absl::Status s =
              SplitCsvLine(line, layout_.delimiter, &fields_, &scratch_);
          !s.ok()) {
        return HeaderError(s.message());
      }
      for (absl::string_view name : fields_) {
        auto column = ColumnFromName(name);
        if (!column.ok()) return HeaderError(column.status().message());
        layout_.columns.push_back(*std::move(column));
      }
    }
    if (absl::Status s = ValidateLayout(layout_); !s.ok()) {
      if (from_header) return HeaderError(s.message());
      return absl::InvalidArgumentError(
          absl::StrCat(in_->name(), ": columns: ", s.message()));
    }
    return absl::OkStatus();
  }

  absl::Status HeaderError(absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(in_->name(), ":", in_->line_number(), ": header: ", why));
  }

  bool Fail(std::string* reason, size_t i, absl::string_view field,
            absl::string_view why) {
    *reason = absl::StrCat("column ", i + 1, " (",
                           layout_.columns[i].role == Column::kAttribute
                               ? "attr." + layout_.columns[i].attribute
                               : RoleName(layout_.columns[i].role),
                           "): '", field.substr(0, 64), "' ", why);
    return false;
  }

  bool ParseRow(absl::string_view line, model::TrackPoint* p,
                std::string* reason) {
    if (absl::Status s =
            SplitCsvLine(line, layout_.delimiter, &fields_, &scratch_);
        !s.ok()) {
      *reason = std::string(s.message());
      return false;
    }
    if (fields_.size() != layout_.columns.size()) {
      *reason = absl::StrCat("has ", fields_.size(), " fields; expected ",
                             layout_.columns.size());
      return false;
    }
    // `p` may hold the caller's previous point: clear what a row may omit.
    p->entity = layout_.entity;
    p->speed_kmh.reset();
    p->direction_deg.reset();
    p->height_m.reset();
    p->accuracy_m.reset();
    p->attributes.clear();
    absl::string_view date, time_of_day;
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (!ParseField(i, p, &date, &time_of_day, reason)) return false;
    }
    if ((!date.empty() || !time_of_day.empty()) &&
        !ParseDateAndTime(date, time_of_day, p, reason)) {
      return false;
    }
    std::sort(p->attributes.begin(), p->attributes.end());
    return true;
  }

  // Stores field i in `p` as its column's role says. A date or a time of
  // day is only kept: ParseDateAndTime joins them once the row is read.
  bool ParseField(size_t i, model::TrackPoint* p, absl::string_view* date,
                  absl::string_view* time_of_day, std::string* reason) {
    const absl::string_view f = fields_[i];
    std::optional<double>* optional = nullptr;
    switch (layout_.columns[i].role) {
      case Column::kIgnore:
        return true;
      case Column::kEntity:
        p->entity.assign(f.data(), f.size());
        return true;
      case Column::kTime:
      case Column::kTimeMs:
        return ParseTimeField(i, p, reason);
      case Column::kDate:
        *date = f;
        return true;
      case Column::kTimeOfDay:
        *time_of_day = f;
        return true;
      case Column::kLat:
      case Column::kLon:
        return ParseCoordinate(i, p, reason);
      case Column::kAttribute:
        AddAttribute(i, p);
        return true;
      case Column::kSpeed:
        optional = &p->speed_kmh;
        break;
      case Column::kDirection:
        optional = &p->direction_deg;
        break;
      case Column::kHeight:
      case Column::kHeightFeet:
        optional = &p->height_m;
        break;
      case Column::kAccuracy:
        optional = &p->accuracy_m;
        break;
    }
    return ParseOptionalNumber(i, optional, reason);
  }

  // A time or loc_time_ms field, by its column's unit.
  bool ParseTimeField(size_t i, model::TrackPoint* p, std::string* reason) {
    const Column role = layout_.columns[i].role;
    auto t =
        ParseTimestampMs(fields_[i], role == Column::kTime ? time_ : time_ms_);
    if (!t.ok()) {
      *reason = absl::StrCat("column ", i + 1, " (", RoleName(role),
                             "): ", t.status().message());
      return false;
    }
    p->loc_time_ms = *t;
    return true;
  }

  bool ParseCoordinate(size_t i, model::TrackPoint* p, std::string* reason) {
    const absl::string_view f = fields_[i];
    double v;
    if (!ParseDouble(f, &v)) return Fail(reason, i, f, "is not a number");
    (layout_.columns[i].role == Column::kLat ? p->lat : p->lon) = v;
    return true;
  }

  // An empty attribute field is no attribute.
  void AddAttribute(size_t i, model::TrackPoint* p) {
    const absl::string_view f = fields_[i];
    if (!f.empty()) {
      p->attributes.emplace_back(layout_.columns[i].attribute, std::string(f));
    }
  }

  // An empty field leaves the number absent, as does GeoLife's "unknown"
  // altitude; feet become metres.
  bool ParseOptionalNumber(size_t i, std::optional<double>* optional,
                           std::string* reason) {
    const absl::string_view f = fields_[i];
    if (absl::StripAsciiWhitespace(f).empty()) return true;
    double v;
    if (!ParseDouble(f, &v)) return Fail(reason, i, f, "is not a number");
    if (layout_.columns[i].role == Column::kHeightFeet) {
      if (v == kGeoLifeUnknownAltitude) return true;
      v *= kMetresPerFoot;
    }
    *optional = v;
    return true;
  }

  bool ParseDateAndTime(absl::string_view date, absl::string_view time_of_day,
                        model::TrackPoint* p, std::string* reason) {
    date_time_.assign(date.data(), date.size());
    date_time_.push_back(' ');
    date_time_.append(time_of_day.data(), time_of_day.size());
    auto t = ParseTimestampMs(date_time_, time_);
    if (!t.ok()) {
      *reason = std::string(t.status().message());
      return false;
    }
    p->loc_time_ms = *t;
    return true;
  }

  InputSource* in_;
  CsvLayout layout_;
  TimeOptions time_, time_ms_;
  bool started_ = false;
  absl::string_view row_;  // the last row, valid until the next read
  std::vector<absl::string_view> fields_;
  std::string scratch_, date_time_;
};

}  // namespace

absl::StatusOr<CsvColumn> ColumnFromName(absl::string_view raw) {
  const std::string name =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(raw));
  struct Alias {
    const char* name;
    Column role;
  };
  static constexpr Alias kAliases[] = {
      {"entity_id", Column::kEntity},
      {"entity", Column::kEntity},
      {"id", Column::kEntity},
      {"entityid", Column::kEntity},
      {"loc_time_ms", Column::kTimeMs},
      {"time", Column::kTime},
      {"timestamp", Column::kTime},
      {"datetime", Column::kTime},
      {"loc_time", Column::kTime},
      {"date", Column::kDate},
      {"time_of_day", Column::kTimeOfDay},
      {"latitude", Column::kLat},
      {"lat", Column::kLat},
      {"longitude", Column::kLon},
      {"lon", Column::kLon},
      {"lng", Column::kLon},
      {"long", Column::kLon},
      {"speed_kmh", Column::kSpeed},
      {"speed", Column::kSpeed},
      {"direction", Column::kDirection},
      {"heading", Column::kDirection},
      {"bearing", Column::kDirection},
      {"course", Column::kDirection},
      {"height_m", Column::kHeight},
      {"height", Column::kHeight},
      {"altitude", Column::kHeight},
      {"alt", Column::kHeight},
      {"elevation", Column::kHeight},
      {"altitude_ft", Column::kHeightFeet},
      {"accuracy_m", Column::kAccuracy},
      {"accuracy", Column::kAccuracy},
      {"-", Column::kIgnore},
      {"ignore", Column::kIgnore},
  };
  for (const Alias& a : kAliases) {
    if (name == a.name) return CsvColumn{a.role, ""};
  }
  if (absl::StartsWith(name, "attr.") && name.size() > 5) {
    // The attribute keeps the name's case.
    const absl::string_view stripped = absl::StripAsciiWhitespace(raw);
    return CsvColumn{Column::kAttribute, std::string(stripped.substr(5))};
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown column '", raw,
      "'; known: entity_id, loc_time_ms, time, date, time_of_day, latitude, "
      "longitude, speed_kmh, direction, height_m, altitude_ft, accuracy_m, "
      "attr.NAME, - (skip) and their aliases (see --help)"));
}

absl::StatusOr<std::vector<CsvColumn>> ParseColumnList(absl::string_view spec) {
  std::vector<CsvColumn> columns;
  for (absl::string_view name : absl::StrSplit(spec, ',')) {
    auto c = ColumnFromName(name);
    if (!c.ok()) return c.status();
    columns.push_back(*std::move(c));
  }
  return columns;
}

CsvLayout TDriveLayout() {
  CsvLayout layout;
  layout.columns = {{Column::kEntity, ""},
                    {Column::kTime, ""},
                    {Column::kLon, ""},
                    {Column::kLat, ""}};
  return layout;
}

CsvLayout GeoLifeLayout(std::string entity) {
  CsvLayout layout;
  layout.skip_lines = 6;
  layout.columns = {{Column::kLat, ""},      {Column::kLon, ""},
                    {Column::kIgnore, ""},   {Column::kHeightFeet, ""},
                    {Column::kIgnore, ""},   {Column::kDate, ""},
                    {Column::kTimeOfDay, ""}};
  layout.entity = std::move(entity);
  return layout;
}

namespace {

// The fast path, for a line with no quotes: the fields are views of it.
void SplitUnquotedLine(absl::string_view line, char delimiter,
                       std::vector<absl::string_view>* fields) {
  size_t start = 0;
  while (true) {
    const void* d =
        std::memchr(line.data() + start, delimiter, line.size() - start);
    if (d == nullptr) {
      fields->push_back(line.substr(start));
      return;
    }
    const size_t end = static_cast<const char*>(d) - line.data();
    fields->push_back(line.substr(start, end - start));
    start = end + 1;
  }
}

// Appends the text of the quoted field whose opening quote is line[*i] to
// `scratch`, a doubled quote as one, and leaves *i past the closing quote.
absl::Status UnquoteField(absl::string_view line, char delimiter, size_t* i,
                          std::string* scratch) {
  size_t pos = *i + 1;
  while (true) {
    if (pos >= line.size()) {
      return absl::InvalidArgumentError(
          "unterminated quoted field (quoted fields cannot span lines)");
    }
    if (line[pos] == '"') {
      if (pos + 1 < line.size() && line[pos + 1] == '"') {
        scratch->push_back('"');
        pos += 2;
        continue;
      }
      ++pos;
      break;
    }
    scratch->push_back(line[pos++]);
  }
  *i = pos;
  if (pos < line.size() && line[pos] != delimiter) {
    return absl::InvalidArgumentError(
        "text after a closing quote (a quote inside a field must be "
        "doubled)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SplitCsvLine(absl::string_view line, char delimiter,
                          std::vector<absl::string_view>* fields,
                          std::string* scratch) {
  fields->clear();
  if (std::memchr(line.data(), '"', line.size()) == nullptr) {
    SplitUnquotedLine(line, delimiter, fields);
    return absl::OkStatus();
  }
  // Unquoted text never grows, so one reservation keeps the views valid.
  scratch->clear();
  scratch->reserve(line.size());
  size_t i = 0;
  while (true) {
    const size_t begin = scratch->size();
    if (i < line.size() && line[i] == '"') {
      if (absl::Status s = UnquoteField(line, delimiter, &i, scratch);
          !s.ok()) {
        return s;
      }
    } else {
      while (i < line.size() && line[i] != delimiter) {
        scratch->push_back(line[i++]);
      }
    }
    fields->push_back(
        absl::string_view(scratch->data() + begin, scratch->size() - begin));
    if (i >= line.size()) return absl::OkStatus();
    ++i;  // the delimiter
  }
}

std::unique_ptr<PointReader> NewCsvReader(InputSource* in, CsvLayout layout,
                                          TimeOptions time) {
  return std::make_unique<CsvReader>(in, std::move(layout), time);
}

}  // namespace trackdb::import
