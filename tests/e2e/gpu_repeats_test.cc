// Options.gpu_repeats: the same pixels, median timings, and a bound.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {
namespace {

constexpr char kGraph[] = R"({"passes": [{"name": "blur", "inputs": ["image"], "outputs": ["out"],
                                "gaussianBlur": {"radius": 6}}], "outputs": ["out"]})";

TEST_F(ServerTest, GpuRepeatsGiveTheSamePixelsAndTimings) {
  v1::ProcessRequest request = RequestFromJson(kGraph, SamplePng(53, 29));
  v1::ProcessResponse once;
  ASSERT_TRUE(Process(request, once).ok());
  request.mutable_options()->set_gpu_repeats(9);
  v1::ProcessResponse repeated;
  const grpc::Status status = Process(request, repeated);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(repeated.outputs_size(), 1);
  EXPECT_EQ(repeated.outputs(0).data(), once.outputs(0).data());
  ASSERT_EQ(repeated.passes_size(), once.passes_size());
  for (const auto& pass : repeated.passes()) {
    ASSERT_TRUE(pass.has_gpu_ns()) << pass.pass();
    EXPECT_GT(pass.gpu_ns(), 0u) << pass.pass();
  }
}

TEST_F(ServerTest, GpuRepeatsAboveTheLimitAreRefused) {
  v1::ProcessRequest request = RequestFromJson(kGraph, SamplePng(8, 8));
  request.mutable_options()->set_gpu_repeats(1000000);
  v1::ProcessResponse response;
  const grpc::Status status = Process(request, response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("options.gpu_repeats = 1000000"));
  v1::ProcessResponse good;
  EXPECT_TRUE(Process(RequestFromJson(kGraph, SamplePng(8, 8)), good).ok());
}

}  // namespace
}  // namespace rgfx::testing
