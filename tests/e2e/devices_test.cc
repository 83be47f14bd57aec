// Several devices in one server (--devices): two engines (on lavapipe both
// on the one CPU device, which exercises the same code as two GPUs) share
// the load, have a health entry each, and GetDeviceInfo lists both.
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/time/clock.h"

#include "tests/e2e/direct_client.h"
#include "tests/e2e/prometheus_text.h"
#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {
namespace {

using ::grpc::health::v1::HealthCheckResponse;

constexpr char kBlurGraph[] = R"({
  "passes": [{"name": "blur", "inputs": ["image"], "outputs": ["out"], "gaussianBlur": {"radius": 6}}],
  "outputs": ["out"]})";

TEST(Devices, TwoEnginesShareTheLoadWithTheSameBytes) {
  std::unique_ptr<service::Server> server =
      StartServer({}, [](service::ServerOptions& o) {
        o.devices = "0,0";
        o.metrics_listen = "127.0.0.1:0";
      });
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(server->devices().size(), 2);
  const int port = server->port();
  EXPECT_EQ(Health(port, ""), HealthCheckResponse::SERVING);
  EXPECT_EQ(Health(port, "rgfx.v1.PostProcess/device/0"), HealthCheckResponse::SERVING);
  EXPECT_EQ(Health(port, "rgfx.v1.PostProcess/device/1"), HealthCheckResponse::SERVING);

  const v1::ProcessRequest request = RequestFromJson(kBlurGraph, SamplePng(45, 29));
  const Call alone = Process(port, request, absl::Seconds(60));
  ASSERT_TRUE(alone.status.ok()) << alone.status.error_message();
  std::vector<std::thread> clients;
  std::vector<Call> calls(24);
  for (size_t i = 0; i < calls.size(); ++i) {
    clients.emplace_back([&, i] { calls[i] = Process(port, request, absl::Seconds(120)); });
  }
  for (std::thread& t : clients) t.join();
  for (const Call& call : calls) {
    ASSERT_TRUE(call.status.ok()) << call.status.error_message();
    ExpectSameOutputs(alone.response, call.response);
  }
  // Both devices served: equal loads take turns, so neither is left idle.
  // (A job counts as completed just after its answer is sent: wait for it.)
  int64_t first = 0, second = 0;
  for (int i = 0; i < 200 && first + second < 25; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
    first = server->devices().scheduler(0).completed();
    second = server->devices().scheduler(1).completed();
  }
  EXPECT_EQ(first + second, 25);
  EXPECT_GE(first, 5);
  EXPECT_GE(second, 5);
  // The metrics say the same per device, and each device's GPU time (what
  // shows a GPU idle, busy or clocked down).
  absl::StatusOr<Scrape> scrape = ScrapeMetrics(server->metrics_port());
  ASSERT_TRUE(scrape.ok()) << scrape.status();
  EXPECT_EQ(scrape->Sum("rgfx_device_requests_total", {{"device", "0"}}), first);
  EXPECT_EQ(scrape->Sum("rgfx_device_requests_total", {{"device", "1"}}), second);
  EXPECT_GT(scrape->Sum("rgfx_device_gpu_seconds_total", {{"device", "0"}}), 0);
  EXPECT_GT(scrape->Sum("rgfx_device_gpu_seconds_total", {{"device", "1"}}), 0);
  // Every request's GPU time went to one device or the other.
  EXPECT_NEAR(scrape->Sum("rgfx_device_gpu_seconds_total"), scrape->Sum("rgfx_gpu_seconds_sum"),
              1e-6 * 25);

  auto stub = v1::PostProcess::NewStub(NewChannel(port));
  grpc::ClientContext context;
  v1::DeviceInfo info;
  ASSERT_TRUE(stub->GetDeviceInfo(&context, {}, &info).ok());
  ASSERT_EQ(info.devices_size(), 2);
  EXPECT_EQ(info.devices(1).index(), 1);
  EXPECT_TRUE(info.devices(1).healthy());
  EXPECT_EQ(info.devices(1).name(), info.name());
  ExpectNoValidationMessages(*server);
}

TEST(Devices, AnUnknownDeviceIsAStartupError) {
  service::ServerOptions options = TestServerOptions();
  options.devices = "0,no-such-gpu";
  absl::StatusOr<std::unique_ptr<service::Server>> server = service::Server::Start(options);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("no-such-gpu"), std::string::npos)
      << server.status().message();
}

}  // namespace
}  // namespace rgfx::testing
