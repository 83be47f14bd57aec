// End to end: Options.report_error. Approximate variants state their error
// (PassTiming.stated_psnr_db) and, when asked, measure it against the exact
// variant on the same input (ProcessResponse.output_errors); exact graphs
// report nothing.
#include <cmath>
#include <cstring>
#include <random>

#include <google/protobuf/util/json_util.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {
namespace {

// A blur of `variant` over one raw RGBA32F linear premultiplied input of
// uniform white noise in [0, 1] (every channel), returned as RGBA32F.
v1::ProcessRequest NoiseBlurRequest(const std::string& blur_json, uint32_t width,
                                    uint32_t height) {
  v1::ProcessRequest request;
  const std::string graph = absl::StrCat(
      R"({"passes": [{"name": "blur", "inputs": ["image"], "outputs": ["out"],
          "gaussianBlur": )",
      blur_json, R"(}], "outputs": ["out"]})");
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(graph, request.mutable_graph()).ok())
      << graph;
  v1::Image& image = *request.add_inputs();
  image.set_name("image");
  image.set_encoding(v1::IMAGE_ENCODING_RGBA32F);
  image.set_width(width);
  image.set_height(height);
  image.set_color_space(v1::COLOR_SPACE_LINEAR);
  image.set_alpha_mode(v1::ALPHA_MODE_PREMULTIPLIED);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> values(size_t{width} * height * 4);
  for (float& v : values) v = uniform(rng);
  image.mutable_data()->resize(values.size() * sizeof(float));
  std::memcpy(image.mutable_data()->data(), values.data(), values.size() * sizeof(float));
  request.mutable_options()->set_working_format(v1::WORKING_FORMAT_RGBA32F);
  request.mutable_options()->set_report_error(true);
  return request;
}

const v1::PassTiming& BlurRow(const v1::ProcessResponse& response) {
  for (const v1::PassTiming& row : response.passes()) {
    if (row.pass() == "blur") return row;
  }
  ADD_FAILURE() << "no timing row for pass 'blur'";
  return response.passes(0);
}

TEST_F(ServerTest, DecimatedReportsPsnrNearTheStatedOne) {
  // Horizontal only with wrap: every line is a circular convolution of
  // independent noise, where the stated PSNR (from the kernels) is the
  // expectation. 2·300+1 taps become 63, every 10th pixel.
  v1::ProcessRequest request = NoiseBlurRequest(
      R"({"radius": 300, "variant": "BLUR_VARIANT_DECIMATED", "axes": "BLUR_AXES_HORIZONTAL", "border": "BORDER_MODE_WRAP"})",
      1200, 16);
  v1::ProcessResponse response;
  grpc::Status status = Process(request, response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::PassTiming& row = BlurRow(response);
  EXPECT_EQ(row.variant(), "decimated");
  EXPECT_TRUE(row.approximate());
  ASSERT_TRUE(row.has_stated_psnr_db());
  ASSERT_EQ(response.output_errors_size(), 1);
  const v1::OutputError& error = response.output_errors(0);
  EXPECT_EQ(error.output(), "out");
  EXPECT_THAT(error.approximate_passes(), ::testing::ElementsAre("blur"));
  EXPECT_TRUE(std::isfinite(error.psnr_vs_exact_db()));
  EXPECT_NEAR(error.psnr_vs_exact_db(), row.stated_psnr_db(), 1.0)
      << "stated " << row.stated_psnr_db();
}

TEST_F(ServerTest, DecimatedBothAxesWithPngOutputsReportsTheFloatError) {
  // PNG out: the compared runs export RGBA32F, so the 8-bit rounding of the
  // returned image does not hide the approximation.
  const std::string graph = R"({"passes": [{"name": "blur", "inputs": ["image"],
      "outputs": ["out"], "gaussianBlur": {"radius": 40, "variant": "BLUR_VARIANT_DECIMATED"}}],
      "outputs": ["out"]})";
  v1::ProcessRequest request = RequestFromJson(graph, SamplePng(96, 64, 5));
  request.mutable_options()->set_report_error(true);
  v1::ProcessResponse response;
  grpc::Status status = Process(request, response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.outputs(0).encoding(), v1::IMAGE_ENCODING_PNG);
  ASSERT_EQ(response.output_errors_size(), 1);
  EXPECT_TRUE(std::isfinite(response.output_errors(0).psnr_vs_exact_db()));
  EXPECT_GT(response.output_errors(0).psnr_vs_exact_db(), 20.0);
  EXPECT_TRUE(BlurRow(response).approximate());
}

TEST_F(ServerTest, DecimatedWithinItsTapsIsExactAndReportsNothing) {
  // 2·20+1 = 41 taps <= 64: no pixel is skipped.
  v1::ProcessRequest request = NoiseBlurRequest(R"({"radius": 20, "variant": "BLUR_VARIANT_DECIMATED"})", 64, 32);
  v1::ProcessResponse response;
  ASSERT_TRUE(Process(request, response).ok());
  EXPECT_FALSE(BlurRow(response).approximate());
  EXPECT_EQ(response.output_errors_size(), 0);
}

TEST_F(ServerTest, ExactReportsNothing) {
  v1::ProcessRequest request = NoiseBlurRequest(R"({"radius": 300, "variant": "BLUR_VARIANT_EXACT"})", 64, 32);
  v1::ProcessResponse response;
  ASSERT_TRUE(Process(request, response).ok());
  const v1::PassTiming& row = BlurRow(response);
  EXPECT_FALSE(row.approximate());
  EXPECT_FALSE(row.has_stated_psnr_db());
  EXPECT_EQ(response.output_errors_size(), 0);
}

TEST_F(ServerTest, TiledHaloIsExactOrReportsAHighPsnr) {
  v1::ProcessRequest request = NoiseBlurRequest(R"({"radius": 24, "variant": "BLUR_VARIANT_TILED_HALO"})", 150, 40);
  v1::ProcessResponse response;
  grpc::Status status = Process(request, response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::PassTiming& row = BlurRow(response);
  EXPECT_EQ(row.variant(), "tiled_halo");
  if (row.approximate()) {
    ASSERT_EQ(response.output_errors_size(), 1);
    EXPECT_GT(response.output_errors(0).psnr_vs_exact_db(), 60.0);
  } else {
    EXPECT_EQ(response.output_errors_size(), 0);
  }
}

TEST_F(ServerTest, WithoutReportErrorNothingIsMeasuredButTheStatedPsnrIsShown) {
  v1::ProcessRequest request = NoiseBlurRequest(R"({"radius": 100, "variant": "BLUR_VARIANT_DECIMATED"})", 64, 32);
  request.mutable_options()->set_report_error(false);
  v1::ProcessResponse response;
  ASSERT_TRUE(Process(request, response).ok());
  EXPECT_TRUE(BlurRow(response).approximate());
  EXPECT_TRUE(BlurRow(response).has_stated_psnr_db());
  EXPECT_EQ(response.output_errors_size(), 0);
}

}  // namespace
}  // namespace rgfx::testing
