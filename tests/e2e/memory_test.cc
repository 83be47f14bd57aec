// Memory bounded by construction (DESIGN.md §8): requests over the host or
// GPU budget are refused with RESOURCE_EXHAUSTED before anything is
// allocated; a failing allocation fails only its own request; memory goes
// back after an idle period.
#include <new>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "gpu/vk_status.h"
#include "tests/e2e/direct_client.h"
#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kBlurGraph[] = R"({
  "passes": [{"name": "blur", "inputs": ["image"], "outputs": ["out"], "gaussianBlur": {"radius": 4}}],
  "outputs": ["out"]})";

TEST(MemoryBudget, RequestOverTheHostBudgetIsRefusedAndOthersServed) {
  std::unique_ptr<service::Server> server =
      StartServer({}, [](service::ServerOptions& o) { o.engine.host_memory_budget = 64 << 10; });
  ASSERT_NE(server, nullptr);
  // 200x150 RGBA8 = 117 KiB of input alone: over a 64 KiB budget.
  const Call big = Process(server->port(), RequestFromJson(kBlurGraph, SamplePng(200, 150)),
                           absl::Seconds(60));
  EXPECT_EQ(big.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(big.status.error_message(), HasSubstr("--host_memory_budget_mb"));
  // 40x30 fits (inputs + twice the outputs = 14 KiB).
  const Call small = Process(server->port(), RequestFromJson(kBlurGraph, SamplePng(40, 30)),
                             absl::Seconds(60));
  EXPECT_TRUE(small.status.ok()) << small.status.error_message();
  EXPECT_EQ(server->engine().memory_budget().host_reserved(), 0u);
  ExpectNoValidationMessages(*server);
}

TEST(MemoryBudget, GraphOverAWorkersGpuShareIsRefused) {
  std::unique_ptr<service::Server> server =
      StartServer({}, [](service::ServerOptions& o) { o.engine.gpu_memory_budget = 256 << 10; });
  ASSERT_NE(server, nullptr);
  // 2 workers share 256 KiB; 200x150 needs several RGBA16F buffers of 234 KiB.
  const Call big = Process(server->port(), RequestFromJson(kBlurGraph, SamplePng(200, 150)),
                           absl::Seconds(60));
  EXPECT_EQ(big.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(big.status.error_message(), HasSubstr("GPU memory"));
  const Call small = Process(server->port(), RequestFromJson(kBlurGraph, SamplePng(20, 10)),
                             absl::Seconds(60));
  EXPECT_TRUE(small.status.ok()) << small.status.error_message();
}

TEST(MemoryBudget, FailedAllocationFailsOnlyItsRequest) {
  std::atomic<int> fail{0};  // 1: host bad_alloc, 2: Vulkan out of device memory
  service::EngineTestHooks hooks;
  hooks.before_staging = [&](uint64_t) -> absl::Status {
    switch (fail.exchange(0)) {
      case 1: throw std::bad_alloc();
      case 2: return gpu::VkStatus(VK_ERROR_OUT_OF_DEVICE_MEMORY, "allocating staging (test)");
      default: return absl::OkStatus();
    }
  };
  std::unique_ptr<service::Server> server = StartServer(std::move(hooks));
  ASSERT_NE(server, nullptr);
  const v1::ProcessRequest request = RequestFromJson(kBlurGraph, SamplePng(31, 17));
  const Call before = Process(server->port(), request, absl::Seconds(60));
  ASSERT_TRUE(before.status.ok()) << before.status.error_message();
  for (int kind : {1, 2}) {
    SCOPED_TRACE(kind);
    fail = kind;
    const Call failed = Process(server->port(), request, absl::Seconds(60));
    EXPECT_EQ(failed.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << failed.status.error_message();
    const Call after = Process(server->port(), request, absl::Seconds(60));
    ASSERT_TRUE(after.status.ok()) << after.status.error_message();
    ExpectSameOutputs(before.response, after.response);
  }
  EXPECT_EQ(server->engine().memory_budget().host_reserved(), 0u);
  ExpectNoValidationMessages(*server);
}

TEST(MemoryIdle, StagingAndTransientMemoryGoBackAfterIdle) {
  std::unique_ptr<service::Server> server = StartServer({}, [](service::ServerOptions& o) {
    o.engine.memory_idle_release = absl::Milliseconds(200);
  });
  ASSERT_NE(server, nullptr);
  const Call call = Process(server->port(), RequestFromJson(kBlurGraph, SamplePng(300, 200)),
                            absl::Seconds(60));
  ASSERT_TRUE(call.status.ok()) << call.status.error_message();
  EXPECT_GT(server->engine().memory_stats().staging_bytes, 0u);
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  service::Engine::MemoryStats stats;
  do {
    absl::SleepFor(absl::Milliseconds(50));
    stats = server->engine().memory_stats();
  } while ((stats.staging_bytes > 0 || stats.device_bytes > 0) && absl::Now() < give_up);
  EXPECT_EQ(stats.staging_bytes, 0u);
  EXPECT_EQ(stats.device_bytes, 0u);
  // And the next request allocates again and works.
  const Call again = Process(server->port(), RequestFromJson(kBlurGraph, SamplePng(300, 200)),
                             absl::Seconds(60));
  ASSERT_TRUE(again.status.ok()) << again.status.error_message();
  ExpectSameOutputs(call.response, again.response);
  ExpectNoValidationMessages(*server);
}

}  // namespace
}  // namespace rgfx::testing
