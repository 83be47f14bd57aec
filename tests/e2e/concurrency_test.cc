// 16 concurrent clients x 20 requests of mixed graphs: every answer must be
// identical, byte for byte, to the same request sent alone.
#include <thread>

#include <gtest/gtest.h>

#include "tests/e2e/server_fixture.h"

namespace rgfx::testing {
namespace {

TEST_F(ServerTest, ConcurrentClientsGetTheSameBytesAsSequential) {
  const char* graphs[] = {"blur.json", "blur-chain.json", "unused-branch.json",
                          "downsample-blur-upsample.json"};
  std::vector<v1::ProcessRequest> requests;
  for (int i = 0; i < 8; ++i) {
    v1::ProcessRequest r = RequestFromJson(ReadExampleGraph(graphs[i % 4]),
                                           SamplePng(40 + i * 3, 30 + i, 100 + i));
    for (const v1::Pass& pass : r.graph().passes()) {
      for (const std::string& in : pass.inputs()) {
        if (in == "photo") r.mutable_inputs(0)->set_name("photo");
      }
    }
    requests.push_back(std::move(r));
  }
  std::vector<std::string> expected;
  for (const v1::ProcessRequest& r : requests) {
    v1::ProcessResponse response;
    grpc::Status status = Process(r, response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    expected.push_back(response.outputs(0).data());
  }

  constexpr int kClients = 16, kPerClient = 20;
  std::vector<std::string> failures(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto stub = v1::PostProcess::NewStub(NewChannel(server().port()));
      for (int k = 0; k < kPerClient; ++k) {
        const size_t which = (c * 7 + k) % requests.size();
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(300));
        v1::ProcessResponse response;
        grpc::Status status = stub->Process(&context, requests[which], &response);
        if (!status.ok()) {
          failures[c] = status.error_message();
          return;
        }
        if (response.outputs(0).data() != expected[which]) {
          failures[c] = "request " + std::to_string(which) + " differs from the sequential answer";
          return;
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) EXPECT_EQ(failures[c], "") << "client " << c;
}

}  // namespace
}  // namespace rgfx::testing
