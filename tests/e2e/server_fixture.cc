#include "tests/e2e/server_fixture.h"

#include <png.h>

#include <fstream>
#include <sstream>

#include <google/protobuf/util/json_util.h>

#include "tests/service/png_test_util.h"

namespace rgfx::testing {

service::Server* ServerTest::server_ = nullptr;
std::shared_ptr<grpc::Channel> ServerTest::channel_;

service::ServerOptions TestServerOptions() {
  service::ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.engine.validation = true;
  options.engine.workers = 2;
  options.cpu_threads = 2;
  options.config.limits.max_passes = 16;
  options.config.limits.max_pixels = 4 << 20;
  options.engine.limits.max_passes = 16;
  options.engine.limits.max_pixels = 4 << 20;
  options.config.max_in_flight = 8;
  options.config.max_queued = 64;
  // The GPU's PNG rows are off by default on lavapipe (a CPU device), but
  // they are what a GPU serves: the end-to-end suites run them.
  options.config.gpu_png_rows = service::GpuPngRows::kOn;
  return options;
}

void ServerTest::SetUpTestSuite() {
  if (server_ != nullptr) return;
  absl::StatusOr<std::unique_ptr<service::Server>> server =
      service::Server::Start(TestServerOptions());
  ASSERT_TRUE(server.ok()) << server.status();
  server_ = server->release();
  channel_ = NewChannel(server_->port());
}

void ServerTest::TearDownTestSuite() {
  channel_.reset();
  delete server_;
  server_ = nullptr;
}

void ServerTest::TearDown() {
  for (const std::string& message : server_->engine().TakeValidationMessages()) {
    ADD_FAILURE() << "Vulkan validation: " << message;
  }
}

std::shared_ptr<grpc::Channel> ServerTest::NewChannel(int port) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  // A fresh connection per channel, so concurrent clients are distinct.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials(), args);
}

std::unique_ptr<v1::PostProcess::Stub> ServerTest::NewStub() const {
  return v1::PostProcess::NewStub(channel_);
}

grpc::Status ServerTest::Process(const v1::ProcessRequest& request, v1::ProcessResponse& response,
                                 double seconds) const {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
  return NewStub()->Process(&context, request, &response);
}

v1::ProcessRequest RequestFromJson(const std::string& graph_json, const std::string& png) {
  v1::ProcessRequest request;
  const auto status =
      google::protobuf::util::JsonStringToMessage(graph_json, request.mutable_graph());
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << graph_json;
  v1::Image& image = *request.add_inputs();
  image.set_name("image");
  image.set_encoding(v1::IMAGE_ENCODING_PNG);
  image.set_data(png);
  return request;
}

std::string ReadExampleGraph(const std::string& name) {
  std::ifstream in(std::string(RGFX_SOURCE_DIR) + "/examples/graphs/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string SamplePng(uint32_t width, uint32_t height, uint32_t seed) {
  PngSpec spec;
  spec.color_type = PNG_COLOR_TYPE_RGB;
  spec.bit_depth = 8;
  spec.width = width;
  spec.height = height;
  spec.seed = seed;
  return MakeTestPng(spec).file;
}

}  // namespace rgfx::testing
