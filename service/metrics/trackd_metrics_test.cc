// What the metrics port answers through trackd's life: before the store is
// open, serving, and stopping; and /metrics moving with the store.

#include "service/metrics/trackd_metrics.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/store_test_util.h"

namespace trackdb::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(TrackdEndpointsTest, StartingServingStopping) {
  TrackdEndpoints endpoints;
  EXPECT_EQ(endpoints.Handle("/healthz").status, 200);
  HttpAnswer ready = endpoints.Handle("/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_THAT(ready.body, HasSubstr("starting"));
  HttpAnswer metrics = endpoints.Handle("/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.content_type, kPrometheusContentType);
  EXPECT_THAT(metrics.body, HasSubstr("\ntrackdb_ready 0\n"));
  EXPECT_THAT(metrics.body, Not(HasSubstr("trackdb_entities")));

  auto store = storage::testing::OpenStore(storage::testing::NewDataDir());
  CallMetrics resp;
  TrackdSources sources;
  sources.store = store.get();
  sources.resp = &resp;
  endpoints.Attach(sources);
  EXPECT_EQ(endpoints.Handle("/readyz").status, 200);
  metrics = endpoints.Handle("/metrics");
  EXPECT_THAT(metrics.body, HasSubstr("\ntrackdb_ready 1\n"));
  EXPECT_THAT(metrics.body, HasSubstr("\ntrackdb_entities 0\n"));
  EXPECT_THAT(metrics.body, HasSubstr("\ntrackdb_points_ingested_total 0\n"));
  EXPECT_THAT(metrics.body, HasSubstr("\ntrackdb_replica 0\n"));

  ASSERT_TRUE(
      store
          ->AddPoints("fleet", {storage::testing::Point("a", 1000, 40, 116),
                                storage::testing::Point("b", 1000, 41, 116)})
          .ok());
  resp.Record("geoadd", 1000, false);
  metrics = endpoints.Handle("/metrics");
  EXPECT_THAT(metrics.body, HasSubstr("\ntrackdb_entities 2\n"));
  EXPECT_THAT(metrics.body, HasSubstr("\ntrackdb_points_ingested_total 2\n"));
  EXPECT_THAT(
      metrics.body,
      HasSubstr("\ntrackdb_resp_commands_total{command=\"geoadd\"} 1\n"));

  endpoints.Detach();
  ready = endpoints.Handle("/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_THAT(ready.body, HasSubstr("stopping"));
  EXPECT_EQ(endpoints.Handle("/healthz").status, 200);
  EXPECT_THAT(endpoints.Handle("/metrics").body,
              Not(HasSubstr("trackdb_entities")));
  EXPECT_EQ(endpoints.Handle("/other").status, 404);
}

}  // namespace
}  // namespace trackdb::metrics
