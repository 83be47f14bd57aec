// End to end, DESIGN.md §8: a lost device fails the requests that meet it
// with UNAVAILABLE, health says NOT_SERVING until the device is recreated and
// the server then answers as before; shutdown lets work in flight finish
// within the grace period, refuses new work, and cancels what outlives it.
// A device cannot be lost, nor a run held, on demand: each test starts its
// own server with service::EngineTestHooks set.
#include <atomic>
#include <memory>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/cleanup/cleanup.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gpu/vk_status.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "tests/e2e/direct_client.h"
#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {
namespace {

using ::grpc::health::v1::HealthCheckResponse;
using ::testing::AnyOf;
using ::testing::HasSubstr;

constexpr char kBlurGraph[] = R"({
  "passes": [{"name": "blur", "inputs": ["image"], "outputs": ["out"], "gaussianBlur": {"radius": 3}}],
  "outputs": ["out"]})";

TEST(DeviceLoss, FailsRequestReportsNotServingThenRecovers) {
  std::atomic<bool> lose_next{false};
  absl::Notification recovering;
  absl::Notification release_recovery;
  service::EngineTestHooks hooks;
  hooks.before_run = [&](int) {
    if (lose_next.exchange(false)) {
      return gpu::MarkDeviceLost(absl::UnavailableError("injected device loss (test)"));
    }
    return absl::OkStatus();
  };
  hooks.before_recover = [&] {
    recovering.Notify();
    release_recovery.WaitForNotificationWithTimeout(absl::Seconds(60));
  };
  std::unique_ptr<service::Server> server = StartServer(std::move(hooks));
  ASSERT_NE(server, nullptr);
  const int port = server->port();
  const v1::ProcessRequest request = RequestFromJson(kBlurGraph, SamplePng(64, 48));

  const Call before = Process(port, request, absl::Seconds(60));
  ASSERT_TRUE(before.status.ok()) << before.status.error_message();
  EXPECT_EQ(Health(port, ""), HealthCheckResponse::SERVING);

  lose_next.store(true);
  Call lost;
  // Runs before the server is destroyed: recovery released, then joined.
  std::jthread lost_client([&] { lost = Process(port, request, absl::Seconds(60)); });
  absl::Cleanup release = [&] {
    if (!release_recovery.HasBeenNotified()) release_recovery.Notify();
  };
  ASSERT_TRUE(recovering.WaitForNotificationWithTimeout(absl::Seconds(30)));

  // The device is being recreated (held by the hook).
  EXPECT_EQ(Health(port, ""), HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(Health(port, "rgfx.v1.PostProcess"), HealthCheckResponse::NOT_SERVING);
  // Another request meanwhile (on the other worker) is refused at once.
  const Call during = Process(port, request, absl::Seconds(30));
  EXPECT_EQ(during.status.error_code(), grpc::StatusCode::UNAVAILABLE)
      << during.status.error_message();
  EXPECT_THAT(during.status.error_message(), HasSubstr("being recovered"));

  release_recovery.Notify();
  lost_client.join();
  EXPECT_EQ(lost.status.error_code(), grpc::StatusCode::UNAVAILABLE) << lost.status.error_message();
  EXPECT_THAT(lost.status.error_message(), HasSubstr("GPU device was lost"));
  EXPECT_THAT(lost.status.error_message(), HasSubstr("injected device loss"));

  // Recovery is done before the failed request is answered.
  EXPECT_EQ(Health(port, ""), HealthCheckResponse::SERVING);
  EXPECT_EQ(Health(port, "rgfx.v1.PostProcess"), HealthCheckResponse::SERVING);
  const Call after = Process(port, request, absl::Seconds(60));
  ASSERT_TRUE(after.status.ok()) << after.status.error_message();
  ExpectSameOutputs(before.response, after.response);
  ExpectNoValidationMessages(*server);
}

TEST(Shutdown, DrainsRequestInFlightAndRefusesNewOnes) {
  RunHold hold;
  service::EngineTestHooks hooks;
  hooks.before_run = [&](int worker) { return hold.BeforeRun(worker); };
  std::unique_ptr<service::Server> server = StartServer(std::move(hooks));
  ASSERT_NE(server, nullptr);
  const int port = server->port();
  const v1::ProcessRequest request = RequestFromJson(kBlurGraph, SamplePng(256, 128));
  const Call reference = Process(port, request, absl::Seconds(60));
  ASSERT_TRUE(reference.status.ok()) << reference.status.error_message();

  hold.armed.store(true);
  Call in_flight;
  std::jthread client([&] { in_flight = Process(port, request, absl::Seconds(60)); });
  absl::Notification shut_down;
  std::jthread shutdown;
  absl::Cleanup release = [&] { hold.Release(); };  // first: the threads above join after it
  ASSERT_TRUE(hold.held.WaitForNotificationWithTimeout(absl::Seconds(30)));

  shutdown = std::jthread([&] {
    server->Shutdown(absl::Seconds(30));
    shut_down.Notify();
  });
  // New clients are refused once shutdown has begun; until then they may
  // still be served (the other worker is free). Refused is UNAVAILABLE, or
  // CANCELLED for a call that reached the server just as shutdown began and
  // was not yet matched to a handler: gRPC core fails those calls with
  // CANCELLED (grpc/grpc#41785), which the sanitizer builds' timing hits.
  const v1::ProcessRequest small = RequestFromJson(kBlurGraph, SamplePng(8, 8));
  grpc::Status probe;
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  do {
    probe = Process(port, small, absl::Seconds(5)).status;
    ASSERT_THAT(probe.error_code(), AnyOf(grpc::StatusCode::OK, grpc::StatusCode::UNAVAILABLE,
                                          grpc::StatusCode::CANCELLED))
        << probe.error_message();
  } while (probe.ok() && absl::Now() < give_up);
  EXPECT_THAT(probe.error_code(),
              AnyOf(grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::CANCELLED));
  // Shutdown waits for the request it holds.
  EXPECT_FALSE(shut_down.HasBeenNotified());

  hold.Release();
  client.join();
  ASSERT_TRUE(in_flight.status.ok()) << in_flight.status.error_message();
  ExpectSameOutputs(reference.response, in_flight.response);
  EXPECT_TRUE(shut_down.WaitForNotificationWithTimeout(absl::Seconds(10)))
      << "shutdown did not return after the last request finished";
  ExpectNoValidationMessages(*server);
}

TEST(Shutdown, GraceShorterThanWorkCancelsTheRequestAndReturns) {
  RunHold hold;
  service::EngineTestHooks hooks;
  hooks.before_run = [&](int worker) { return hold.BeforeRun(worker); };
  std::unique_ptr<service::Server> server = StartServer(std::move(hooks));
  ASSERT_NE(server, nullptr);
  const int port = server->port();

  hold.armed.store(true);
  Call in_flight;
  absl::Notification answered;
  std::jthread client([&] {
    in_flight = Process(port, RequestFromJson(kBlurGraph, SamplePng(256, 128)), absl::Seconds(60));
    answered.Notify();
  });
  absl::Notification shut_down;
  std::jthread shutdown;
  absl::Cleanup release = [&] { hold.Release(); };
  ASSERT_TRUE(hold.held.WaitForNotificationWithTimeout(absl::Seconds(30)));

  const absl::Time start = absl::Now();
  shutdown = std::jthread([&] {
    server->Shutdown(absl::Milliseconds(200));
    shut_down.Notify();
  });
  // The client is answered at the end of the grace period, while the work
  // it asked for is still held on the GPU worker.
  ASSERT_TRUE(answered.WaitForNotificationWithTimeout(absl::Seconds(10)))
      << "the request outlived the grace period";
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_THAT(in_flight.status.error_code(),
              AnyOf(grpc::StatusCode::CANCELLED, grpc::StatusCode::UNAVAILABLE))
      << in_flight.status.error_message();

  // A GPU run cannot be abandoned half way (its memory is in use), so
  // shutdown returns once the stage in flight ends; the job's later stages
  // see the cancellation and are skipped.
  hold.Release();
  EXPECT_TRUE(shut_down.WaitForNotificationWithTimeout(absl::Seconds(5)))
      << "shutdown did not return promptly after the grace period";
  EXPECT_EQ(server->scheduler().in_flight(), 0);
  ExpectNoValidationMessages(*server);
}

}  // namespace
}  // namespace rgfx::testing
