#include "service/metrics/prometheus_text.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trackdb::metrics {
namespace {

// Backslash and newline escaped, and the double quote too in a label value
// (help text keeps it as it is: the format says so).
std::string Escape(absl::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

void AppendLabels(const Labels& labels, std::string* out) {
  if (labels.empty()) return;
  out->push_back('{');
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out->push_back(',');
    absl::StrAppend(out, labels[i].first, "=\"",
                    EscapeLabelValue(labels[i].second), "\"");
  }
  out->push_back('}');
}

}  // namespace

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 9.007199254740992e15) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  // The shortest of 15 or 17 digits that reads back as `value`: 0.1, not
  // 0.10000000000000001.
  std::string shorter = absl::StrFormat("%.15g", value);
  if (std::strtod(shorter.c_str(), nullptr) == value) return shorter;
  return absl::StrFormat("%.17g", value);
}

std::string EscapeLabelValue(absl::string_view value) {
  return Escape(value, /*quote=*/true);
}

void PrometheusText::Family(absl::string_view name, absl::string_view type,
                            absl::string_view help) {
  absl::StrAppend(&out_, "# HELP ", name, " ", Escape(help, /*quote=*/false), "\n",
                  "# TYPE ", name, " ", type, "\n");
}

void PrometheusText::Sample(absl::string_view name, const Labels& labels,
                            double value) {
  out_.append(name.data(), name.size());
  AppendLabels(labels, &out_);
  absl::StrAppend(&out_, " ", FormatValue(value), "\n");
}

void PrometheusText::Histogram(absl::string_view name, const Labels& labels,
                               absl::Span<const double> bounds,
                               absl::Span<const uint64_t> counts, double sum) {
  const std::string bucket = absl::StrCat(name, "_bucket");
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds.size() && i < counts.size(); ++i) {
    cumulative += counts[i];
    Labels with_le = labels;
    with_le.emplace_back(
        "le", i < bounds.size() ? FormatValue(bounds[i]) : std::string("+Inf"));
    Sample(bucket, with_le, static_cast<double>(cumulative));
  }
  Sample(absl::StrCat(name, "_sum"), labels, sum);
  Sample(absl::StrCat(name, "_count"), labels, static_cast<double>(cumulative));
}

void PrometheusText::Gauge(absl::string_view name, absl::string_view help,
                           double value) {
  Family(name, "gauge", help);
  Sample(name, value);
}

void PrometheusText::Counter(absl::string_view name, absl::string_view help,
                             double value) {
  Family(name, "counter", help);
  Sample(name, value);
}

}  // namespace trackdb::metrics
