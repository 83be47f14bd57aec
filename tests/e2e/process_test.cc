// End to end: PNG round trips, the example graphs, the catalog, health and
// streams against a real server.
#include <png.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph/registry.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "passes/gaussian_blur.h"
#include "service/png_codec.h"
#include "tests/e2e/server_fixture.h"
#include "tests/service/png_test_util.h"

namespace rgfx::testing {
namespace {

constexpr char kCopyGraph[] = R"({
  "passes": [{"name": "id", "inputs": ["image"], "outputs": ["out"], "copy": {}}],
  "outputs": ["out"]})";

std::vector<std::byte> DecodeOrDie(const std::string& png) {
  const auto bytes = std::as_bytes(std::span<const char>(png.data(), png.size()));
  absl::StatusOr<service::PngInfo> info = service::ReadPngHeader("out", bytes, 1 << 26);
  EXPECT_TRUE(info.ok()) << info.status();
  if (!info.ok()) return {};
  std::vector<std::byte> pixels(info->decoded_bytes);
  EXPECT_TRUE(service::DecodePngInto("out", bytes, *info, pixels).ok());
  return pixels;
}

// The copy graph on `png` with the input declared linear and premultiplied,
// in RGBA32F: the server converts formats only, so the output must decode to
// exactly what libpng decodes from the input, at either depth.
v1::ProcessRequest ExactCopyRequest(const std::string& png) {
  v1::ProcessRequest request = RequestFromJson(kCopyGraph, png);
  request.mutable_inputs(0)->set_color_space(v1::COLOR_SPACE_LINEAR);
  request.mutable_inputs(0)->set_alpha_mode(v1::ALPHA_MODE_PREMULTIPLIED);
  request.mutable_options()->set_working_format(v1::WORKING_FORMAT_RGBA32F);
  return request;
}

class PngRoundTrip : public ServerTest, public ::testing::WithParamInterface<PngSpec> {};

TEST_P(PngRoundTrip, CopyGraphReturnsTheDecodedPixels) {
  const TestPng png = MakeTestPng(GetParam());
  v1::ProcessRequest request = ExactCopyRequest(png.file);
  v1::ProcessResponse response;
  grpc::Status status = Process(request, response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), 1);
  const v1::Image& out = response.outputs(0);
  EXPECT_EQ(out.name(), "out");
  EXPECT_EQ(out.encoding(), v1::IMAGE_ENCODING_PNG);
  EXPECT_EQ(out.width(), GetParam().width);
  EXPECT_EQ(out.height(), GetParam().height);
  EXPECT_EQ(DecodeOrDie(out.data()), png.expected);
}

INSTANTIATE_TEST_SUITE_P(EveryColorTypeAndDepth, PngRoundTrip, ::testing::ValuesIn(AllPngKinds()),
                         [](const auto& info) { return PngSpecName(info.param); });

// PNG outputs whose alpha is opaque everywhere come back as RGB PNGs (a
// quarter less to encode), with the same pixels; png_keep_alpha keeps RGBA,
// and an output with any translucent pixel is always RGBA.
TEST_F(ServerTest, OpaquePngOutputsAreRgbUnlessAlphaIsKept) {
  const auto color_type = [](const std::string& png) {
    return static_cast<int>(static_cast<uint8_t>(png[ChunkDataOffset(png, "IHDR") + 9]));
  };
  struct Case {
    int input_color_type;
    bool keep_alpha;
    int expected_color_type;
  };
  for (const Case c : {Case{PNG_COLOR_TYPE_RGB, false, PNG_COLOR_TYPE_RGB},
                       Case{PNG_COLOR_TYPE_RGB, true, PNG_COLOR_TYPE_RGB_ALPHA},
                       Case{PNG_COLOR_TYPE_RGB_ALPHA, false, PNG_COLOR_TYPE_RGB_ALPHA}}) {
    for (int depth : {8, 16}) {
      SCOPED_TRACE(::testing::Message() << "input colour type " << c.input_color_type
                                        << ", keep_alpha " << c.keep_alpha << ", " << depth);
      const TestPng png = MakeTestPng(
          {.width = 29, .height = 17, .color_type = c.input_color_type, .bit_depth = depth});
      v1::ProcessRequest request = ExactCopyRequest(png.file);
      request.mutable_options()->set_png_keep_alpha(c.keep_alpha);
      v1::ProcessResponse response;
      grpc::Status status = Process(request, response);
      ASSERT_TRUE(status.ok()) << status.error_message();
      const std::string& out = response.outputs(0).data();
      EXPECT_EQ(color_type(out), c.expected_color_type);
      EXPECT_EQ(static_cast<int>(static_cast<uint8_t>(out[ChunkDataOffset(out, "IHDR") + 8])),
                depth);
      EXPECT_EQ(DecodeOrDie(out), png.expected);
    }
  }
}

