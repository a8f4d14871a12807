#ifndef TRACKDB_SERVICE_METRICS_PROMETHEUS_TEXT_H_
#define TRACKDB_SERVICE_METRICS_PROMETHEUS_TEXT_H_

// Prometheus's text exposition format (version 0.0.4), written by hand:
// Debian 12 packages no C++ Prometheus client. Each family is announced
// once (# HELP, # TYPE) and then its samples follow; label values and help
// text are escaped as the format says (backslash, quote, newline).

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace trackdb::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

// The content type a scrape is answered with.
inline constexpr char kPrometheusContentType[] =
    "text/plain; version=0.0.4; charset=utf-8";

class PrometheusText {
 public:
  // Starts a family: `type` is "counter", "gauge" or "histogram". A
  // counter's name ends in _total (the format's rule for its samples).
  void Family(absl::string_view name, absl::string_view type,
              absl::string_view help);
  // One sample of the family started last (or of its _bucket, _sum and
  // _count series for a histogram).
  void Sample(absl::string_view name, const Labels& labels, double value);
  void Sample(absl::string_view name, double value) { Sample(name, {}, value); }
  // A histogram's samples: cumulative counts at each upper bound (`bounds`
  // ascending, in the unit of `sum`), then +Inf, _sum and _count.
  // `counts` holds a count per bound plus one past the last.
  void Histogram(absl::string_view name, const Labels& labels,
                 absl::Span<const double> bounds,
                 absl::Span<const uint64_t> counts, double sum);

  // A family of one gauge or counter sample without labels.
  void Gauge(absl::string_view name, absl::string_view help, double value);
  void Counter(absl::string_view name, absl::string_view help, double value);

  const std::string& text() const { return out_; }

 private:
  std::string out_;
};

// A value as the format writes it: integers without a fraction, +Inf,
// -Inf, NaN.
std::string FormatValue(double value);
// A label value with \, " and newline escaped.
std::string EscapeLabelValue(absl::string_view value);

}  // namespace trackdb::metrics

#endif  // TRACKDB_SERVICE_METRICS_PROMETHEUS_TEXT_H_
