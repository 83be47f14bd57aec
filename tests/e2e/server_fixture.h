// End-to-end fixture: a real rgfx server (engine, scheduler, gRPC) started
// in this process on 127.0.0.1 port 0 (ephemeral), on the default device
// (lavapipe without a GPU) with Vulkan validation on, and a client channel.
// Any validation message during a test fails it.
#pragma once

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "rgfx/v1/post_process.grpc.pb.h"
#include "service/server.h"

namespace rgfx::testing {

service::ServerOptions TestServerOptions();

class ServerTest : public ::testing::Test {
 protected:
  // One server for the whole suite (starting lavapipe with validation takes seconds).
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  void TearDown() override;

  static service::Server& server() { return *server_; }
  static std::shared_ptr<grpc::Channel> NewChannel(int port);
  std::unique_ptr<v1::PostProcess::Stub> NewStub() const;

  // Process with a deadline of `seconds`.
  grpc::Status Process(const v1::ProcessRequest& request, v1::ProcessResponse& response,
                       double seconds = 120) const;

  static service::Server* server_;
  static std::shared_ptr<grpc::Channel> channel_;
};

// A request over one PNG input named "image" with the given graph JSON.
v1::ProcessRequest RequestFromJson(const std::string& graph_json, const std::string& png);
// A graph file from examples/graphs/.
std::string ReadExampleGraph(const std::string& name);
// An 8-bit RGB test PNG of the given size (deterministic content).
std::string SamplePng(uint32_t width, uint32_t height, uint32_t seed = 1);

}  // namespace rgfx::testing
