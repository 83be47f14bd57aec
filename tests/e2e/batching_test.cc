// Batching (DESIGN.md §9): requests with the same compiled graph and sizes
// that wait for the GPU share one submission, and each still gets its own
// bytes and timings. The GPU worker is held by a test hook so that the
// requests are certainly queued together; without batching every response
// would say batch_requests == 1.
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "tests/e2e/direct_client.h"
#include "tests/e2e/prometheus_text.h"
#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {
namespace {

constexpr char kBlurGraph[] = R"({
  "passes": [{"name": "blur", "inputs": ["image"], "outputs": ["out"], "gaussianBlur": {"radius": 5}}],
  "outputs": ["out"]})";
constexpr char kChainGraph[] = R"({
  "passes": [{"name": "a", "inputs": ["image"], "outputs": ["t"], "gaussianBlur": {"radius": 2}},
             {"name": "b", "inputs": ["t"], "outputs": ["out"], "gaussianBlur": {"radius": 7}}],
  "outputs": ["out"]})";

// One GPU worker, no waiting for more (the hold does the gathering).
std::unique_ptr<service::Server> StartHeldServer(RunHold& hold) {
  service::EngineTestHooks hooks;
  hooks.before_run = [&hold](int worker) { return hold.BeforeRun(worker); };
  return StartServer(std::move(hooks), [](service::ServerOptions& options) {
    options.engine.workers = 1;
    options.config.max_batch = 8;
    options.config.batch_delay = absl::ZeroDuration();
    options.config.max_in_flight = 32;
    options.metrics_listen = "127.0.0.1:0";
  });
}

// Holds the GPU worker with `blocker`, sends `requests` concurrently, waits
// until all of them are queued for the GPU, releases the worker and returns
// the answers in order.
std::vector<Call> SendWhileHeld(service::Server& server, RunHold& hold,
                                const v1::ProcessRequest& blocker,
                                const std::vector<v1::ProcessRequest>& requests) {
  const int port = server.port();
  hold.armed = true;
  Call blocked;
  std::thread blocker_thread([&] { blocked = Process(port, blocker, absl::Seconds(120)); });
  EXPECT_TRUE(hold.held.WaitForNotificationWithTimeout(absl::Seconds(60)));
  std::vector<Call> calls(requests.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < requests.size(); ++i) {
    threads.emplace_back([&, i] { calls[i] = Process(port, requests[i], absl::Seconds(120)); });
  }
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  while (server.scheduler().gpu_queued() < static_cast<int>(requests.size()) &&
         absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(server.scheduler().gpu_queued(), static_cast<int>(requests.size()));
  hold.Release();
  for (std::thread& t : threads) t.join();
  blocker_thread.join();
  EXPECT_TRUE(blocked.status.ok()) << blocked.status.error_message();
  return calls;
}

TEST(Batching, QueuedRequestsOfOneGraphShareASubmissionAndKeepTheirBytes) {
  RunHold hold;
  std::unique_ptr<service::Server> server = StartHeldServer(hold);
  ASSERT_NE(server, nullptr);
  // Same graph and size, different pixels: a batch must not mix them up.
  std::vector<v1::ProcessRequest> requests;
  std::vector<v1::ProcessResponse> alone;
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    requests.push_back(RequestFromJson(kBlurGraph, SamplePng(37, 23, seed)));
    Call call = Process(server->port(), requests.back(), absl::Seconds(120));
    ASSERT_TRUE(call.status.ok()) << call.status.error_message();
    EXPECT_EQ(call.response.stages().batch_requests(), 1);
    alone.push_back(std::move(call.response));
  }
  const std::vector<Call> calls =
      SendWhileHeld(*server, hold, RequestFromJson(kBlurGraph, SamplePng(19, 11)), requests);
  for (size_t i = 0; i < calls.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_TRUE(calls[i].status.ok()) << calls[i].status.error_message();
    ExpectSameOutputs(alone[i], calls[i].response);
    EXPECT_EQ(calls[i].response.stages().batch_requests(), 6);
    // Timings per request: every pass of the graph has its own row.
    ASSERT_EQ(calls[i].response.passes_size(), alone[i].passes_size());
    for (int p = 0; p < alone[i].passes_size(); ++p) {
      EXPECT_EQ(calls[i].response.passes(p).pass(), alone[i].passes(p).pass());
      EXPECT_EQ(calls[i].response.passes(p).has_gpu_ns(), alone[i].passes(p).has_gpu_ns());
    }
  }
  // The metrics say the same: 13 requests (6 alone, the blocker, 6 batched)
  // in 8 submissions, one of which served 6.
  absl::StatusOr<Scrape> scrape = ScrapeMetrics(server->metrics_port());
  ASSERT_TRUE(scrape.ok()) << scrape.status();
  EXPECT_EQ(scrape->Sum("rgfx_requests_total", {{"code", "OK"}}), 13);
  EXPECT_EQ(scrape->Sum("rgfx_gpu_submissions_total"), 8);
  EXPECT_EQ(scrape->Sum("rgfx_gpu_batch_requests_count"), 8);
  EXPECT_EQ(scrape->Sum("rgfx_gpu_batch_requests_sum"), 13);
  ExpectNoValidationMessages(*server);
}

TEST(Batching, OnlyRequestsOfTheSameGraphAndSizeAreBatched) {
  RunHold hold;
  std::unique_ptr<service::Server> server = StartHeldServer(hold);
  ASSERT_NE(server, nullptr);
  // Three kinds, three of each, interleaved: each kind forms its own batch.
  std::vector<v1::ProcessRequest> requests;
  std::vector<v1::ProcessResponse> alone;
  for (int k = 0; k < 9; ++k) {
    const uint32_t seed = 10 + k;
    switch (k % 3) {
      case 0: requests.push_back(RequestFromJson(kBlurGraph, SamplePng(37, 23, seed))); break;
      case 1: requests.push_back(RequestFromJson(kBlurGraph, SamplePng(41, 23, seed))); break;
      case 2: requests.push_back(RequestFromJson(kChainGraph, SamplePng(37, 23, seed))); break;
    }
    Call call = Process(server->port(), requests.back(), absl::Seconds(120));
    ASSERT_TRUE(call.status.ok()) << call.status.error_message();
    alone.push_back(std::move(call.response));
  }
  const std::vector<Call> calls =
      SendWhileHeld(*server, hold, RequestFromJson(kBlurGraph, SamplePng(19, 11)), requests);
  for (size_t i = 0; i < calls.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_TRUE(calls[i].status.ok()) << calls[i].status.error_message();
    ExpectSameOutputs(alone[i], calls[i].response);
    EXPECT_EQ(calls[i].response.stages().batch_requests(), 3);
  }
  ExpectNoValidationMessages(*server);
}

}  // namespace
}  // namespace rgfx::testing
