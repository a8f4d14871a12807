#include "service/metrics/prometheus_text.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trackdb::metrics {
namespace {

TEST(PrometheusTextTest, ValuesAsTheFormatWritesThem) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(12345678901), "12345678901");
  EXPECT_EQ(FormatValue(-3), "-3");
  EXPECT_EQ(FormatValue(0.1), "0.1");
  EXPECT_EQ(FormatValue(0.00025), "0.00025");
  EXPECT_EQ(FormatValue(1.0 / 3), "0.33333333333333331");
  EXPECT_EQ(FormatValue(1.0 / 0.0), "+Inf");
  EXPECT_EQ(FormatValue(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(FormatValue(0.0 / 0.0), "NaN");
}

TEST(PrometheusTextTest, LabelValuesAndHelpAreEscaped) {
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  PrometheusText out;
  out.Family("trackdb_x_total", "counter", "line one\nback\\slash");
  out.Sample("trackdb_x_total", {{"name", "q\"uote"}, {"kind", "k"}}, 2);
  EXPECT_EQ(out.text(),
            "# HELP trackdb_x_total line one\\nback\\\\slash\n"
            "# TYPE trackdb_x_total counter\n"
            "trackdb_x_total{name=\"q\\\"uote\",kind=\"k\"} 2\n");
}

TEST(PrometheusTextTest, HistogramBucketsAreCumulative) {
  PrometheusText out;
  const double bounds[] = {0.001, 0.01};
  const uint64_t counts[] = {2, 3, 1};
  out.Histogram("trackdb_d_seconds", {{"m", "get"}}, bounds, counts, 0.5);
  EXPECT_EQ(out.text(),
            "trackdb_d_seconds_bucket{m=\"get\",le=\"0.001\"} 2\n"
            "trackdb_d_seconds_bucket{m=\"get\",le=\"0.01\"} 5\n"
            "trackdb_d_seconds_bucket{m=\"get\",le=\"+Inf\"} 6\n"
            "trackdb_d_seconds_sum{m=\"get\"} 0.5\n"
            "trackdb_d_seconds_count{m=\"get\"} 6\n");
}

TEST(PrometheusTextTest, GaugeAndCounterFamiliesOfOneSample) {
  PrometheusText out;
  out.Gauge("trackdb_g", "a gauge", 1.5);
  out.Counter("trackdb_c_total", "a counter", 7);
  EXPECT_EQ(out.text(),
            "# HELP trackdb_g a gauge\n# TYPE trackdb_g gauge\ntrackdb_g 1.5\n"
            "# HELP trackdb_c_total a counter\n# TYPE trackdb_c_total counter\n"
            "trackdb_c_total 7\n");
}

}  // namespace
}  // namespace trackdb::metrics
