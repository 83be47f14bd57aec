// The server on a Unix domain socket (`--listen=unix:PATH`), for clients on
// the same machine: gRPC without the TCP stack, about half the client's CPU
// per megabyte moved (docs/OPERATIONS.md). Served, processed byte for byte,
// and reached by the rgfx CLI.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "client/channel.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "service/server.h"
#include "tests/e2e/server_fixture.h"
#include "tests/e2e/subprocess.h"

namespace rgfx::testing {
namespace {

class UnixSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Short: a socket path must fit in sockaddr_un (108 bytes).
    char dir[] = "/tmp/rgfx-uds-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    address_ = "unix:" + dir_ + "/rgfx.sock";
    service::ServerOptions options = TestServerOptions();
    options.listen_address = address_;
    absl::StatusOr<std::unique_ptr<service::Server>> server = service::Server::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  void TearDown() override {
    if (server_ != nullptr) {
      for (const std::string& message : server_->engine().TakeValidationMessages()) {
        ADD_FAILURE() << "Vulkan validation: " << message;
      }
    }
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::string address_;
  std::unique_ptr<service::Server> server_;
};

TEST_F(UnixSocketTest, ServesHealthAndExactResults) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      client::MakeChannel({.address = address_});
  ASSERT_TRUE(channel.ok()) << channel.status();

  grpc::ClientContext health_context;
  health_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::health::v1::HealthCheckRequest health_request;
  grpc::health::v1::HealthCheckResponse health;
  ASSERT_TRUE(grpc::health::v1::Health::NewStub(*channel)
                  ->Check(&health_context, health_request, &health)
                  .ok());
  EXPECT_EQ(health.status(), grpc::health::v1::HealthCheckResponse::SERVING);

  // Raw RGBA8 through the copy graph, linear and premultiplied in RGBA32F:
  // the bytes must come back unchanged.
  v1::ProcessRequest request = RequestFromJson(ReadExampleGraph("copy.json"), SamplePng(8, 8));
  v1::Image& image = *request.mutable_inputs(0);
  const uint32_t width = 173, height = 61;
  std::string pixels(size_t{width} * height * 4, '\0');
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<char>((i * 2654435761u) >> 13);
  image.set_encoding(v1::IMAGE_ENCODING_RGBA8);
  image.set_width(width);
  image.set_height(height);
  image.set_data(pixels);
  image.set_color_space(v1::COLOR_SPACE_LINEAR);
  image.set_alpha_mode(v1::ALPHA_MODE_PREMULTIPLIED);
  request.mutable_options()->set_working_format(v1::WORKING_FORMAT_RGBA32F);
  v1::ProcessResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
  const grpc::Status status =
      v1::PostProcess::NewStub(*channel)->Process(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), 1);
  EXPECT_EQ(response.outputs(0).encoding(), v1::IMAGE_ENCODING_RGBA8);
  EXPECT_TRUE(response.outputs(0).data() == pixels);
}

TEST_F(UnixSocketTest, TheCliReachesIt) {
  const CommandResult health =
      RunCommand(ShellQuote(RGFX_CLIENT_BIN) + " health --server " + ShellQuote(address_));
  EXPECT_TRUE(health.exited);
  EXPECT_EQ(health.exit_code, 0) << health.output;
  EXPECT_NE(health.output.find("SERVING"), std::string::npos) << health.output;
}

}  // namespace
}  // namespace rgfx::testing
