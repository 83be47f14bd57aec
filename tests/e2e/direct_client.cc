#include "tests/e2e/direct_client.h"

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {

std::unique_ptr<service::Server> StartServer(
    service::EngineTestHooks hooks, const std::function<void(service::ServerOptions&)>& configure) {
  service::ServerOptions options = TestServerOptions();
  options.engine.test_hooks = std::move(hooks);
  if (configure) configure(options);
  absl::StatusOr<std::unique_ptr<service::Server>> server = service::Server::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

std::shared_ptr<grpc::Channel> NewChannel(int port) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials(), args);
}

Call Process(int port, const v1::ProcessRequest& request, absl::Duration deadline) {
  auto stub = v1::PostProcess::NewStub(NewChannel(port));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  Call call;
  call.status = stub->Process(&context, request, &call.response);
  return call;
}

grpc::health::v1::HealthCheckResponse::ServingStatus Health(int port, const std::string& service) {
  auto stub = grpc::health::v1::Health::NewStub(NewChannel(port));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response.status();
}

void ExpectSameOutputs(const v1::ProcessResponse& a, const v1::ProcessResponse& b) {
  ASSERT_EQ(a.outputs_size(), b.outputs_size());
  for (int i = 0; i < a.outputs_size(); ++i) {
    EXPECT_EQ(a.outputs(i).data(), b.outputs(i).data()) << "output " << i << " differs";
  }
}

void ExpectNoValidationMessages(service::Server& server) {
  for (int i = 0; i < server.devices().size(); ++i) {
    for (const std::string& m : server.devices().engine(i).TakeValidationMessages()) {
      ADD_FAILURE() << "Vulkan validation (device " << i << "): " << m;
    }
  }
}

}  // namespace rgfx::testing