// An image of several 256 KiB slabs of filtered rows: with one request in
// flight the server decodes it pipelined (PipelineDecode) on any machine of
// two or more cores; the pixels must be libpng's all the same.
TEST_F(ServerTest, LargePngRoundTripsWithOneCaller) {
  const TestPng png = MakeTestPng({.width = 701, .height = 499,
                                   .color_type = PNG_COLOR_TYPE_RGB, .smooth = true});
  v1::ProcessRequest request = ExactCopyRequest(png.file);
  v1::ProcessResponse response;
  grpc::Status status = Process(request, response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(DecodeOrDie(response.outputs(0).data()), png.expected);
}

TEST_F(ServerTest, SrgbStraightRoundTripIsWithinOneStep) {
  // The defaults: sRGB decoded to linear, premultiplied, in half floats.
  const std::string png = SamplePng(37, 23, 7);
  v1::ProcessResponse response;
  grpc::Status status = Process(RequestFromJson(kCopyGraph, png), response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const std::vector<std::byte> in = DecodeOrDie(png);
  const std::vector<std::byte> out = DecodeOrDie(response.outputs(0).data());
  ASSERT_EQ(in.size(), out.size());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_LE(std::abs(int(in[i]) - int(out[i])), 1) << "byte " << i;
  }
}

// Raw bytes in and out exactly. The large image reaches the server in many
// gRPC slices, stays in them until the upload (service/process_wire.h) and
// goes back from the memory the GPU downloaded into.
TEST_F(ServerTest, RawInputsAndOutputs) {
  for (const auto& [width, height] : {std::pair{5u, 3u}, std::pair{613u, 411u}}) {
    v1::ProcessRequest request;
    google::protobuf::util::JsonStringToMessage(kCopyGraph, request.mutable_graph());
    v1::Image& image = *request.add_inputs();
    image.set_name("image");
    image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
    image.set_width(width);
    image.set_height(height);
    std::string data(size_t{width} * height * 4, '\0');
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 13) ^ (i >> 11));
    image.set_data(data);
    image.set_color_space(v1::COLOR_SPACE_LINEAR);
    image.set_alpha_mode(v1::ALPHA_MODE_PREMULTIPLIED);
    request.mutable_options()->set_working_format(v1::WORKING_FORMAT_RGBA32F);
    v1::ProcessResponse response;
    ASSERT_TRUE(Process(request, response).ok()) << width;
    EXPECT_EQ(response.outputs(0).encoding(), v1::IMAGE_ENCODING_RGBA8);
    EXPECT_EQ(response.outputs(0).width(), width);
    EXPECT_TRUE(response.outputs(0).data() == data) << width << "x" << height;
  }
}

// A client may compress its messages; the server reads the decompressed
// bytes (its own wire reader included) and answers uncompressed or not.
TEST_F(ServerTest, GzipCompressedRawRequestsRoundTrip) {
  v1::ProcessRequest request;
  google::protobuf::util::JsonStringToMessage(kCopyGraph, request.mutable_graph());
  v1::Image& image = *request.add_inputs();
  image.set_name("image");
  image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
  image.set_width(97);
  image.set_height(61);
  std::string data(97 * 61 * 4, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i % 7 == 0 ? i : 0);
  image.set_data(data);
  image.set_color_space(v1::COLOR_SPACE_LINEAR);
  image.set_alpha_mode(v1::ALPHA_MODE_PREMULTIPLIED);
  request.mutable_options()->set_working_format(v1::WORKING_FORMAT_RGBA32F);
  grpc::ClientContext context;
  context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  v1::ProcessResponse response;
  const grpc::Status status = NewStub()->Process(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(response.outputs(0).data() == data);
}

class ExampleGraph : public ServerTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(ExampleGraph, Runs) {
  v1::ProcessRequest request = RequestFromJson(ReadExampleGraph(GetParam()), SamplePng(67, 45, 3));
  // Examples name their input "image" or "photo".
  for (const v1::Pass& pass : request.graph().passes()) {
    for (const std::string& in : pass.inputs()) {
      if (in == "photo") request.mutable_inputs(0)->set_name("photo");
    }
  }
  v1::ProcessResponse response;
  grpc::Status status = Process(request, response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), request.graph().outputs_size());
  for (const v1::Image& out : response.outputs()) {
    EXPECT_EQ(out.width(), 67u);
    EXPECT_EQ(out.height(), 45u);
    EXPECT_FALSE(DecodeOrDie(out.data()).empty());
  }
  EXPECT_EQ(response.stats().passes_run() + response.stats().passes_culled(),
            request.graph().passes_size());
  EXPECT_FALSE(response.passes().empty());
  EXPECT_FALSE(response.device().empty());
  EXPECT_EQ(response.graph_hash().size(), 16u);
  EXPECT_GT(response.stages().total_ns(), 0);
  if (std::string(GetParam()) == "unused-branch.json") {
    EXPECT_EQ(response.stats().passes_culled(), 2);
    EXPECT_THAT(response.stats().culled(), ::testing::UnorderedElementsAre("preview", "preview_copy"));
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleGraph,
                         ::testing::Values("blur.json", "blur-chain.json", "unused-branch.json",
                                           "downsample-blur-upsample.json", "bloom.json"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name = name.substr(0, name.find('.'));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST_F(ServerTest, ListPassesIsTheRegistry) {
  grpc::ClientContext context;
  v1::ListPassesResponse response;
  ASSERT_TRUE(NewStub()->ListPasses(&context, {}, &response).ok());
  std::vector<std::string> expected;
  for (const graph::PassType* type : server().engine().registry().All()) {
    if (type->name() != graph::kImportPassType && type->name() != graph::kExportPassType) {
      expected.emplace_back(type->name());
    }
  }
  std::vector<std::string> listed;
  for (const v1::PassInfo& pass : response.passes()) listed.push_back(pass.name());
  EXPECT_EQ(listed, expected);
  EXPECT_THAT(listed, ::testing::Contains("gaussian_blur"));
  for (const v1::PassInfo& pass : response.passes()) {
    if (pass.name() != "gaussian_blur") continue;
    EXPECT_THAT(pass.variants(), ::testing::Contains("exact"));
    bool has_radius = false;
    for (const v1::ParamInfo& p : pass.params()) has_radius |= p.name() == "radius";
    EXPECT_TRUE(has_radius);
  }
}

TEST_F(ServerTest, DeviceInfoReportsDeviceAndLimits) {
  grpc::ClientContext context;
  v1::DeviceInfo info;
  ASSERT_TRUE(NewStub()->GetDeviceInfo(&context, {}, &info).ok());
  EXPECT_FALSE(info.name().empty());
  EXPECT_TRUE(info.validation());
  EXPECT_EQ(info.limits().max_passes(), 16);
  EXPECT_EQ(info.limits().max_pixels(), 4u << 20);
  EXPECT_EQ(info.limits().workers(), 2);
  EXPECT_EQ(info.matrix_units(), server().engine().caps().f16_matrix_product_16);
}

TEST_F(ServerTest, CatalogAndDeviceInfoShowWhatTunedChoseOnThisDevice) {
  const std::vector<std::string> expected = passes::BlurDeviceNotes(server().engine().caps());
  ASSERT_FALSE(expected.empty());
  EXPECT_THAT(expected, ::testing::Contains(::testing::HasSubstr("tuned chooses")));
  EXPECT_THAT(expected, ::testing::Contains(::testing::HasSubstr("tiled_halo takes radius <=")));
  EXPECT_THAT(expected, ::testing::Contains(::testing::HasSubstr("line_cache/symmetric/decimated cache")));
  // lavapipe has no matrix units; a GPU that has them says how far fast
  // takes them (fast_matrix_plan_tests check the radius).
  const bool matrix = server().engine().caps().f16_matrix_product_16;
  EXPECT_THAT(expected, ::testing::Contains(::testing::HasSubstr(
                            matrix ? "fast runs on the matrix units" : "fast runs on the line paths")));

  grpc::ClientContext list_context;
  v1::ListPassesResponse catalog;
  ASSERT_TRUE(NewStub()->ListPasses(&list_context, {}, &catalog).ok());
  const v1::PassInfo* blur = nullptr;
  for (const v1::PassInfo& pass : catalog.passes()) {
    if (pass.name() == "gaussian_blur") blur = &pass;
  }
  ASSERT_NE(blur, nullptr);
  for (const std::string& note : expected) {
    EXPECT_THAT(blur->notes(), ::testing::Contains(note));
    EXPECT_THAT(note, ::testing::HasSubstr(server().engine().caps().name));
  }

  grpc::ClientContext info_context;
  v1::DeviceInfo info;
  ASSERT_TRUE(NewStub()->GetDeviceInfo(&info_context, {}, &info).ok());
  std::vector<std::string> prefixed;
  for (const std::string& note : expected) prefixed.push_back("gaussian_blur: " + note);
  EXPECT_THAT(info.tuning_notes(), ::testing::ElementsAreArray(prefixed));
}

TEST_F(ServerTest, HealthIsServing) {
  auto health = grpc::health::v1::Health::NewStub(channel_);
  for (const char* service : {"", "rgfx.v1.PostProcess"}) {
    grpc::ClientContext context;
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(service);
    grpc::health::v1::HealthCheckResponse response;
    ASSERT_TRUE(health->Check(&context, request, &response).ok()) << service;
    EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING) << service;
  }
}

TEST_F(ServerTest, StreamAnswersEveryRequestWithItsId) {
  grpc::ClientContext context;
  auto stream = NewStub()->ProcessStream(&context);
  const std::string png = SamplePng(24, 16);
  constexpr int kRequests = 24;
  for (int i = 0; i < kRequests; ++i) {
    v1::ProcessRequest request = RequestFromJson(
        i == 7 ? R"({"passes": [{"name": "b", "inputs": ["image"], "outputs": ["o"],
                    "gaussianBlur": {"radius": -3}}], "outputs": ["o"]})"
               : ReadExampleGraph(i % 2 ? "blur.json" : "unused-branch.json"),
        png);
    request.set_id("req-" + std::to_string(i));
    ASSERT_TRUE(stream->Write(request));
  }
  stream->WritesDone();
  std::set<std::string> ids;
  v1::ProcessResponse response;
  while (stream->Read(&response)) {
    ids.insert(response.id());
    if (response.id() == "req-7") {
      EXPECT_EQ(response.error().code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
      EXPECT_THAT(response.error().message(), ::testing::HasSubstr("radius"));
    } else {
      EXPECT_EQ(response.error().code(), 0) << response.error().message();
      EXPECT_EQ(response.outputs_size(), 1);
    }
  }
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(ids.size(), size_t{kRequests});
}

}  // namespace
}  // namespace rgfx::testing
